import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Logger } from 'pino';
import { AppConfig, redactUrl } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { PrismaClient } from '../../generated/prisma/client';
import { ROOT_LOGGER } from '../logging/logging.module';
import { PrismaService } from './prisma.service';
import { isReplicaUnavailable, ReplicaAvailability } from './replica-availability';

/** How long reads stay on the primary after the replica failed one, before one read tries the replica again. */
const RETRY_REPLICA_AFTER_MS = 5000;
/** At most one "replica unavailable" line this often, however many reads fall back. */
const WARN_EVERY_MS = 60_000;
/** A replica that does not accept a connection in this time counts as down (a read must not wait on it for long). */
const REPLICA_CONNECT_TIMEOUT_MS = 2000;

/**
 * Where the dashboard's read-only queries run: on the streaming replica of DATABASE_READ_URL when one is set (api role
 * only), else on the primary. A read the replica cannot serve (down, refusing, restarting) is run again on the primary.
 * The replica lags the primary by its replay delay, so only reads that may be seconds old belong here; anything that
 * writes, or reads what it has just written, uses PrismaService.
 */
@Injectable()
export class ReadPrismaService implements OnModuleDestroy {
  private readonly replica: PrismaClient | null;
  private readonly availability = new ReplicaAvailability(RETRY_REPLICA_AFTER_MS, WARN_EVERY_MS);
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly primary: PrismaService,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'read-replica', replica: config.databaseReadUrl && redactUrl(config.databaseReadUrl) });
    this.replica =
      config.databaseReadUrl !== null && config.roles.has('api')
        ? new PrismaClient({
            adapter: new PrismaPg({
              connectionString: config.databaseReadUrl,
              max: 10,
              connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS,
            }),
          })
        : null;
  }

  /** Runs `query` on the replica, or on the primary when there is none, it is down, or it could not serve this read. */
  async read<T>(query: (client: PrismaClient) => Promise<T>): Promise<T> {
    if (this.replica === null || !this.availability.shouldTryReplica(Date.now())) return query(this.primary);
    try {
      const result = await query(this.replica);
      this.noteAnswer();
      return result;
    } catch (error) {
      if (!isReplicaUnavailable(error)) {
        this.noteAnswer();
        throw error;
      }
      if (this.availability.recordUnavailable(Date.now())) {
        this.logger.warn(
          { err: describeFailure(error), retryMs: RETRY_REPLICA_AFTER_MS },
          'read replica unavailable; dashboard reads go to the primary until it answers again',
        );
      }
      return query(this.primary);
    }
  }

  async onModuleDestroy() {
    await this.replica?.$disconnect();
  }

  private noteAnswer() {
    const downMs = this.availability.recordAnswer(Date.now());
    if (downMs !== null) this.logger.info({ downMs }, 'read replica answers again; dashboard reads go to it');
  }
}

function describeFailure(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}
