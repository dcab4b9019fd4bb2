import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { createProducerConnection, createWorkerConnection } from '../infra/redis/redis-connections';

/** A tool whose served answers changed: every instance drops what it cached for it. */
export interface RegistryChange {
  projectId: string;
  tool: string;
}

export interface RegistryChangeListener {
  onRegistryChange(change: RegistryChange): void;
  /** Changes may have been missed (the subscription was down): forget everything. */
  onRegistryChangesMissed(): void;
}

const SUBSCRIBE_TIMEOUT_MS = 3000;

/**
 * Redis pub/sub on `${QUEUE_PREFIX}:registry-changes`. Connections open on first use, so processes that never publish
 * or listen (a worker without registry writes) hold none. Local listeners hear a change at once, before Redis echoes it.
 */
@Injectable()
export class RegistryChangesChannel implements OnModuleDestroy {
  private readonly channel: string;
  private readonly listeners = new Set<RegistryChangeListener>();
  private publisher: Redis | null = null;
  private subscriber: Redis | null = null;
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.channel = `${config.queuePrefix}:registry-changes`;
    this.logger = rootLogger.child({ context: 'registry-changes' });
  }

  async publish(change: RegistryChange): Promise<void> {
    this.notify(change);
    try {
      this.publisher ??= this.openPublisher();
      await this.publisher.publish(this.channel, JSON.stringify(change));
    } catch (error) {
      // The change is committed; other instances serve the old answer until their subscription recovers and resets.
      this.logger.warn({ err: error, ...change }, 'could not publish a registry change');
    }
  }

  /** Resolves once Redis confirms the subscription (or after a timeout, logged: the caches then reset on connect). */
  async listen(listener: RegistryChangeListener): Promise<void> {
    this.listeners.add(listener);
    if (this.subscriber) return;
    const subscriber = createWorkerConnection(this.config.redisUrl);
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    let hasBeenReady = false;
    subscriber.on('ready', () => {
      // ioredis resubscribes after a reconnect; whatever was published meanwhile is lost.
      if (hasBeenReady) for (const each of this.listeners) each.onRegistryChangesMissed();
      hasBeenReady = true;
    });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const change = parseChange(message);
      if (change) this.notify(change);
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        subscriber.subscribe(this.channel),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), SUBSCRIBE_TIMEOUT_MS))),
      ]);
    } catch (error) {
      this.logger.warn({ err: error, channel: this.channel }, 'registry change subscription not confirmed yet');
    } finally {
      clearTimeout(timer);
    }
  }

  private notify(change: RegistryChange) {
    for (const listener of this.listeners) listener.onRegistryChange(change);
  }

  private openPublisher(): Redis {
    // Queue the first publish while the connection opens; one retry still fails it fast when Redis is gone.
    const publisher = createProducerConnection(this.config.redisUrl, { enableOfflineQueue: true });
    publisher.on('error', () => undefined);
    return publisher;
  }

  onModuleDestroy() {
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
  }
}

function parseChange(message: string): RegistryChange | null {
  try {
    const value = JSON.parse(message) as Partial<RegistryChange>;
    return typeof value.projectId === 'string' && typeof value.tool === 'string' ? { projectId: value.projectId, tool: value.tool } : null;
  } catch {
    return null;
  }
}
