import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from 'pg';
import { connectClient } from './pg-connections';

/**
 * Applies prisma/migrations/<timestamp>_<name>/migration.sql in order and records each in `_prisma_migrations`
 * exactly as `prisma migrate deploy` does (same table, same sha256 checksum), so the two agree on machines that have
 * Prisma's schema engine. We need our own runner because that engine cannot be downloaded everywhere we run.
 */

// Prisma's own advisory lock key, so our runner and `prisma migrate deploy` never run at the same time.
const PRISMA_ADVISORY_LOCK_KEY = 72707369;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

export function readMigrations(dir: string = resolveMigrationsDir()): MigrationFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** Works from src/ (ts-jest) and from dist/src/ (compiled). */
function resolveMigrationsDir(): string {
  const fromSource = join(__dirname, '..', '..', '..', 'prisma', 'migrations');
  const fromDist = join(__dirname, '..', '..', '..', '..', 'prisma', 'migrations');
  for (const candidate of [fromSource, fromDist]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`prisma/migrations not found near ${__dirname}`);
}

export async function migrate(databaseUrl: string, log: (message: string) => void = () => {}): Promise<MigrationResult> {
  const client = await connectClient({ connectionString: databaseUrl });
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((row) => [row.migration_name, row]));
    const result: MigrationResult = { applied: [], alreadyApplied: 0 };
    for (const migration of readMigrations()) {
      const previous = done.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          log(`warning: migration ${migration.name} was modified after it was applied (checksum differs)`);
        }
        result.alreadyApplied += 1;
        continue;
      }
      if (previous) {
        throw new Error(`migration ${migration.name} failed earlier and was not rolled back; fix the database, then mark it rolled back`);
      }
      await applyMigration(client, migration);
      result.applied.push(migration.name);
      log(`applied migration ${migration.name}`);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

async function applyMigration(client: Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query(
    'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
    [id, migration.checksum, migration.name],
  );
  try {
    await client.query('BEGIN');
    await client.query(migration.sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    await client.query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [id, String(error)]);
    throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
  await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
}
