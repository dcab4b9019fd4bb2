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
}

interface Waiting<E, R> {
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
  private waitingCount = 0;
  private waitingWeight = 0;
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
      queue.push({ entry, weight, sinceMs: Date.now(), resolve, reject });
      this.waiting.set(owner, queue);
      this.waitingCount += 1;
      this.waitingWeight += weight;
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
      this.writing += 1;
      void this.writeGroup(group).finally(() => {
        this.writing -= 1;
        this.startWrites();
      });
    }
    this.wakeWhenOldestIsDue();
  }

  private isGroupDue(): boolean {
    if (this.waitingCount === 0) return false;
    if (this.waitingCount >= this.options.maxEntries || this.waitingWeight >= (this.options.maxWeight ?? Infinity)) return true;
    return Date.now() - this.oldestSinceMs() >= this.options.maxWaitMs;
  }

  /** Each owner's queue is oldest first, so the oldest entry is the oldest of their heads. */
  private oldestSinceMs(): number {
    let oldest = Infinity;
    for (const queue of this.waiting.values()) oldest = Math.min(oldest, queue[0].sinceMs);
    return oldest;
  }

  private wakeWhenOldestIsDue(): void {
    if (this.timer || this.waitingCount === 0) return;
    const dueInMs = Math.max(0, this.oldestSinceMs() + this.options.maxWaitMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.startWrites();
    }, dueInMs);
  }

  /** One entry per owner in turn, oldest first, until the group is full; an owner served goes to the end of the turn. */
  private takeGroup(): Waiting<E, R>[] {
    const group: Waiting<E, R>[] = [];
    let weight = 0;
    const maxWeight = this.options.maxWeight ?? Infinity;
    while (group.length < this.options.maxEntries && weight < maxWeight) {
      const next = this.waiting.entries().next();
      if (next.done) break;
      const [owner, queue] = next.value;
      const taken = queue.shift()!;
      group.push(taken);
      weight += taken.weight;
      this.waitingCount -= 1;
      this.waitingWeight -= taken.weight;
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
