import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { RedisBroadcast } from '../infra/redis/redis-broadcast';

/**
 * The Redis channel on which key changes are announced; the CLI publishes on it too. Its name predates creations and is
 * kept, so replicas and CLIs of different versions still hear each other's revocations.
 */
export function keyChangesChannelName(queuePrefix: string): string {
  return `${queuePrefix}:api-key-revocations`;
}

const CREATED_PREFIX = 'created:';

/** What a replica hears: a key revoked or created, or that announcements may have been missed (forget, reload). */
export type ApiKeyChange = { kind: 'revoked'; keyHash: string } | { kind: 'created'; keyHash: string } | { kind: 'maybe-missed' };

/** The message announcing a change: a revocation is the bare hash (as before), a creation is prefixed. */
export function keyChangeMessage(change: { kind: 'revoked' | 'created'; keyHash: string }): string {
  return change.kind === 'created' ? `${CREATED_PREFIX}${change.keyHash}` : change.keyHash;
}

function parseKeyChange(message: string): ApiKeyChange {
  return message.startsWith(CREATED_PREFIX)
    ? { kind: 'created', keyHash: message.slice(CREATED_PREFIX.length) }
    : { kind: 'revoked', keyHash: message };
}

/**
 * Tells every replica at once that a key was revoked, so none keeps trusting it from its cache, or created, so every
 * replica's index of active keys holds it before a client can use it. When the subscription drops, announcements may
 * have been missed: listeners forget what they cached and reload.
 */
@Injectable()
export class ApiKeyChangesChannel implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly listeners = new Set<(change: ApiKeyChange) => void>();
  private readonly broadcast: RedisBroadcast;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(ROOT_LOGGER) rootLogger: Logger) {
    this.broadcast = new RedisBroadcast(
      config.redis,
      keyChangesChannelName(config.queuePrefix),
      rootLogger.child({ context: 'api-key-changes' }),
    );
  }

  onChange(listener: (change: ApiKeyChange) => void) {
    this.listeners.add(listener);
  }

  onApplicationBootstrap() {
    return this.broadcast.subscribe({
      onMessage: (message) => this.notify(parseKeyChange(message)),
      onMaybeMissed: () => this.notify({ kind: 'maybe-missed' }),
    });
  }

  /** If Redis misses it, other replicas learn it within the cache TTL (revocations) or their next index reload. */
  async publish(change: { kind: 'revoked' | 'created'; keyHash: string }): Promise<void> {
    this.notify(change);
    await this.broadcast.publish(keyChangeMessage(change));
  }

  private notify(change: ApiKeyChange) {
    for (const listener of this.listeners) listener(change);
  }

  onModuleDestroy() {
    this.broadcast.close();
  }
}
