import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '../support/test-database';

// Prisma's own schema parser (WebAssembly, no engine download) gives the data model as Prisma understands it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const prismaSchemaWasm = require('@prisma/prisma-schema-wasm') as { get_dmmf(params: string): string };

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: string;
  type: string;
  isList: boolean;
  isRequired: boolean;
  nativeType?: [string, string[]] | null;
}
interface DmmfModel {
  name: string;
  dbName?: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  fields: Array<{ name: string; sortOrder?: 'asc' | 'desc' }>;
}

const schema = readFileSync(join(__dirname, '..', '..', 'prisma', 'schema.prisma'), 'utf8');
const dmmf = JSON.parse(prismaSchemaWasm.get_dmmf(JSON.stringify({ prismaSchema: schema }))).datamodel as {
  models: DmmfModel[];
  indexes: DmmfIndex[];
};

/** The Postgres type Prisma creates for a field, as format_type() prints it. */
function expectedType(field: DmmfField): string {
  const [native, args] = field.nativeType ?? [null, []];
  const base = (() => {
    switch (native) {
      case 'Uuid':
        return 'uuid';
      case 'VarChar':
        return `character varying(${args[0]})`;
      case 'Char':
        return `character(${args[0]})`;
      case 'Timestamptz':
        return `timestamp(${args[0] ?? 6}) with time zone`;
      case 'Date':
        return 'date';
      case null:
        break;
      default:
        throw new Error(`add a mapping for native type ${native}`);
    }
    const byScalar: Record<string, string> = {
      String: 'text',
      Int: 'integer',
      BigInt: 'bigint',
      Float: 'double precision',
      Boolean: 'boolean',
      Json: 'jsonb',
      DateTime: 'timestamp(3) without time zone',
    };
    return byScalar[field.type];
  })();
  return field.isList ? `${base}[]` : base;
}

const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
const columnOf = (field: DmmfField) => field.dbName ?? field.name;

function expectedIndexName(index: DmmfIndex, model: DmmfModel): string {
  if (index.dbName) return index.dbName;
  const table = tableOf(model);
  if (index.type === 'id') return `${table}_pkey`;
  const columns = index.fields.map((f) => columnOf(model.fields.find((field) => field.name === f.name)!)).join('_');
  return `${table}_${columns}_${index.type === 'unique' ? 'key' : 'idx'}`;
}

describe('migrated database matches prisma/schema.prisma', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('has exactly the tables of the models (plus _prisma_migrations)', async () => {
    const { rows } = await db.sql.query(
      // a partitioned table is one model; its partitions (events_p20261125, events_default) are not
      `SELECT table_name FROM information_schema.tables t
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
         AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = format('%I.%I', t.table_schema, t.table_name)::regclass)`,
    );
    const actual = rows
      .map((r) => r.table_name)
      .filter((t) => t !== '_prisma_migrations')
      .sort();
    expect(actual).toEqual(dmmf.models.map(tableOf).sort());
  });

  it('has every column with the declared type and nullability, and no other column', async () => {
    const { rows } = await db.sql.query(`
      SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
        AND c.relname <> '_prisma_migrations'`);
    const actual = rows.map((r) => `${r.table}.${r.column}: ${r.type}${r.not_null ? ' NOT NULL' : ''}`).sort();
    const expected = dmmf.models
      .flatMap((model) =>
        model.fields
          .filter((field) => field.kind === 'scalar' || field.kind === 'enum')
          // Prisma creates scalar lists without NOT NULL
          .map(
            (field) =>
              `${tableOf(model)}.${columnOf(field)}: ${expectedType(field)}${field.isRequired && !field.isList ? ' NOT NULL' : ''}`,
          ),
      )
      .sort();
    expect(actual).toEqual(expected);
  });

  it('has every primary key, unique constraint and index with the declared columns, order and uniqueness', async () => {
    const { rows } = await db.sql.query(`
      SELECT i.relname AS name, t.relname AS table, ix.indisunique AS is_unique, ix.indisprimary AS is_primary,
        ARRAY(SELECT a.attname || CASE WHEN (ix.indoption[k.n - 1] & 1) = 1 THEN ' desc' ELSE '' END
              FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, n)
              JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
      FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND NOT t.relispartition AND t.relname <> '_prisma_migrations'`);
    const actual = rows
      .map((r) => `${r.table} ${r.name} ${r.is_primary ? 'primary' : r.is_unique ? 'unique' : 'index'} (${r.columns.join(', ')})`)
      .sort();
    const expected = dmmf.indexes
      .map((index) => {
        const model = dmmf.models.find((m) => m.name === index.model)!;
        const columns = index.fields.map((f) => {
          const column = columnOf(model.fields.find((field) => field.name === f.name)!);
          return f.sortOrder === 'desc' ? `${column} desc` : column;
        });
        const kind = index.type === 'id' ? 'primary' : index.type === 'unique' ? 'unique' : 'index';
        return `${tableOf(model)} ${expectedIndexName(index, model)} ${kind} (${columns.join(', ')})`;
      })
      .sort();
    expect(actual).toEqual(expected);
  });
});
