/**
 * Tells a batch write that can never succeed (the data itself is refused) from one worth retrying (the database is
 * unreachable, busy or restarting). Only the first kind is worth isolating event by event.
 */

// SQLSTATE classes that depend on the rows alone: data exception, integrity violation, raised by a trigger/function
const POISON_SQLSTATE_CLASSES = ['22', '23', 'P0'];

export interface WriteFailure {
  isPoison: boolean;
  sqlState: string | null;
  reason: string;
}

export function classifyWriteFailure(error: unknown): WriteFailure {
  const cause = findDriverCause(error);
  const sqlState = typeof cause?.code === 'string' && /^[0-9A-Z]{5}$/.test(cause.code) ? cause.code : null;
  const reason =
    (typeof cause?.message === 'string' && cause.message) ||
    (typeof cause?.kind === 'string' && cause.kind) ||
    (error instanceof Error && error.message) ||
    String(error);
  return { isPoison: sqlState !== null && POISON_SQLSTATE_CLASSES.includes(sqlState.slice(0, 2)), sqlState, reason: reason.slice(0, 2000) };
}

interface DriverCause {
  code?: unknown;
  message?: unknown;
  kind?: unknown;
}

/** Prisma's driver adapters put the database's error under meta.driverAdapterError.cause; pg errors carry it directly. */
function findDriverCause(error: unknown): DriverCause | null {
  if (error === null || typeof error !== 'object') return null;
  const meta = (error as { meta?: { driverAdapterError?: { cause?: DriverCause } } }).meta;
  if (meta?.driverAdapterError?.cause) return meta.driverAdapterError.cause;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return error as DriverCause;
  return null;
}
