import { Inject, Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Cluster-wide mutual exclusion on Postgres session advisory locks, each on a connection of its own: if the holder
 * crashes, its connection closes and Postgres frees the lock, so a dead replica never blocks the others.
 */
@Injectable()
export class AdvisoryLocks {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The lock, or null when another session holds it. */
  async tryAcquire(name: string): Promise<HeldLock | null> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [name]);
      if (!rows[0].locked) {
        await client.end();
        return null;
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return {
      async release() {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name]).catch(() => undefined);
        await client.end().catch(() => undefined);
      },
    };
  }
}
