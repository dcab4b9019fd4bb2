/**
 * Cooperative time-slicing shared by every batch a worker process categorizes at once. Each diagnosis may spend up
 * to its validation budget on a user's schema; batches call `yieldIfDue()` between events, and together they run at
 * most `sliceMs` (plus the event in progress) before the event loop gets a turn to answer requests and health checks.
 * A slice per batch would not do: with four batches in flight, four slices ran back to back on every turn.
 */
export class SharedTimeSlice {
  private sliceStartedAt = performance.now();
  private nextTurn: Promise<void> | null = null;

  constructor(private readonly sliceMs: number) {}

  async yieldIfDue(): Promise<void> {
    while (performance.now() - this.sliceStartedAt >= this.sliceMs) {
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
