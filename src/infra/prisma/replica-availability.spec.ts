import { isReplicaUnavailable, ReplicaAvailability } from './replica-availability';

const RETRY_MS = 5000;
const WARN_EVERY_MS = 60_000;

describe('ReplicaAvailability', () => {
  it('sends every read to the replica while it answers', () => {
    const availability = new ReplicaAvailability(RETRY_MS, WARN_EVERY_MS);
    expect([0, 1, 2].map((t) => availability.shouldTryReplica(t))).toEqual([true, true, true]);
    expect(availability.recordAnswer(3)).toBeNull();
    expect(availability.isDown).toBe(false);
  });

  it('sends reads to the primary for the retry period after a failure, then lets one read at a time try the replica', () => {
    const availability = new ReplicaAvailability(RETRY_MS, WARN_EVERY_MS);
    availability.recordUnavailable(1000);
    expect(availability.isDown).toBe(true);
    expect(availability.shouldTryReplica(1000 + RETRY_MS - 1)).toBe(false);
    expect(availability.shouldTryReplica(1000 + RETRY_MS)).toBe(true);
    // the probe is out: the others keep going to the primary
    expect(availability.shouldTryReplica(1000 + RETRY_MS + 1)).toBe(false);
    availability.recordUnavailable(7000);
    expect(availability.shouldTryReplica(7000 + RETRY_MS - 1)).toBe(false);
    expect(availability.shouldTryReplica(7000 + RETRY_MS)).toBe(true);
    expect(availability.recordAnswer(12_500)).toBe(11_500);
    expect(availability.isDown).toBe(false);
    expect(availability.shouldTryReplica(12_501)).toBe(true);
  });

  it('asks for one log line per warning period however many reads fail, and a new one after it', () => {
    const availability = new ReplicaAvailability(RETRY_MS, WARN_EVERY_MS);
    const logged = [0, 10, 20, 30_000, WARN_EVERY_MS - 1, WARN_EVERY_MS].map((t) => availability.recordUnavailable(t));
    expect(logged).toEqual([true, false, false, false, false, true]);
    // back and down again within the period: still quiet
    availability.recordAnswer(WARN_EVERY_MS + 100);
    expect(availability.recordUnavailable(WARN_EVERY_MS + 200)).toBe(false);
  });
});

describe('isReplicaUnavailable', () => {
  const wrapped = (cause: object) => ({ name: 'PrismaClientKnownRequestError', code: 'P2010', meta: { driverAdapterError: { cause } } });

  it.each([
    ['connection refused, as adapter-pg reports it', wrapped({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 1 })],
    ['a connection the server closed', wrapped({ kind: 'ConnectionClosed' })],
    ['the server shutting down (57P01)', wrapped({ originalCode: '57P01', originalMessage: 'terminating connection', kind: 'postgres' })],
    ['the server starting up (57P03)', wrapped({ originalCode: '57P03', originalMessage: 'the database system is starting up' })],
    ['too many connections (53300)', wrapped({ originalCode: '53300', kind: 'TooManyConnections' })],
    ['a password refused (28P01)', wrapped({ originalCode: '28P01', kind: 'AuthenticationFailed' })],
    ['no such database on the replica (3D000)', wrapped({ originalCode: '3D000', kind: 'DatabaseDoesNotExist' })],
    ['a standby query cancelled by replay (40001)', wrapped({ originalCode: '40001', kind: 'TransactionWriteConflict' })],
    ['an unwrapped DriverAdapterError', { name: 'DriverAdapterError', cause: { originalCode: '08006' } }],
    ['a pool timeout (no SQLSTATE)', new Error('timeout exceeded when trying to connect')],
    ['a socket error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect', errno: -111 })],
  ])('falls back on %s', (_, error) => {
    expect(isReplicaUnavailable(error)).toBe(true);
  });

  it.each([
    ['a syntax error (42601)', wrapped({ originalCode: '42601', kind: 'postgres', code: '42601' })],
    ['bad input (22P02)', wrapped({ originalCode: '22P02', kind: 'InvalidInputValue' })],
    ['a missing table (42P01)', { code: '42P01', message: 'relation "x" does not exist', severity: 'ERROR' }],
    ['a query Prisma refused before sending it', Object.assign(new Error('Unknown argument'), { name: 'PrismaClientValidationError' })],
    ['something that is not an error', 'boom'],
  ])('passes on %s, which the primary would give too', (_, error) => {
    expect(isReplicaUnavailable(error)).toBe(false);
  });
});
