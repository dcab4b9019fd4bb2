/**
 * When a read goes to the streaming replica, and when it goes to the primary instead. Pure: the caller passes the time.
 *
 * Up, every read tries the replica. After a read it could not serve, reads go to the primary for `retryAfterMs`; then
 * one read at a time tries the replica again (the others keep going to the primary) until one is answered.
 */
export class ReplicaAvailability {
  private downSinceMs: number | null = null;
  private retryAtMs = 0;
  private isProbing = false;
  private lastWarnedAtMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly retryAfterMs: number,
    private readonly warnEveryMs: number,
  ) {}

  get isDown(): boolean {
    return this.downSinceMs !== null;
  }

  shouldTryReplica(nowMs: number): boolean {
    if (this.downSinceMs === null) return true;
    if (this.isProbing || nowMs < this.retryAtMs) return false;
    this.isProbing = true;
    return true;
  }

  /** The replica could not serve a read. True when this is worth a log line: at most one per `warnEveryMs`. */
  recordUnavailable(nowMs: number): boolean {
    this.isProbing = false;
    this.retryAtMs = nowMs + this.retryAfterMs;
    this.downSinceMs ??= nowMs;
    if (nowMs - this.lastWarnedAtMs < this.warnEveryMs) return false;
    this.lastWarnedAtMs = nowMs;
    return true;
  }

  /** The replica answered (rows or a query error of its own). How long it was down when it just came back, else null. */
  recordAnswer(nowMs: number): number | null {
    this.isProbing = false;
    if (this.downSinceMs === null) return null;
    const downMs = nowMs - this.downSinceMs;
    this.downSinceMs = null;
    return downMs;
  }
}

/**
 * SQLSTATE classes that say the server, not the query, is the problem: connection (08), authorization (28), no such
 * database (3D), resources such as too many connections (53), shutdown or starting up (57), system (58).
 */
const SERVER_SQLSTATE_CLASSES = new Set(['08', '28', '3D', '53', '57', '58']);
/** A hot standby cancels a query whose rows the replay is about to remove ("conflict with recovery"). */
const RECOVERY_CONFLICT = '40001';
const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * Whether a read failed because the replica could not serve it (down, refusing, restarting, cancelled by replay), so
 * the primary should answer it instead. An error without a SQLSTATE is a socket, pool or timeout failure; an error
 * with any other SQLSTATE belongs to the query, and the primary would give the same one.
 */
export function isReplicaUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  // a query Prisma refuses before sending it is the caller's bug, wherever it runs
  if ((error as { name?: unknown }).name === 'PrismaClientValidationError') return false;
  const sqlState = sqlStateOf(error);
  return sqlState === null || sqlState === RECOVERY_CONFLICT || SERVER_SQLSTATE_CLASSES.has(sqlState.slice(0, 2));
}

/**
 * The SQLSTATE, wherever @prisma/adapter-pg left it: in a PrismaClientKnownRequestError's
 * meta.driverAdapterError.cause, in an unwrapped DriverAdapterError's cause, or on a plain pg error.
 */
function sqlStateOf(error: object): string | null {
  const wrapped = (error as { meta?: { driverAdapterError?: { cause?: unknown } } }).meta?.driverAdapterError?.cause;
  const { name, cause } = error as { name?: unknown; cause?: unknown };
  const driverCause = wrapped ?? (name === 'DriverAdapterError' ? cause : error);
  if (driverCause === null || typeof driverCause !== 'object') return null;
  const { originalCode, code } = driverCause as { originalCode?: unknown; code?: unknown };
  for (const candidate of [originalCode, code]) {
    if (typeof candidate === 'string' && SQLSTATE.test(candidate)) return candidate;
  }
  return null;
}
