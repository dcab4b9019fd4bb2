import { Logger } from 'pino';
import { RedisTarget } from '../../config/redis-settings';
import { createProducerConnection, createWorkerConnection, isCluster, RedisConnection } from './redis-connections';

const SUBSCRIBE_TIMEOUT_MS = 3000;
const PUBLISH_TIMEOUT_MS = 1000;

export interface BroadcastHandlers {
  onMessage(message: string): void;
  /**
   * The subscription dropped or came back: whatever was published meanwhile is lost, so anything kept in step with the
   * channel must be forgotten.
   */
  onMaybeMissed(): void;
}

/**
 * One Redis pub/sub channel shared by every replica. Connections open on first use, so a process that never publishes
 * or subscribes holds none. On a Cluster a PUBLISH reaches every node, so the subscriber may listen on any one of them.
 */
export class RedisBroadcast {
  private publisher: RedisConnection | null = null;
  private subscriber: RedisConnection | null = null;

  constructor(
    private readonly redis: RedisTarget,
    readonly channel: string,
    private readonly logger: Logger,
  ) {}

  /** False when Redis could not take the message (the caller decides what that costs). */
  async publish(message: string): Promise<boolean> {
    try {
      // the first publish waits for the connection to open; one retry and a short timeout still fail fast when Redis
      // is gone or frozen, and the caller's change is committed either way
      this.publisher ??= createProducerConnection(this.redis, { enableOfflineQueue: true, commandTimeout: PUBLISH_TIMEOUT_MS }).on(
        'error',
        () => undefined,
      );
      await this.publisher.publish(this.channel, message);
      return true;
    } catch (error) {
      this.logger.warn({ err: (error as Error).message, channel: this.channel }, 'could not publish');
      return false;
    }
  }

  /** Resolves once Redis confirms the subscription, or after a timeout (logged; a later connect then reports missed). */
  async subscribe(handlers: BroadcastHandlers): Promise<void> {
    if (this.subscriber) throw new Error(`already subscribed to ${this.channel}`);
    const subscriber = createWorkerConnection(this.redis);
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    let hasBeenReady = false;
    subscriber.on('ready', () => {
      // ioredis resubscribes after a reconnect, but not what was published in between
      if (hasBeenReady) handlers.onMaybeMissed();
      hasBeenReady = true;
    });
    subscriber.on('close', () => {
      if (hasBeenReady) handlers.onMaybeMissed();
    });
    // a Cluster moves its subscription to another node on its own when a node goes, without a 'close'
    if (isCluster(subscriber)) {
      subscriber.on('-node', () => {
        if (hasBeenReady) handlers.onMaybeMissed();
      });
    }
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) handlers.onMessage(message);
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        subscriber.subscribe(this.channel),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), SUBSCRIBE_TIMEOUT_MS))),
      ]);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message, channel: this.channel }, 'subscription not confirmed yet');
    } finally {
      clearTimeout(timer);
    }
  }

  close() {
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
  }
}
