import { EntryOutcome, WriteGroups } from './write-groups';

/** A write that records each group and answers every entry with its value doubled, or refuses entries below 0. */
function recordingWrite() {
  const groups: number[][] = [];
  const pending: Array<() => void> = [];
  let isHeld = false;
  const write = async (entries: number[]): Promise<Array<EntryOutcome<number>>> => {
    groups.push(entries);
    if (isHeld) await new Promise<void>((resolve) => pending.push(resolve));
    return entries.map((n) => (n < 0 ? { isWritten: false, error: new Error(`refused ${n}`) } : { isWritten: true, value: n * 2 }));
  };
  return {
    groups,
    write,
    hold: () => (isHeld = true),
    release: () => {
      isHeld = false;
      pending.splice(0).forEach((resolve) => resolve());
    },
  };
}

describe('WriteGroups', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes a group as soon as it holds maxEntries, without waiting for the deadline', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups({ maxEntries: 3, maxWaitMs: 1000, maxConcurrentWrites: 1 }, recorder.write);
    const results = Promise.all([1, 2, 3].map((n) => groups.submit(n)));
    await expect(results).resolves.toEqual([2, 4, 6]);
    expect(recorder.groups).toEqual([[1, 2, 3]]);
  });

  it('closes a group at maxWeight as at maxEntries, whichever comes first', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups(
      { maxEntries: 20, maxWeight: 10, weightOf: (n: number) => n, maxWaitMs: 1000, maxConcurrentWrites: 1 },
      recorder.write,
    );
    const results = Promise.all([4, 5, 1, 12, 3].map((n) => groups.submit(n)));
    await jest.advanceTimersByTimeAsync(0);
    // 4 + 5 + 1 reach 10; 12 alone is over it; 3 waits for company until the deadline
    expect(recorder.groups).toEqual([[4, 5, 1], [12]]);
    await jest.advanceTimersByTimeAsync(1000);
    await expect(results).resolves.toEqual([8, 10, 2, 24, 6]);
    expect(recorder.groups).toEqual([[4, 5, 1], [12], [3]]);
  });

  it('writes a lone entry once maxWaitMs has passed since it came, not before', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups({ maxEntries: 20, maxWaitMs: 10, maxConcurrentWrites: 1 }, recorder.write);
    const result = groups.submit(7);
    await jest.advanceTimersByTimeAsync(9);
    expect(recorder.groups).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(recorder.groups).toEqual([[7]]);
    await expect(result).resolves.toBe(14);
  });

  it('writes an entry submitted alone in a group of its own at once, beside an open group it does not join', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups({ maxEntries: 3, maxWaitMs: 10, maxConcurrentWrites: 1 }, recorder.write);
    const grouped = groups.submit(1);
    await expect(groups.writeAlone(5)).resolves.toBe(10);
    await expect(groups.writeAlone(-5)).rejects.toThrow('refused -5');
    expect(recorder.groups).toEqual([[5], [-5]]);
    await jest.advanceTimersByTimeAsync(10);
    await expect(grouped).resolves.toBe(2);
    expect(recorder.groups).toEqual([[5], [-5], [1]]);
  });

  it('answers each entry with its own outcome: a refused entry fails alone', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups({ maxEntries: 3, maxWaitMs: 10, maxConcurrentWrites: 1 }, recorder.write);
    const results = await Promise.allSettled([1, -1, 3].map((n) => groups.submit(n)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('refused -1') },
      { status: 'fulfilled', value: 6 },
    ]);
  });

  it('fails every entry of a group whose write throws, and writes the next group', async () => {
    let calls = 0;
    const groups = new WriteGroups({ maxEntries: 2, maxWaitMs: 10, maxConcurrentWrites: 1 }, async (entries: number[]) => {
      calls += 1;
      if (calls === 1) throw new Error('database unreachable');
      return entries.map((n) => ({ isWritten: true as const, value: n }));
    });
    const first = await Promise.allSettled([groups.submit(1), groups.submit(2)]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(Promise.all([groups.submit(3), groups.submit(4)])).resolves.toEqual([3, 4]);
  });

  it('keeps a due group open while every write slot is busy, so it grows instead of waiting empty-handed', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups({ maxEntries: 3, maxWaitMs: 10, maxConcurrentWrites: 1 }, recorder.write);
    recorder.hold();
    const busy = groups.submit(1);
    await jest.advanceTimersByTimeAsync(10);
    expect(recorder.groups).toEqual([[1]]);
    const next = [groups.submit(2)];
    await jest.advanceTimersByTimeAsync(50);
    next.push(groups.submit(3));
    expect(recorder.groups).toEqual([[1]]);
    recorder.release();
    await expect(busy).resolves.toBe(2);
    await expect(Promise.all(next)).resolves.toEqual([4, 6]);
    expect(recorder.groups).toEqual([[1], [2, 3]]);
  });

  it('writes up to maxConcurrentWrites groups at once and queues full groups behind them', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups({ maxEntries: 2, maxWaitMs: 10, maxConcurrentWrites: 2 }, recorder.write);
    recorder.hold();
    const results = Promise.all([1, 2, 3, 4, 5, 6].map((n) => groups.submit(n)));
    await jest.advanceTimersByTimeAsync(0);
    expect(recorder.groups).toEqual([
      [1, 2],
      [3, 4],
    ]);
    recorder.release();
    await expect(results).resolves.toEqual([2, 4, 6, 8, 10, 12]);
    expect(recorder.groups).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
  });

  it("takes each owner's oldest entry in turn, so a lone entry is in the next group however many another has waiting", async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups(
      { maxEntries: 3, maxWaitMs: 10, maxConcurrentWrites: 1, ownerOf: (n: number) => (n >= 100 ? 'quiet' : n >= 10 ? 'second' : 'flood') },
      recorder.write,
    );
    recorder.hold();
    const busy = [1, 2, 3].map((n) => groups.submit(n));
    await jest.advanceTimersByTimeAsync(0);
    const waiting = [4, 5, 6, 7, 8, 10, 11, 100].map((n) => groups.submit(n));
    recorder.release();
    await jest.advanceTimersByTimeAsync(10);
    await expect(Promise.all([...busy, ...waiting])).resolves.toEqual([1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 100].map((n) => n * 2));
    // the quiet owner's entry came last, behind five of the flood's, and is written in the first group after the busy one
    expect(recorder.groups).toEqual([
      [1, 2, 3],
      [4, 10, 100],
      [5, 11, 6],
      [7, 8],
    ]);
  });

  it('keeps a write slot from an owner at maxWritesPerOwner, so another owner is written while its groups are in flight', async () => {
    const recorder = recordingWrite();
    const groups = new WriteGroups(
      {
        maxEntries: 2,
        maxWaitMs: 10,
        maxConcurrentWrites: 2,
        maxWritesPerOwner: 1,
        ownerOf: (n: number) => (n >= 100 ? 'quiet' : 'flood'),
      },
      recorder.write,
    );
    recorder.hold();
    const flood = [1, 2, 3, 4, 5, 6].map((n) => groups.submit(n));
    await jest.advanceTimersByTimeAsync(50);
    // the flood has one write in flight and waits for it; the second slot stays free
    expect(recorder.groups).toEqual([[1, 2]]);
    const quiet = groups.submit(100);
    await jest.advanceTimersByTimeAsync(10);
    expect(recorder.groups).toEqual([[1, 2], [100]]);
    recorder.release();
    await jest.advanceTimersByTimeAsync(10);
    await expect(Promise.all([...flood, quiet])).resolves.toEqual([2, 4, 6, 8, 10, 12, 200]);
    expect(recorder.groups).toEqual([[1, 2], [100], [3, 4], [5, 6]]);
  });
});
