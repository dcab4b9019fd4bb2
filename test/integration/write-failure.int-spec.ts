import { PrismaPg } from '@prisma/adapter-pg';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyWriteFailure } from '../../src/categorize/write-failure';
import { PrismaClient } from '../../src/generated/prisma/client';
import { createTestDatabase, TestDatabase } from '../support/test-database';

interface RecordedCase {
  sqlState: string;
  isPoison: boolean;
  sql: string | string[];
  errorCode: string;
  cause: Record<string, unknown>;
}

const FIXTURE_PATH = join(__dirname, '../fixtures/driver-errors/pg-adapter-causes.json');
const fixture = JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as { setup: string[]; cases: RecordedCase[] };

/**
 * The unit tests of classifyWriteFailure build errors from recorded adapter causes; this produces each one from the
 * real Postgres through the real adapter, the way the worker's batch transaction runs, so the recording cannot drift.
 */
describe('database errors as @prisma/adapter-pg reports them', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url, max: 2 }) });
    for (const sql of fixture.setup) await db.sql.query(sql);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await db.drop();
  });

  async function failureOf(statements: string[]): Promise<unknown> {
    try {
      await prisma.$transaction(async (tx) => {
        for (const sql of statements) await tx.$executeRawUnsafe(sql);
      });
    } catch (error) {
      return error;
    }
    throw new Error(`no error from ${statements.join('; ')}`);
  }

  it.each(fixture.cases)('$sqlState: the recorded shape is what the adapter throws, classified as poison=$isPoison', async (recorded) => {
    const error = (await failureOf([recorded.sql].flat())) as { code?: string; meta?: { driverAdapterError?: { cause?: unknown } } };
    expect(error.code).toBe(recorded.errorCode);
    expect(error.meta?.driverAdapterError?.cause).toEqual(recorded.cause);
    expect(classifyWriteFailure(error)).toMatchObject({ isPoison: recorded.isPoison, sqlState: recorded.sqlState });
  });

  it('classifies an unreachable database as worth retrying', async () => {
    const unreachable = new PrismaClient({ adapter: new PrismaPg({ connectionString: 'postgresql://postgres@127.0.0.1:1/none' }) });
    try {
      const error = await unreachable
        .$transaction((tx) => tx.$executeRawUnsafe('SELECT 1'))
        .then(
          () => new Error('connected to port 1'),
          (failure: unknown) => failure,
        );
      expect(classifyWriteFailure(error)).toMatchObject({ isPoison: false, sqlState: null });
    } finally {
      await unreachable.$disconnect();
    }
  });
});
