/** What a group write says about one entry: its result, or why that entry alone failed. */
export type EntryOutcome<R> = { isWritten: true; value: R } | { isWritten: false; error: unknown };

export interface WriteGroupOptions<E = unknown> {
  /** A group closes as soon as it holds this many entries ... */
  maxEntries: number;
  /** ... or entries of this much weight in all (an entry heavier than this is a group of its own). */
  maxWeight?: number;
  /** An entry's weight (default 1): what one write's work grows with. */
  weightOf?: (entry: E) => number;
  /** ... or this long after its first entry came, whichever is first: the most a lone entry waits for company. */
  maxWaitMs: number;
  /** Groups written at once; a group that is due while all are busy keeps taking entries (up to maxEntries). */
  maxConcurrentWrites: number;
}

interface Waiting<E, R> {
  entry: E;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

interface Group<E, R> {
  waiting: Waiting<E, R>[];
  weight: number;
  isDue: boolean;
  timer?: NodeJS.Timeout;
}

/**
 * Collects entries submitted one by one (the worker's jobs, each in its own BullMQ slot) into groups written together
 * by one call, so one transaction carries many queued batches. `write` answers per entry; if it throws, every entry of
 * the group fails with that error.
 */
export class WriteGroups<E, R> {
  private open: Group<E, R> | null = null;
  private readonly closed: Group<E, R>[] = [];
  private writing = 0;

  constructor(
    private readonly options: WriteGroupOptions<E>,
    private readonly write: (entries: E[]) => Promise<EntryOutcome<R>[]>,
  ) {}

  submit(entry: E): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const group = this.open ?? this.openGroup();
      group.waiting.push({ entry, resolve, reject });
      group.weight += this.options.weightOf?.(entry) ?? 1;
      if (group.waiting.length >= this.options.maxEntries || group.weight >= (this.options.maxWeight ?? Infinity)) this.close(group);
      this.startWrites();
    });
  }

  /** Writes the entry at once in a group of its own, joining no other. */
  async writeAlone(entry: E): Promise<R> {
    const [outcome] = await this.write([entry]);
    if (outcome.isWritten) return outcome.value;
    throw outcome.error;
  }

  private openGroup(): Group<E, R> {
    const group: Group<E, R> = { waiting: [], weight: 0, isDue: false };
    group.timer = setTimeout(() => {
      group.isDue = true;
      this.startWrites();
    }, this.options.maxWaitMs);
    this.open = group;
    return group;
  }

  private close(group: Group<E, R>): void {
    clearTimeout(group.timer);
    if (this.open === group) this.open = null;
    this.closed.push(group);
  }

  private startWrites(): void {
    while (this.writing < this.options.maxConcurrentWrites) {
      if (this.closed.length === 0 && this.open?.isDue) this.close(this.open);
      const group = this.closed.shift();
      if (!group) return;
      this.writing += 1;
      void this.writeGroup(group).finally(() => {
        this.writing -= 1;
        this.startWrites();
      });
    }
  }

  private async writeGroup(group: Group<E, R>): Promise<void> {
    let outcomes: EntryOutcome<R>[];
    try {
      outcomes = await this.write(group.waiting.map((waiting) => waiting.entry));
    } catch (error) {
      for (const waiting of group.waiting) waiting.reject(error);
      return;
    }
    group.waiting.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome.isWritten) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
  }
}
