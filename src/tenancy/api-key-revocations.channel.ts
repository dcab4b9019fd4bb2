import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { RedisBroadcast } from '../infra/redis/redis-broadcast';

/** The Redis channel on which revocations are announced; the CLI publishes on it too. */
export function revocationChannelName(queuePrefix: string): string {
  return `${queuePrefix}:api-key-revocations`;
}

/**
 * Tells every replica at once that a key was revoked, so none keeps trusting it from its cache. When the subscription
 * drops, revocations may have been missed, so every cached key is forgotten.
 */
@Injectable()
export class ApiKeyRevocationsChannel implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly listeners = new Set<(keyHash: string | null) => void>();
  private readonly broadcast: RedisBroadcast;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(ROOT_LOGGER) rootLogger: Logger) {
    this.broadcast = new RedisBroadcast(
      config.redis,
      revocationChannelName(config.queuePrefix),
      rootLogger.child({ context: 'api-key-revocations' }),
    );
  }

  /** `keyHash` null means: forget every cached key. */
  onRevocation(listener: (keyHash: string | null) => void) {
    this.listeners.add(listener);
  }

  onApplicationBootstrap() {
    return this.broadcast.subscribe({ onMessage: (keyHash) => this.notify(keyHash), onMaybeMissed: () => this.notify(null) });
  }

  /** If Redis misses it, other replicas forget the key within the cache TTL. */
  async publish(keyHash: string): Promise<void> {
    this.notify(keyHash);
    await this.broadcast.publish(keyHash);
  }

  private notify(keyHash: string | null) {
    for (const listener of this.listeners) listener(keyHash);
  }

  onModuleDestroy() {
    this.broadcast.close();
  }
}
