import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { createProducerConnection, RedisConnection } from '../infra/redis/redis-connections';

export interface RateLimitDecision {
  isAllowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

/** A healthy Redis answers in about a millisecond; waiting longer only delays a request the limiter would let through. */
const COMMAND_TIMEOUT_MS = 200;
/** After a timeout or an error the limiter stays open this long, so a frozen Redis delays one request, not each. */
const PAUSE_AFTER_FAILURE_MS = 5000;

/**
 * A fixed window per API key, counted in Redis so every replica shares it. When Redis cannot answer, requests are let
 * through at once: the limiter protects the service, it must not become the reason it fails (a Redis that stops
 * answering then costs one request 200 ms, and every other route that needs Redis answers 503 on its own).
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  private connection?: RedisConnection;
  private pausedUntilMs = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onModuleInit() {
    if (this.config.rateLimitRequests > 0) this.connection = this.open();
  }

  async consume(apiKeyId: string): Promise<RateLimitDecision | null> {
    const limit = this.config.rateLimitRequests;
    if (limit === 0) return null;
    if (this.connection?.status !== 'ready' || Date.now() < this.pausedUntilMs) return null;
    const windowMs = this.config.rateLimitWindowSeconds * 1000;
    const key = `${this.config.queuePrefix}:ratelimit:${apiKeyId}:${Math.floor(Date.now() / windowMs)}`;
    try {
      const [[, count]] = (await this.connection.multi().incr(key).pexpire(key, windowMs).exec()) as [[null, number], [null, number]];
      const retryAfterSeconds = Math.max(1, Math.ceil((windowMs - (Date.now() % windowMs)) / 1000));
      return { isAllowed: count <= limit, limit, remaining: Math.max(0, limit - count), retryAfterSeconds };
    } catch {
      this.pausedUntilMs = Date.now() + PAUSE_AFTER_FAILURE_MS;
      return null;
    }
  }

  private open(): RedisConnection {
    const connection = createProducerConnection(this.config.redis, { commandTimeout: COMMAND_TIMEOUT_MS });
    connection.on('error', () => undefined);
    return connection;
  }

  onModuleDestroy() {
    this.connection?.disconnect();
  }
}
