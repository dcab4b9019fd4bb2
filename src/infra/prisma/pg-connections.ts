import { Client, ClientConfig, Pool, PoolClient, PoolConfig } from 'pg';

/**
 * Every node-postgres client and pool of ours is made here, with an `'error'` listener from its first moment: pg emits
 * `'error'` when the server closes a connection between queries (a restart, `pg_terminate_backend`, a failover), and
 * an emitter's `'error'` event nobody listens to ends the process. A query that was running is rejected on its own;
 * the listener only has to keep the event from being unheard. (Prisma's pg adapter listens on its own pools.)
 */
export type ConnectionErrorListener = (error: Error) => void;

/** A client connected to `config`, listened to for connection errors until it is ended. */
export async function connectClient(config: ClientConfig, onError: ConnectionErrorListener = ignoreError): Promise<Client> {
  const client = new Client(config);
  client.on('error', onError);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

/** A pool whose idle connections are listened to (by `pg-pool`'s own idle listener, which reports to `onIdleError`). */
export function createPool(config: PoolConfig, onIdleError: ConnectionErrorListener): Pool {
  const pool = new Pool(config);
  pool.on('error', onIdleError);
  return pool;
}

/**
 * A connection taken from `pool`, listened to while it is checked out: pg-pool removes its idle listener for that
 * time, so a connection lost between two statements of a transaction would otherwise end the process. `isLost()` tells
 * whether that happened, so the caller releases it as broken; `release` takes the listener off again.
 */
export async function checkOut(pool: Pool): Promise<{ client: PoolClient; isLost: () => boolean; release: (isBroken: boolean) => void }> {
  const client = await pool.connect();
  let isLost = false;
  const onError = () => (isLost = true);
  client.on('error', onError);
  return {
    client,
    isLost: () => isLost,
    release: (isBroken) => {
      client.removeListener('error', onError);
      client.release(isBroken || isLost);
    },
  };
}

function ignoreError() {}
