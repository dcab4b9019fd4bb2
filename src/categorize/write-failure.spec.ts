import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Prisma } from '../generated/prisma/client';
import { classifyWriteFailure } from './write-failure';

interface RecordedCase {
  sqlState: string;
  isPoison: boolean;
  errorCode: string;
  cause: Record<string, unknown> & { kind: string };
}

// causes the real adapter produced from Postgres 15; test/integration/write-failure.int-spec.ts keeps them true
const FIXTURE_PATH = join(__dirname, '../../test/fixtures/driver-errors/pg-adapter-causes.json');
const recorded = (JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as { cases: RecordedCase[] }).cases;

/** What @prisma/client throws for a failed $queryRaw/$executeRaw: the adapter's error under meta.driverAdapterError. */
function clientError({ sqlState, errorCode, cause }: RecordedCase) {
  const driverAdapterError = new DriverAdapterError(cause as ConstructorParameters<typeof DriverAdapterError>[0]);
  return new Prisma.PrismaClientKnownRequestError(`Raw query failed. Code: \`${sqlState}\``, {
    code: errorCode,
    clientVersion: Prisma.prismaVersion.client,
    meta: { driverAdapterError },
  });
}

describe('classifyWriteFailure', () => {
  it('has a recorded adapter error for every SQLSTATE class it decides on', () => {
    expect(recorded.map((c) => c.sqlState)).toEqual(
      expect.arrayContaining(['21000', '22001', '22003', '22P02', '23505', '23502', '23503', '23001', 'P0001', '40001', '57014']),
    );
  });

  describe.each(recorded)('SQLSTATE $sqlState (adapter kind $cause.kind)', (recordedCase) => {
    const expected = { isPoison: recordedCase.isPoison, sqlState: recordedCase.sqlState };

    it(`is ${recordedCase.isPoison ? 'poison' : 'worth retrying'} when wrapped by @prisma/client`, () => {
      const failure = classifyWriteFailure(clientError(recordedCase));
      expect(failure).toMatchObject(expected);
      expect(failure.reason).toBe(recordedCase.cause.originalMessage);
    });

    it('reads the same from the raw DriverAdapterError', () => {
      const raw = new DriverAdapterError(recordedCase.cause as ConstructorParameters<typeof DriverAdapterError>[0]);
      expect(classifyWriteFailure(raw)).toMatchObject(expected);
    });
  });

  it('treats an unreachable database and a closed connection as worth retrying, with the kind as the reason', () => {
    for (const cause of [{ kind: 'DatabaseNotReachable', host: 'db', port: 5432 }, { kind: 'ConnectionClosed' }] as const) {
      const error = new Prisma.PrismaClientKnownRequestError('unreachable', {
        code: 'P1001',
        clientVersion: Prisma.prismaVersion.client,
        meta: { driverAdapterError: new DriverAdapterError(cause) },
      });
      expect(classifyWriteFailure(error)).toEqual({ isPoison: false, sqlState: null, reason: cause.kind });
    }
    expect(classifyWriteFailure(new Error('Connection terminated unexpectedly')).isPoison).toBe(false);
    expect(classifyWriteFailure('not even an error').isPoison).toBe(false);
  });

  it('reads the SQLSTATE of a plain pg error too', () => {
    const pgError = Object.assign(new Error('value too long'), { code: '22001', severity: 'ERROR' });
    expect(classifyWriteFailure(pgError)).toEqual({ isPoison: true, sqlState: '22001', reason: 'value too long' });
  });

  it('bounds the reason it keeps', () => {
    const cause = { ...recorded[0].cause, originalMessage: 'x'.repeat(10_000) };
    expect(classifyWriteFailure(clientError({ ...recorded[0], cause })).reason).toHaveLength(2000);
  });
});
