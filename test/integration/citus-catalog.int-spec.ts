import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * Issue 19: whether the migrated schema can be sharded by project with Citus. Every table is a reference table (copied
 * to every node: read before the project is known), a local table (the coordinator's own) or distributed by
 * project_id; a distributed table carries project_id first in its primary key and every unique index (Citus enforces
 * uniqueness per shard, so the shard key must be in it), and a foreign key between two distributed tables pairs
 * project_id with project_id (rows it joins live on one node). Every raw SQL statement in src/ that touches a
 * distributed table says project_id, except the reviewed maintenance statements below. docs/scaling.md holds the
 * create_distributed_table / create_reference_table DDL this test derives from the catalog, word for word.
 */

const REPO_ROOT = join(__dirname, '..', '..');

/** Copied whole to every node. Small, and looked up before any project is known (or for all projects at once). */
export const REFERENCE_TABLES: Record<string, string> = {
  projects: 'every request and job starts from its project: looked up by id and name before anything is project-scoped',
  api_keys: 'looked up by key hash to learn which project a request belongs to',
  alert_evaluations: 'one row per evaluation window for all projects at once, claimed by one worker before any project is read',
};

/** Never distributed: bookkeeping of the coordinator. */
const LOCAL_TABLES: Record<string, string> = {
  _prisma_migrations: 'the migration runner records applied migrations here; the app never queries it',
};

/**
 * Raw SQL in src/ that touches a distributed table without naming project_id, reviewed: each spans all projects on
 * purpose. Keyed by file and the function or method it is in.
 */
const CROSS_PROJECT_SQL: Record<string, string> = {
  'src/retention/retention.repository.ts#findDaysInDefaultPartition':
    'which days have rows waiting in the default partition: the table layout, for all projects (on Citus each shard has its own)',
  'src/retention/retention.repository.ts#createPartition':
    "DDL: creates a day's partition and moves that day's rows of every project into it from the default partition",
  'src/retention/retention.repository.ts#dropPartition':
    "DDL: drops a whole day's partition once every project with rows in it allows it (checked per project before)",
};

interface TableFacts {
  hasProjectId: boolean;
  primaryKey: string[] | null;
  uniqueIndexes: Array<{ name: string; columns: string[] }>;
  foreignKeys: Array<{ name: string; columns: string[]; referencedTable: string; referencedColumns: string[] }>;
}

/** The public schema's tables (partitions folded into their parent) with their keys, read from pg_catalog. */
async function readCatalog(db: TestDatabase): Promise<Map<string, TableFacts>> {
  const tables = new Map<string, TableFacts>();
  const { rows: tableRows } = await db.sql.query<{ name: string; has_project_id: boolean }>(`
    SELECT c.relname AS name,
           EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'project_id' AND NOT a.attisdropped) AS has_project_id
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`);
  for (const row of tableRows)
    tables.set(row.name, { hasProjectId: row.has_project_id, primaryKey: null, uniqueIndexes: [], foreignKeys: [] });

  const { rows: indexRows } = await db.sql.query<{ table_name: string; index_name: string; is_primary: boolean; columns: string[] }>(`
    SELECT c.relname AS table_name, i.relname AS index_name, x.indisprimary AS is_primary,
           array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.n)::text[] AS columns
    FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND x.indisunique AND NOT c.relispartition`);
  for (const row of indexRows) {
    const table = tables.get(row.table_name);
    if (!table) continue;
    if (row.is_primary) table.primaryKey = row.columns;
    else table.uniqueIndexes.push({ name: row.index_name, columns: row.columns });
  }

  const { rows: keyRows } = await db.sql.query<{
    table_name: string;
    name: string;
    columns: string[];
    referenced_table: string;
    referenced_columns: string[];
  }>(`
    SELECT c.relname AS table_name, k.conname AS name, r.relname AS referenced_table,
           array(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY u(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.n)::text[] AS columns,
           array(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY u(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum ORDER BY u.n)::text[] AS referenced_columns
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND k.contype = 'f' AND NOT c.relispartition AND k.conparentid = 0`);
  for (const row of keyRows) {
    tables.get(row.table_name)?.foreignKeys.push({
      name: row.name,
      columns: row.columns,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_columns,
    });
  }
  return tables;
}

const isDistributed = (table: string) => !(table in REFERENCE_TABLES) && !(table in LOCAL_TABLES);

/** Why a table cannot be distributed by project_id as it stands, one line per reason. */
function distributionProblems(facts: TableFacts): string[] {
  const problems: string[] = [];
  const startsWithProjectId = (columns: string[]) => columns[0] === 'project_id';
  if (!facts.hasProjectId) problems.push('has no project_id column');
  if (facts.primaryKey === null) problems.push('has no primary key');
  else if (!startsWithProjectId(facts.primaryKey))
    problems.push(`primary key (${facts.primaryKey.join(', ')}) does not start with project_id`);
  for (const index of facts.uniqueIndexes) {
    if (!startsWithProjectId(index.columns)) {
      problems.push(`unique index ${index.name} (${index.columns.join(', ')}) does not start with project_id`);
    }
  }
  for (const key of facts.foreignKeys) {
    const described = `foreign key ${key.name} (${key.columns.join(', ')}) -> ${key.referencedTable} (${key.referencedColumns.join(', ')})`;
    if (key.referencedTable in LOCAL_TABLES) problems.push(`${described} references a local table`);
    else if (isDistributed(key.referencedTable)) {
      const at = key.columns.indexOf('project_id');
      if (at < 0 || key.referencedColumns[at] !== 'project_id') problems.push(`${described} does not pair project_id with project_id`);
    }
  }
  return problems;
}

/**
 * The DDL that shards this schema with Citus, derived from the catalog: docs/scaling.md must hold it as is. A table
 * comes after the tables its foreign keys reference (Citus wants those distributed first), by name otherwise.
 */
function citusDdl(catalog: ReadonlyMap<string, TableFacts>): string {
  const ordered = inForeignKeyOrder(catalog);
  const reference = ordered.filter((table) => table in REFERENCE_TABLES);
  const distributed = ordered.filter((table) => isDistributed(table) && table !== 'events');
  return [
    '-- reference tables: a full copy on every node',
    ...reference.map((table) => `SELECT create_reference_table('${table}');`),
    '-- distributed by project_id, co-located with events: one project lives on one node in every table',
    "SELECT create_distributed_table('events', 'project_id');",
    ...distributed.map((table) => `SELECT create_distributed_table('${table}', 'project_id', colocate_with => 'events');`),
  ].join('\n');
}

function inForeignKeyOrder(catalog: ReadonlyMap<string, TableFacts>): string[] {
  const ordered: string[] = [];
  const place = (table: string) => {
    if (ordered.includes(table)) return;
    for (const key of catalog.get(table)?.foreignKeys ?? []) if (key.referencedTable !== table) place(key.referencedTable);
    ordered.push(table);
  };
  for (const table of [...catalog.keys()].sort()) place(table);
  return ordered;
}

interface SqlStatement {
  /** `file#function`, the key of CROSS_PROJECT_SQL. */
  where: string;
  text: string;
  /** Source text of the same-file declarations the statement interpolates, followed transitively (WHERE fragments). */
  fragments: string;
}

const SQL_TAGS = /(\$queryRaw|\$executeRaw|Prisma\.sql)$/;
const SQL_CALLS = /(\$queryRawUnsafe|\$executeRawUnsafe|\.query)$/;
const TABLE_REFERENCE = /\b(?:from|join|into|update|table)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;
/** A table named by an interpolation (a partition, a table picked at run time): reviewed as if it were distributed. */
const DYNAMIC_TABLE = '__dynamic_table__';

/** Every raw SQL text in src/ (tagged templates of Prisma, strings given to $queryRawUnsafe, $executeRawUnsafe and pg's query). */
function findSqlStatements(): SqlStatement[] {
  const statements: SqlStatement[] = [];
  for (const path of sourceFiles(join(REPO_ROOT, 'src'))) {
    const file = relative(REPO_ROOT, path).split('\\').join('/');
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const declarations = namedDeclarations(source);
    const visit = (node: ts.Node) => {
      let template: ts.TemplateLiteral | ts.StringLiteral | null = null;
      if (ts.isTaggedTemplateExpression(node) && SQL_TAGS.test(node.tag.getText())) template = node.template;
      if (ts.isCallExpression(node) && SQL_CALLS.test(node.expression.getText())) {
        const [first] = node.arguments;
        if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first) || ts.isTemplateExpression(first))) {
          template = first;
        }
      }
      if (template) {
        const interpolated = ts.isTemplateExpression(template) ? template.templateSpans.map((span) => span.expression) : [];
        const fragments = resolveFragments(
          interpolated.flatMap((expression) => namesIn(expression)),
          declarations,
        );
        statements.push({ where: `${file}#${enclosingName(node)}`, text: templateText(template), fragments });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return statements;
}

function templateText(template: ts.TemplateLiteral | ts.StringLiteral): string {
  if (!ts.isTemplateExpression(template)) return template.text;
  return template.head.text + template.templateSpans.map((span) => ` \${${span.expression.getText()}} ${span.literal.text}`).join('');
}

/** Identifiers an interpolation uses: `inWindow(window)` -> inWindow, window. */
function namesIn(expression: ts.Node): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) names.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(expression);
  return names;
}

/**
 * The source text of the declarations `names` lead to, followed through the names those declarations use in turn
 * (`${slice}` -> `const slice = dimensionSlice(...)` -> `function dimensionSlice` and its `r.project_id = ...`).
 */
function resolveFragments(names: readonly string[], declarations: ReadonlyMap<string, string[]>): string {
  const seen = new Set<string>();
  const texts: string[] = [];
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const text of declarations.get(name) ?? []) {
      texts.push(text);
      pending.push(...(text.match(/[A-Za-z_$][\w$]*/g) ?? []));
    }
  }
  return texts.join('\n');
}

/** Functions and variables of a file by name (a name declared in several places: each), with their source text. */
function namedDeclarations(source: ts.SourceFile): Map<string, string[]> {
  const declarations = new Map<string, string[]>();
  const visit = (node: ts.Node) => {
    if ((ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node)) && node.name && ts.isIdentifier(node.name)) {
      declarations.set(node.name.text, [...(declarations.get(node.name.text) ?? []), node.getText()]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return declarations;
}

/** The function or method around the node; else the outermost variable it is assigned to (a top-level fragment). */
function enclosingName(node: ts.Node): string {
  let variable = '(top level)';
  for (let current: ts.Node | undefined = node.parent; current; current = current.parent) {
    if ((ts.isFunctionDeclaration(current) || ts.isMethodDeclaration(current)) && current.name) return current.name.getText();
    if (ts.isVariableDeclaration(current) && ts.isIdentifier(current.name)) variable = current.name.text;
  }
  return variable;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('a schema Citus can shard by project_id', () => {
  let db: TestDatabase;
  let catalog: Map<string, TableFacts>;

  beforeAll(async () => {
    db = await createTestDatabase();
    catalog = await readCatalog(db);
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('knows the events table and every table it names, and names only tables that exist', () => {
    expect(catalog.has('events')).toBe(true);
    for (const table of [...Object.keys(REFERENCE_TABLES), ...Object.keys(LOCAL_TABLES)]) {
      expect({ table, exists: catalog.has(table) }).toEqual({ table, exists: true });
    }
  });

  it('has project_id first in the primary key and every unique index of each distributed table, and no foreign key across projects', () => {
    const problems: Record<string, string[]> = {};
    for (const [table, facts] of [...catalog].sort(([a], [b]) => a.localeCompare(b))) {
      if (!isDistributed(table)) continue;
      const found = distributionProblems(facts);
      if (found.length > 0) problems[table] = found;
    }
    expect(problems).toEqual({});
  });

  it('keeps reference tables free of foreign keys into distributed tables (Citus refuses them)', () => {
    const offending = Object.keys(REFERENCE_TABLES).flatMap((table) =>
      (catalog.get(table)?.foreignKeys ?? []).filter((key) => isDistributed(key.referencedTable)).map((key) => `${table}.${key.name}`),
    );
    expect(offending).toEqual([]);
  });

  it('scopes every raw SQL statement in src/ that touches a distributed table by project_id, except the reviewed cross-project ones', () => {
    const distributed = new Set([...catalog.keys()].filter(isDistributed));
    const statements = findSqlStatements();
    // the scan must see the hot paths it is meant to guard, or it proves nothing
    expect(statements.some((s) => s.where.startsWith('src/categorize/categorize.repository.ts#'))).toBe(true);
    expect(statements.some((s) => s.where.startsWith('src/dashboard/stats.queries.ts#'))).toBe(true);
    const unscoped = new Set<string>();
    let touching = 0;
    for (const statement of statements) {
      const sqlOnly = statement.text.replace(/\$\{[^}]*\}/g, ` ${DYNAMIC_TABLE} `);
      const tables = [...sqlOnly.matchAll(TABLE_REFERENCE)]
        .map((match) => match[1].toLowerCase())
        .filter((table) => table === DYNAMIC_TABLE || distributed.has(table));
      if (tables.length === 0) continue;
      touching += 1;
      if (!/\bproject_id\b/.test(statement.text) && !/\bproject_id\b/.test(statement.fragments)) unscoped.add(statement.where);
    }
    expect(touching).toBeGreaterThan(10);
    expect([...unscoped].sort()).toEqual(Object.keys(CROSS_PROJECT_SQL).sort());
  });

  it('docs/scaling.md holds the Citus DDL derived from this catalog, word for word', () => {
    const ddl = citusDdl(catalog);
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'scaling.md'), 'utf8');
    if (!doc.includes(ddl)) throw new Error(`docs/scaling.md must hold this block (derived from the catalog):\n\n${ddl}\n`);
  });
});
