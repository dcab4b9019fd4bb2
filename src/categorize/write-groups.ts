/** What a group write says about one entry: its result, or why that entry alone failed. */
export type EntryOutcome<R> = { isWritten: true; value: R } | { isWritten: false; error: unknown };

export interface WriteGroupOptions<E = unknown> {
  /** A group closes as soon as it holds this many entries ... */
  maxEntries: number;
  /** ... or entries of this much weight in all (an entry heavier than this is a group of its own). */
  maxWeight?: number;
  /** An entry's weight (default 1): what one write's work grows with. */
  weightOf?: (entry: E) => number;
  /** ... or this long after its oldest entry came, whichever is first: the most a lone entry waits for company. */
  maxWaitMs: number;
  /** Groups written at once; while all are busy, waiting entries keep piling up for the next group (up to maxEntries). */
  maxConcurrentWrites: number;
  /**
   * Whose entry it is (default: everyone's the same). A group takes the oldest waiting entry of each owner in turn, so
   * an owner with one entry waiting is in the next group written, however many entries another owner has waiting.
   */
  ownerOf?: (entry: E) => string;
  /**
   * Writes in flight that may hold entries of one owner (default: all). Fewer than maxConcurrentWrites keeps a slot
   * for the other owners: their entries are written as soon as they are due, not after one of the flood's groups.
   */
  maxWritesPerOwner?: number;
}

interface Waiting<E, R> {
  owner: string;
  entry: E;
  weight: number;
  sinceMs: number;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects entries submitted one by one (the worker's jobs, each in its own BullMQ slot) into groups written together
 * by one call, so one transaction carries many queued batches. A group is made when a write slot is free, not before,
 * so the entries that came while every slot was busy are shared out fairly between their owners. `write` answers per
 * entry; if it throws, every entry of the group fails with that error.
 */
export class WriteGroups<E, R> {
  /** Waiting entries per owner, oldest first; the map's order is the turn: the owner served least recently first. */
  private readonly waiting = new Map<string, Waiting<E, R>[]>();
  /** Writes in flight that hold entries of the owner. */
  private readonly writingByOwner = new Map<string, number>();
  private writing = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly options: WriteGroupOptions<E>,
    private readonly write: (entries: E[]) => Promise<EntryOutcome<R>[]>,
  ) {}

  submit(entry: E): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const owner = this.options.ownerOf?.(entry) ?? '';
      const weight = this.options.weightOf?.(entry) ?? 1;
      const queue = this.waiting.get(owner) ?? [];
      queue.push({ owner, entry, weight, sinceMs: Date.now(), resolve, reject });
      this.waiting.set(owner, queue);
      this.startWrites();
    });
  }

  /** Writes the entry at once in a group of its own, joining no other. */
  async writeAlone(entry: E): Promise<R> {
    const [outcome] = await this.write([entry]);
    if (outcome.isWritten) return outcome.value;
    throw outcome.error;
  }

  private startWrites(): void {
    while (this.writing < this.options.maxConcurrentWrites && this.isGroupDue()) {
      const group = this.takeGroup();
      const owners = new Set(group.map((waiting) => waiting.owner));
      this.writing += 1;
      for (const owner of owners) this.writingByOwner.set(owner, (this.writingByOwner.get(owner) ?? 0) + 1);
      void this.writeGroup(group).finally(() => {
        this.writing -= 1;
        for (const owner of owners) {
          const writes = this.writingByOwner.get(owner)! - 1;
          if (writes > 0) this.writingByOwner.set(owner, writes);
          else this.writingByOwner.delete(owner);
        }
        this.startWrites();
      });
    }
    this.wakeWhenOldestIsDue();
  }

  /** Owners that may join a new write now, each with its waiting entries (oldest first), in turn order. */
  private *eligibleQueues(): Generator<[string, Waiting<E, R>[]]> {
    const maxWrites = this.options.maxWritesPerOwner ?? Infinity;
    for (const [owner, queue] of this.waiting) if ((this.writingByOwner.get(owner) ?? 0) < maxWrites) yield [owner, queue];
  }

  private isGroupDue(): boolean {
    let count = 0;
    let weight = 0;
    let oldestSinceMs = Infinity;
    for (const [, queue] of this.eligibleQueues()) {
      count += queue.length;
      for (const waiting of queue) weight += waiting.weight;
      oldestSinceMs = Math.min(oldestSinceMs, queue[0].sinceMs);
    }
    if (count === 0) return false;
    if (count >= this.options.maxEntries || weight >= (this.options.maxWeight ?? Infinity)) return true;
    return Date.now() - oldestSinceMs >= this.options.maxWaitMs;
  }

  /** Only while a slot is free: a write that ends starts the next group itself. */
  private wakeWhenOldestIsDue(): void {
    if (this.timer || this.writing >= this.options.maxConcurrentWrites) return;
    let oldestSinceMs = Infinity;
    // each owner's queue is oldest first, so the oldest entry is the oldest of their heads
    for (const [, queue] of this.eligibleQueues()) oldestSinceMs = Math.min(oldestSinceMs, queue[0].sinceMs);
    if (oldestSinceMs === Infinity) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.startWrites();
      },
      Math.max(0, oldestSinceMs + this.options.maxWaitMs - Date.now()),
    );
  }

  /** One entry per eligible owner in turn, oldest first, until the group is full; an owner served goes to the end. */
  private takeGroup(): Waiting<E, R>[] {
    const group: Waiting<E, R>[] = [];
    let weight = 0;
    const maxWeight = this.options.maxWeight ?? Infinity;
    while (group.length < this.options.maxEntries && weight < maxWeight) {
      const next = this.eligibleQueues().next();
      if (next.done) break;
      const [owner, queue] = next.value;
      const taken = queue.shift()!;
      group.push(taken);
      weight += taken.weight;
      this.waiting.delete(owner);
      if (queue.length > 0) this.waiting.set(owner, queue);
    }
    return group;
  }

  private async writeGroup(group: Waiting<E, R>[]): Promise<void> {
    let outcomes: EntryOutcome<R>[];
    try {
      outcomes = await this.write(group.map((waiting) => waiting.entry));
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
      return;
    }
    group.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome.isWritten) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
  }
}
