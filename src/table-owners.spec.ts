import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

// One writer per table: each table has the one folder of src/ that owns its rows, and any other folder that writes it
// is a stated exception with its reason. The test reads the code of every folder (Prisma calls that write, and the
// SQL in its string literals) and fails on a write from a folder that is neither the owner nor a stated exception.
// Reads are free: any folder may read any table.

const REPO_ROOT = resolve(__dirname, '..');

/** Table -> the folder that owns its rows (tables as prisma/schema.prisma maps them). */
const TABLE_OWNERS: Record<string, string> = {
  projects: 'src/tenancy',
  api_keys: 'src/tenancy',
  tools: 'src/registry',
  tool_versions: 'src/registry',
  tool_warnings: 'src/registry',
  project_notes: 'src/registry',
  canaries: 'src/registry',
  rollout_policies: 'src/registry',
  guard_policies: 'src/registry',
  events: 'src/categorize',
  event_ids: 'src/categorize',
  error_groups: 'src/categorize',
  hourly_rollups: 'src/categorize',
  hourly_error_rollups: 'src/categorize',
  hourly_dimension_rollups: 'src/categorize',
  argument_value_ranges: 'src/categorize',
  daily_version_rollups: 'src/categorize',
  daily_mistake_rollups: 'src/categorize',
  result_failure_policies: 'src/categorize',
  unknown_templates: 'src/categorize',
  template_labels: 'src/categorize',
  daily_tool_stats: 'src/analytics',
  daily_misnamed_calls: 'src/analytics',
  daily_tool_confusions: 'src/analytics',
  daily_session_rollups: 'src/analytics',
  daily_breakdown_rollups: 'src/analytics',
  job_runs: 'src/analytics',
  recommendations: 'src/analytics',
  project_policies: 'src/analytics',
  alert_rules: 'src/alerts',
  alert_destinations: 'src/alerts',
  alert_incidents: 'src/alerts',
  alert_deliveries: 'src/alerts',
  alert_evaluations: 'src/alerts',
  // not a model: the migration runner's record of applied migrations, as `prisma migrate deploy` keeps it
  _prisma_migrations: 'src/infra',
};

interface SecondWriter {
  writer: string;
  tables: string[];
  why: string;
}

/** The only writes from a folder other than the owner, each with its reason. */
const SECOND_WRITERS: SecondWriter[] = [
  {
    writer: 'src/retention',
    tables: [
      'events',
      'event_ids',
      'error_groups',
      'hourly_rollups',
      'hourly_error_rollups',
      'hourly_dimension_rollups',
      'daily_version_rollups',
      'daily_mistake_rollups',
      'daily_tool_stats',
      'daily_misnamed_calls',
      'daily_tool_confusions',
      'daily_session_rollups',
      'daily_breakdown_rollups',
      'unknown_templates',
    ],
    why: "deletes rows past their retention, and manages events' daily partitions (docs/retention.md)",
  },
  { writer: 'src/retention', tables: ['projects'], why: "sets a project's raw_event_retention_days, the setting it enforces" },
  {
    writer: 'src/dashboard',
    tables: ['error_groups'],
    why: 'a person\'s triage: PATCH /v1/error-groups/:id sets status (docs/architecture.md, "The dashboard\'s one write")',
  },
];

const PRISMA_WRITE_METHODS = new Set([
  'create',
  'createMany',
  'createManyAndReturn',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'upsert',
  'delete',
  'deleteMany',
]);
/** Where a template literal has a `${...}`: a table named by a variable reads as this. */
const GAP = '\u0000';
const SQL_WRITE_VERBS =
  'INSERT\\s+INTO|(?<!\\b(?:DO|FOR|KEY|SHARE)\\s+)UPDATE|DELETE\\s+FROM|COPY|TRUNCATE(?:\\s+TABLE)?|MERGE\\s+INTO|(?:CREATE|ALTER|DROP)\\s+TABLE(?:\\s+IF\\s+(?:NOT\\s+)?EXISTS)?';
// Upper-case verbs, as our SQL is written, and a named table counts only when it is one of ours: prose in a string
// ("update tools later", `update ${name}`) is not a write.
const SQL_WRITE_OF_NAMED_TABLE = new RegExp(`\\b(?:${SQL_WRITE_VERBS})\\s+(?:ONLY\\s+)?(?:public\\.)?"?(\\w+)"?`, 'g');
const SQL_WRITE_OF_VARIABLE_TABLE = new RegExp(`\\b(?:${SQL_WRITE_VERBS})\\s+(?:ONLY\\s+)?${GAP}`, 'g');

interface Write {
  table: string;
  /** "src/<folder>/<file>.ts:<line>" */
  at: string;
  how: string;
}

interface SourceFile {
  path: string;
  text: string;
}

/** Prisma model name -> table, from prisma/schema.prisma (a model without @@map keeps its name). */
function tablesByDelegate(schema: string): Map<string, string> {
  const tables = new Map<string, string>();
  for (const model of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const table = /@@map\("([^"]+)"\)/.exec(model[2])?.[1] ?? model[1];
    tables.set(model[1][0].toLowerCase() + model[1].slice(1), table);
  }
  return tables;
}

/**
 * The writes of one file. A statement whose table is a variable (`DELETE FROM ${table}`) counts as writing every
 * table the file names in a string literal: the reader cannot tell which, so it assumes all of them.
 */
function writesOf(file: SourceFile, delegates: ReadonlyMap<string, string>, knownTables: ReadonlySet<string>): Write[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const writes: Write[] = [];
  const namedTables = new Set<string>();
  const variableTableLines: number[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    let text: string | null = null;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(GAP);
    if (text !== null) {
      if (knownTables.has(text)) namedTables.add(text);
      for (const match of text.matchAll(SQL_WRITE_OF_NAMED_TABLE)) {
        if (knownTables.has(match[1])) writes.push({ table: match[1], at: `${file.path}:${lineOf(node)}`, how: 'SQL' });
      }
      if (SQL_WRITE_OF_VARIABLE_TABLE.test(text)) variableTableLines.push(lineOf(node));
      SQL_WRITE_OF_VARIABLE_TABLE.lastIndex = 0;
    }
    // <client>.<model>.<write method>(...): this.prisma.tool.create, tx.errorGroup.updateMany, ...
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      PRISMA_WRITE_METHODS.has(node.expression.name.text) &&
      ts.isPropertyAccessExpression(node.expression.expression)
    ) {
      const table = delegates.get(node.expression.expression.name.text);
      if (table) writes.push({ table, at: `${file.path}:${lineOf(node)}`, how: `prisma ${node.expression.name.text}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const line of variableTableLines) {
    if (namedTables.size === 0) writes.push({ table: '(a table named by a variable)', at: `${file.path}:${line}`, how: 'SQL' });
    for (const table of namedTables) writes.push({ table, at: `${file.path}:${line}`, how: 'SQL, table named by a variable' });
  }
  return writes;
}

/** The folder a file belongs to: src/<folder>, or the file itself for the files at the top of src/. */
function folderOf(path: string): string {
  const [, folder, ...rest] = path.split('/');
  return rest.length > 0 ? `src/${folder}` : path;
}

/** "table written from folder at file:line (owner: ...)" for every write neither the owner's nor a stated exception. */
function wrongWriters(writes: readonly Write[]): string[] {
  return writes
    .filter((write) => {
      const folder = folderOf(write.at);
      if (TABLE_OWNERS[write.table] === folder) return false;
      return !SECOND_WRITERS.some((second) => second.writer === folder && second.tables.includes(write.table));
    })
    .map(
      (write) =>
        `${write.table} written from ${folderOf(write.at)} at ${write.at} by ${write.how} (owner: ${TABLE_OWNERS[write.table] ?? 'none'})`,
    );
}

function sourceFilesUnder(folder: string): SourceFile[] {
  const files: SourceFile[] = [];
  const visit = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory() && entry.name !== 'generated') visit(path);
      else if (entry.isFile() && entry.name.endsWith('.ts') && !/\.(spec|d)\.ts$/.test(entry.name)) {
        files.push({ path: relative(REPO_ROOT, path).split('\\').join('/'), text: readFileSync(path, 'utf8') });
      }
    }
  };
  visit(join(REPO_ROOT, folder));
  return files;
}

describe('one writer per table', () => {
  const delegates = tablesByDelegate(readFileSync(join(REPO_ROOT, 'prisma/schema.prisma'), 'utf8'));
  const knownTables = new Set(Object.keys(TABLE_OWNERS));
  const writes = sourceFilesUnder('src').flatMap((file) => writesOf(file, delegates, knownTables));

  it('names an owner for every table of the schema, and no table the schema lacks', () => {
    const schemaTables = [...delegates.values(), '_prisma_migrations'].sort();
    expect(Object.keys(TABLE_OWNERS).sort()).toEqual(schemaTables);
  });

  it('finds every table written only from its owner or a stated second writer', () => {
    expect(writes.length).toBeGreaterThan(50);
    expect(wrongWriters(writes)).toEqual([]);
  });

  it('states no second writer that does not write', () => {
    const unused = SECOND_WRITERS.flatMap((second) =>
      second.tables
        .filter((table) => !writes.some((write) => write.table === table && folderOf(write.at) === second.writer))
        .map((table) => `${second.writer} -> ${table}`),
    );
    expect(unused).toEqual([]);
  });

  it('finds the owners writing their tables: Prisma calls, INSERT, COPY', () => {
    const writers = (table: string) =>
      [...new Set(writes.filter((write) => write.table === table).map((write) => folderOf(write.at)))].sort();
    expect(writers('events')).toEqual(['src/categorize', 'src/retention']);
    expect(writers('tools')).toEqual(['src/registry']);
    expect(writers('api_keys')).toEqual(['src/tenancy']);
    expect(writes.filter((write) => write.table === 'events' && write.how === 'SQL').map((write) => write.at)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^src\/categorize\/categorize\.repository\.ts:/)]),
    );
  });

  it('reads writes in Prisma calls and SQL, not in comments, prose, upserts or row locks', () => {
    const file = {
      path: 'src/ingest/sample.ts',
      text: [
        '// INSERT INTO tools (a comment)',
        "const note = 'update tools later';",
        'const a = this.prisma.toolWarning.deleteMany({ where: {} });',
        'const b = tx.project.findMany({});',
        'const c = Prisma.sql`INSERT INTO error_groups (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET count = 1`;',
        'const d = Prisma.sql`SELECT id FROM canaries WHERE id = ${id} FOR UPDATE`;',
        'const e = `COPY events (id) FROM STDIN`;',
        'const f = Prisma.sql`UPDATE "job_runs" SET status = ${status}`;',
        "const g = ['hourly_rollups'];",
        'const h = Prisma.sql`DELETE FROM ${table} WHERE id = 1`;',
      ].join('\n'),
    };
    const found = writesOf(file, delegates, knownTables).map((write) => `${write.table} ${write.at} ${write.how}`);
    expect(found.sort()).toEqual(
      [
        'tool_warnings src/ingest/sample.ts:3 prisma deleteMany',
        'error_groups src/ingest/sample.ts:5 SQL',
        'events src/ingest/sample.ts:7 SQL',
        'job_runs src/ingest/sample.ts:8 SQL',
        'hourly_rollups src/ingest/sample.ts:10 SQL, table named by a variable',
      ].sort(),
    );
    expect(wrongWriters(writesOf(file, delegates, knownTables))).toHaveLength(5);
  });
});
