/**
 * Whether a query failed because the database could not serve it at all (down, restarting, refusing connections, the
 * connection lost mid-query), not because of the query: then the caller may simply retry later. Read from what
 * Prisma's pg adapter reports (its `kind`, or the SQLSTATE it kept), from Prisma's own connection codes, or from
 * node-postgres directly.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { name, code, message, meta, cause } = error as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    meta?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && PRISMA_CONNECTION_CODES.has(code)) return true;
  if (name === 'PrismaClientInitializationError') return true;
  const driverCause =
    (meta as { driverAdapterError?: { cause?: unknown } } | undefined)?.driverAdapterError?.cause ??
    (name === 'DriverAdapterError' ? cause : null);
  if (driverCause !== null && typeof driverCause === 'object') {
    const { kind, originalCode } = driverCause as { kind?: unknown; originalCode?: unknown };
    if (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) return true;
    if (typeof originalCode === 'string' && isServerSqlState(originalCode)) return true;
  }
  // node-postgres' own errors (the worker's pool), and what Prisma wraps without a kind (an unknown request error)
  if (typeof code === 'string' && (isServerSqlState(code) || SOCKET_ERROR_CODES.has(code))) return true;
  return typeof message === 'string' && LOST_CONNECTION_MESSAGES.some((text) => message.includes(text));
}

/** Can't reach the server (P1001), it timed out (P1002), it closed the connection (P1017), no free connection (P2024). */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const SOCKET_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
const LOST_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
];

/** Connection exceptions (08), insufficient resources (53), shutdown or start-up (57P01-57P05), system errors (58). */
function isServerSqlState(code: string): boolean {
  return /^(08|53|58)[0-9A-Z]{3}$/.test(code) || /^57P0[1-5]$/.test(code);
}
