/**
 * Tells a batch write that can never succeed (the data itself is refused) from one worth retrying (the database is
 * unreachable, busy or restarting). Only the first kind is worth isolating event by event.
 */

/**
 * SQLSTATE classes whose errors depend on the rows written: cardinality (21: one INSERT ... ON CONFLICT touching a
 * row twice), data exception (22), integrity violation (23), triggered data change (27), routine exceptions (2F, 38,
 * 39), check option (44), program limit (54: e.g. an index row too large), PL/pgSQL CASE without a match (20) and
 * RAISE (P0). Classes 08, 40, 53, 55, 57 and 58 (connection, rollback, resources, lock, shutdown, system) are retried.
 */
const POISON_SQLSTATE_CLASSES = new Set(['20', '21', '22', '23', '27', '2F', '38', '39', '44', '54', 'P0']);

/**
 * Every class PostgreSQL itself raises (Appendix A). A SQLSTATE of any other class can only come from a RAISE ... USING
 * ERRCODE in a trigger or function, which refuses the row it is looking at: poison too.
 */
const POSTGRES_SQLSTATE_CLASSES = new Set([
  '00',
  '01',
  '02',
  '03',
  '08',
  '09',
  '0A',
  '0B',
  '0F',
  '0L',
  '0P',
  '0Z',
  '20',
  '21',
  '22',
  '23',
  '24',
  '25',
  '26',
  '27',
  '28',
  '2B',
  '2D',
  '2F',
  '34',
  '38',
  '39',
  '3B',
  '3D',
  '3F',
  '40',
  '42',
  '44',
  '53',
  '54',
  '55',
  '57',
  '58',
  '72',
  'F0',
  'HV',
  'P0',
  'XX',
]);

const SQLSTATE = /^[0-9A-Z]{5}$/;

export interface WriteFailure {
  isPoison: boolean;
  sqlState: string | null;
  reason: string;
}

export function classifyWriteFailure(error: unknown): WriteFailure {
  const cause = findDriverCause(error);
  const sqlState = sqlStateOf(cause);
  const reason = firstText(cause?.originalMessage, cause?.message, cause?.kind) ?? (error instanceof Error ? error.message : String(error));
  return { isPoison: sqlState !== null && isPoisonSqlState(sqlState), sqlState, reason: reason.slice(0, 2000) };
}

export function isPoisonSqlState(sqlState: string): boolean {
  const sqlClass = sqlState.slice(0, 2);
  return POISON_SQLSTATE_CLASSES.has(sqlClass) || !POSTGRES_SQLSTATE_CLASSES.has(sqlClass);
}

/**
 * The database's error as the pg driver adapter reports it (@prisma/adapter-pg's convertDriverError): `originalCode`
 * and `originalMessage` always; `code` and `message` only for SQLSTATEs it does not map to a `kind` of its own.
 */
interface DriverCause {
  originalCode?: unknown;
  originalMessage?: unknown;
  code?: unknown;
  message?: unknown;
  kind?: unknown;
}

/**
 * Where the cause sits: @prisma/client wraps the adapter's DriverAdapterError in a PrismaClientKnownRequestError
 * (meta.driverAdapterError.cause); a DriverAdapterError that escapes unwrapped carries it as `cause`; a plain pg error
 * is its own cause.
 */
function findDriverCause(error: unknown): DriverCause | null {
  if (error === null || typeof error !== 'object') return null;
  const wrapped = (error as { meta?: { driverAdapterError?: { cause?: unknown } } }).meta?.driverAdapterError?.cause;
  if (isObject(wrapped)) return wrapped;
  const { name, cause } = error as { name?: unknown; cause?: unknown };
  if (name === 'DriverAdapterError' && isObject(cause)) return cause;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SQLSTATE.test(code)) return error as DriverCause;
  return null;
}

function sqlStateOf(cause: DriverCause | null): string | null {
  for (const candidate of [cause?.originalCode, cause?.code]) {
    if (typeof candidate === 'string' && SQLSTATE.test(candidate)) return candidate;
  }
  return null;
}

function firstText(...candidates: unknown[]): string | undefined {
  return candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate.length > 0);
}

function isObject(value: unknown): value is DriverCause {
  return value !== null && typeof value === 'object';
}
