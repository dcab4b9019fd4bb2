import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

const WINDOW_MS = 60_000;
/** Addresses remembered at once; past it the table starts over (a flood of addresses costs memory, not correctness). */
const MAX_TRACKED_ADDRESSES = 50_000;

/**
 * Counts requests with an unknown API key per client address, in memory: a wrong key is refused before it reaches
 * Redis or Postgres, so guessing keys, or a client stuck on a revoked one, costs each replica one map entry. Per
 * replica on purpose: it must keep working when Redis does not.
 */
@Injectable()
export class FailedAuthLimiter {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private readonly limit: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.limit = config.authFailuresPerMinute;
  }

  /** Seconds until `address` may try an unverified key again, or 0 when it may now. */
  retryAfterSeconds(address: string, nowMs = Date.now()): number {
    const window = this.windows.get(address);
    if (this.limit === 0 || !window || window.endsAt <= nowMs || window.count < this.limit) return 0;
    return Math.max(1, Math.ceil((window.endsAt - nowMs) / 1000));
  }

  recordFailure(address: string, nowMs = Date.now()): void {
    if (this.limit === 0) return;
    const window = this.windows.get(address);
    if (window && window.endsAt > nowMs) {
      window.count += 1;
      return;
    }
    if (this.windows.size >= MAX_TRACKED_ADDRESSES) this.windows.clear();
    this.windows.set(address, { count: 1, endsAt: nowMs + WINDOW_MS });
  }
}
