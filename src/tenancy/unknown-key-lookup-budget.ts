const MINUTE_MS = 60_000;

/**
 * How many keys this process may look up in the database although its index of active keys does not hold them: a
 * token bucket of `perMinute` tokens, refilled continuously. Almost every such key is wrong; the budget exists for a
 * key created elsewhere whose announcement has not reached this process yet. 0 means no cap.
 */
export class UnknownKeyLookupBudget {
  private tokens: number;
  private refilledAtMs: number;

  constructor(
    private readonly perMinute: number,
    nowMs = Date.now(),
  ) {
    this.tokens = perMinute;
    this.refilledAtMs = nowMs;
  }

  /** Takes one lookup from the budget; false when it is spent. */
  tryTake(nowMs = Date.now()): boolean {
    if (this.perMinute === 0) return true;
    const elapsedMs = Math.max(0, nowMs - this.refilledAtMs);
    this.tokens = Math.min(this.perMinute, this.tokens + (elapsedMs * this.perMinute) / MINUTE_MS);
    this.refilledAtMs = nowMs;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
