import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { ROOT_LOGGER } from '../../infra/logging/logging.module';
import { RedisBroadcast } from '../../infra/redis/redis-broadcast';

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

/**
 * Registry changes on `${QUEUE_PREFIX}:registry-changes`, for every replica. Local listeners hear a change at once,
 * before Redis echoes it.
 */
@Injectable()
export class RegistryChangesChannel implements OnModuleDestroy {
  private readonly listeners = new Set<RegistryChangeListener>();
  private readonly broadcast: RedisBroadcast;
  private isSubscribed = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(ROOT_LOGGER) rootLogger: Logger) {
    this.broadcast = new RedisBroadcast(
      config.redis,
      `${config.queuePrefix}:registry-changes`,
      rootLogger.child({ context: 'registry-changes' }),
    );
  }

  /** The change is committed either way; if Redis misses it, other instances reset when their subscription recovers. */
  async publish(change: RegistryChange): Promise<void> {
    this.notify(change);
    await this.broadcast.publish(JSON.stringify(change));
  }

  async listen(listener: RegistryChangeListener): Promise<void> {
    this.listeners.add(listener);
    if (this.isSubscribed) return;
    this.isSubscribed = true;
    await this.broadcast.subscribe({
      onMessage: (message) => {
        const change = parseChange(message);
        if (change) this.notify(change);
      },
      onMaybeMissed: () => {
        for (const each of this.listeners) each.onRegistryChangesMissed();
      },
    });
  }

  private notify(change: RegistryChange) {
    for (const listener of this.listeners) listener.onRegistryChange(change);
  }

  onModuleDestroy() {
    this.broadcast.close();
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
