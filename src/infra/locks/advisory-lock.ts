import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { connectClient } from '../prisma/pg-connections';
import { PrismaService } from '../prisma/prisma.service';

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Cluster-wide mutual exclusion on Postgres session advisory locks, each on a connection of its own: if the holder
 * crashes, its connection closes and Postgres frees the lock, so a dead replica never blocks the others.
 */
@Injectable()
export class AdvisoryLocks {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
  ) {}

  /**
   * Whether some session holds the lock now, read from pg_locks without taking it: two callers asking at once must not
   * see each other's probe as a holder. A bigint advisory key is stored split into classid (high) and objid (low).
   */
  async isHeld(name: string): Promise<boolean> {
    // a read needs no session of its own: the pool's connection will do
    const rows = await this.prisma.$queryRaw<Array<{ held: boolean }>>`
      WITH k AS (SELECT hashtextextended(${name}, 0) AS key)
      SELECT EXISTS (
        SELECT 1 FROM pg_locks, k
        WHERE locktype = 'advisory' AND objsubid = 1 AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid::bigint = (key >> 32) & 4294967295 AND objid::bigint = key & 4294967295
      ) AS held`;
    return rows[0].held;
  }

  /** The lock, or null when another session holds it. */
  async tryAcquire(name: string): Promise<HeldLock | null> {
    // a lost connection frees the lock on the server; the holder learns of it when its next query fails
    const client = await connectClient({ connectionString: this.config.databaseUrl });
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
