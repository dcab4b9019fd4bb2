import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { createProducerConnection, createWorkerConnection } from '../infra/redis/redis-connections';

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
  private subscriber?: Redis;
  private publisher?: Redis;
  private readonly listeners = new Set<(keyHash: string | null) => void>();
  private readonly logger: Logger;
  private readonly channel: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'api-key-revocations' });
    this.channel = revocationChannelName(config.queuePrefix);
  }

  /** `keyHash` null means: forget every cached key. */
  onRevocation(listener: (keyHash: string | null) => void) {
    this.listeners.add(listener);
  }

  onApplicationBootstrap() {
    // opened now: a producer connection refuses commands until it is connected
    this.publisher = createProducerConnection(this.config.redisUrl).on('error', () => undefined);
    const subscriber = createWorkerConnection(this.config.redisUrl);
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('ready', () => this.notify(null));
    subscriber.on('close', () => this.notify(null));
    subscriber.on('message', (_, keyHash: string) => this.notify(keyHash));
    subscriber.subscribe(this.channel).catch((error) => this.logger.warn({ err: error.message }, 'cannot subscribe'));
  }

  async publish(keyHash: string): Promise<void> {
    this.notify(keyHash);
    try {
      if (!this.publisher) throw new Error('not started');
      await this.publisher.publish(this.channel, keyHash);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'could not announce a revocation; other replicas forget the key within the cache TTL');
    }
  }

  private notify(keyHash: string | null) {
    for (const listener of this.listeners) listener(keyHash);
  }

  onModuleDestroy() {
    this.subscriber?.disconnect();
    this.publisher?.disconnect();
  }
}
