/**
 * A bounded FIFO: pushing onto a full buffer evicts the oldest item and counts it. A ring over a fixed array keeps
 * push and shift O(1), so a full buffer under a burst of tool calls costs no more than an empty one.
 */
export class EventBuffer<T> {
  private readonly items: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.items = new Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  /** Returns true when the push evicted the oldest item. */
  push(item: T): boolean {
    const tail = (this.head + this.count) % this.capacity;
    this.items[tail] = item;
    if (this.count < this.capacity) {
      this.count++;
      return false;
    }
    this.head = (this.head + 1) % this.capacity;
    return true;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    return item;
  }

  /** Puts an item back at the front (a batch that must be sent in parts). Returns false, keeping nothing, when full. */
  pushFront(item: T): boolean {
    if (this.count === this.capacity) return false;
    this.head = (this.head - 1 + this.capacity) % this.capacity;
    this.items[this.head] = item;
    this.count++;
    return true;
  }
}
