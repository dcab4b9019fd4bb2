import { Injectable } from '@nestjs/common';

/** How long the process's CPU-heavy work (diagnoses in the worker, validate requests) runs before requests get a turn. */
export const EVENT_LOOP_SLICE_MS = 10;

/**
 * Cooperative time-slicing shared by everything in one process that may spend up to its validation budget on a
 * user's schema: the worker's batches between events and the validate route before each check. Callers await
 * `yieldIfDue()`; together they run at most `sliceMs` (plus the piece of work in progress) before the event loop polls
 * for I/O, so /healthz and other requests wait for one validation at most, not for every one queued ahead of them.
 * One slice per process, not per caller: with four batches and four validate requests in flight, eight slices ran back
 * to back on every turn.
 */
@Injectable()
export class SharedTimeSlice {
  private sliceStartedAt = performance.now();
  private nextTurn: Promise<void> | null = null;

  constructor(private readonly sliceMs: number = EVENT_LOOP_SLICE_MS) {}

  /** True when the slice is used up: a loop over many small pieces of work checks this before awaiting yieldIfDue. */
  isDue(): boolean {
    return performance.now() - this.sliceStartedAt >= this.sliceMs;
  }

  async yieldIfDue(): Promise<void> {
    while (this.isDue()) {
      // setImmediate runs after the event loop has polled for I/O: pending requests go first
      this.nextTurn ??= new Promise<void>((resolve) =>
        setImmediate(() => {
          this.nextTurn = null;
          this.sliceStartedAt = performance.now();
          resolve();
        }),
      );
      await this.nextTurn;
    }
  }
}
