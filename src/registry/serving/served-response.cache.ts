// The in-process cache of serialized GET answers (body + strong ETag), keyed by project, tool, served version(s) and
// format.
// Bounded (entries not read lately go first) and invalidated per tool; a project's list answers drop with any
// of its tools. Pure data structure: the owner wires it to the registry change channel.

export interface CachedResponse {
  body: string;
  etag: string;
}

export const LIST_KEY = '\u0000list';
/** The change published when a project's notes change: no tool has this name, and every list answer drops with it. */
export const NOTES_CHANGE = '\u0000notes';

/** What an entry weighs against a cache's `maxWeight` (bytes, say); none by default. */
export interface CacheWeight<T> {
  maxWeight: number;
  weigh: (value: T) => number;
}

export class ServedResponseCache<T = CachedResponse> {
  private readonly entries = new Map<string, { value: T; touchedAt: number; weight: number }>();
  private totalWeight = 0;
  /** Bumped on every invalidation: a load that began before one must not store what it read. */
  private generation = 0;
  /** Counts reads and writes; an entry is moved to the recent end only when it was last moved this many ago. */
  private operations = 0;
  private readonly refreshAfter: number;

  constructor(
    private readonly maxEntries: number,
    private readonly weight: CacheWeight<T> = { maxWeight: Infinity, weigh: () => 0 },
  ) {
    this.refreshAfter = Math.floor(maxEntries / 2);
  }

  get size(): number {
    return this.entries.size;
  }

  get currentGeneration(): number {
    return this.generation;
  }

  /**
   * An entry read at least once every maxEntries/2 reads and writes is never evicted. A read moves its entry only
   * when it was last moved longer ago than that: a delete and set on every read, as strict LRU does, made the served
   * routes' hot reads rebuild the Map's table and fill V8's old space (issue 18).
   */
  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    this.operations++;
    if (entry !== undefined && this.operations - entry.touchedAt > this.refreshAfter) {
      this.entries.delete(key);
      entry.touchedAt = this.operations;
      this.entries.set(key, entry);
    }
    return entry?.value;
  }

  /** Stores unless an invalidation happened since `loadedAtGeneration` (the value may already be stale). */
  set(key: string, value: T, loadedAtGeneration: number): void {
    if (loadedAtGeneration !== this.generation) return;
    this.operations++;
    this.delete(key);
    const weight = this.weight.weigh(value);
    this.entries.set(key, { value, touchedAt: this.operations, weight });
    this.totalWeight += weight;
    while (this.entries.size > this.maxEntries || (this.totalWeight > this.weight.maxWeight && this.entries.size > 1)) {
      this.delete(this.entries.keys().next().value!);
    }
  }

  invalidateTool(projectId: string, tool: string): void {
    this.generation++;
    const toolPrefix = `${projectId}\u0000${tool}\u0000`;
    const listPrefix = `${projectId}\u0000${LIST_KEY}\u0000`;
    for (const key of [...this.entries.keys()]) {
      if (key.startsWith(toolPrefix) || key.startsWith(listPrefix)) this.delete(key);
    }
  }

  invalidateProject(projectId: string): void {
    this.generation++;
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${projectId}\u0000`)) this.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.totalWeight = 0;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
  }
}

/** `version`: a version number, 'latest', or for a list the served variant (which canaries' previous versions it pins). */
export function cacheKey(projectId: string, tool: string, version: number | string, format: string): string {
  return `${projectId}\u0000${tool}\u0000${version}\u0000${format}`;
}
