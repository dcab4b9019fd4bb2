import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config/config';
import { DeadLetter } from '../../src/infra/queue/dead-letters/dead-letter.entry';
import { DeadLetterRepository } from '../../src/infra/queue/dead-letters/dead-letter.repository';
import { REDIS_URL } from '../support/test-env';

const PROJECT = randomUUID();
const T0 = new Date('2026-05-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

interface LetterOptions {
  events?: number;
  /** The events' ids (default: `<id>-e<n>`, one event). */
  eventIds?: string[];
  payloadBytes?: number;
  projectId?: string;
  /** The job the events came in (default: `job-<id>`). */
  jobId?: string;
}

function letter(id: string, options: LetterOptions = {}): DeadLetter {
  const eventIds = options.eventIds ?? Array.from({ length: options.events ?? 1 }, (_, i) => `${id}-e${i}`);
  const events = eventIds.map((eventId) => ({
    id: eventId,
    tool: 't',
    status: 'success' as const,
    occurredAt: T0.toISOString(),
    metadata: options.payloadBytes ? { pad: 'x'.repeat(options.payloadBytes) } : undefined,
  }));
  const projectId = options.projectId ?? PROJECT;
  return {
    projectId,
    batch: { projectId, receivedAt: T0.toISOString(), events },
    summary: {
      id,
      originalJobId: options.jobId ?? `job-${id}`,
      events: events.length,
      eventIds: events.map((e) => e.id),
      failedReason: 'boom',
      attemptsMade: 1,
      failedAt: T0.toISOString(),
    },
  };
}

/** The store against the real Redis, under a prefix of its own; the clock is passed in, so retention needs no waiting. */
function repositoryWith(env: Record<string, string>) {
  const config = loadConfig({ QUEUE_PREFIX: `tc-test-${randomBytes(4).toString('hex')}`, REDIS_URL, ...env });
  return { repository: new DeadLetterRepository(config), prefix: config.queuePrefix };
}

describe('DeadLetterRepository', () => {
  const opened: Array<ReturnType<typeof repositoryWith>> = [];
  const redis = new Redis(REDIS_URL);
  const open = (env: Record<string, string> = {}) => {
    const store = repositoryWith(env);
    opened.push(store);
    return store;
  };
  afterAll(async () => {
    for (const { repository, prefix } of opened) {
      repository.onModuleDestroy();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });

  const ids = async (repository: DeadLetterRepository, now: Date, projectId = PROJECT) =>
    (await repository.page(projectId, 200, null, now)).items.map((item) => item.id);

  it('lists per project, newest first, in pages whose cursor survives entries parked in the same millisecond', async () => {
    const { repository } = open();
    for (let i = 0; i < 7; i++) await repository.park(letter(`a${i}`), at(i < 4 ? 0 : 1));
    await repository.park(letter('other', { projectId: randomUUID() }), at(2));
    const first = await repository.page(PROJECT, 3, null, at(3));
    expect(first.items.map((item) => item.id)).toEqual(['a6', 'a5', 'a4', 'a3']);
    const second = await repository.page(PROJECT, 3, first.items[2].score, at(3));
    expect(second.items.map((item) => item.id)).toEqual(['a3', 'a2', 'a1', 'a0']);
    const third = await repository.page(PROJECT, 3, second.items[2].score, at(3));
    expect(third.items.map((item) => item.id)).toEqual(['a0']);
    expect(first.total).toBe(7);
  });

  it('parks an id once, even after it was replayed or dropped', async () => {
    const { repository } = open({ DEAD_LETTER_MAX_PER_PROJECT: '1' });
    expect(await repository.park(letter('x'), at(0))).toEqual({ outcome: 'parked' });
    expect(await repository.park(letter('x'), at(1))).toEqual({ outcome: 'parked-before' });
    const claim = await repository.claim(PROJECT, 'x', 'token');
    expect(claim.outcome).toBe('claimed');
    await repository.finishReplay(PROJECT, 'x', 'token', 'replay-1');
    expect(await repository.park(letter('x'), at(2))).toEqual({ outcome: 'parked-before' });
    await repository.park(letter('y'), at(3));
    await repository.park(letter('z'), at(4));
    expect(await repository.park(letter('y'), at(5))).toEqual({ outcome: 'parked-before' });
    expect(await ids(repository, at(5))).toEqual(['z']);
  });

  it("parks a job's event once under whichever id came first, and names the events it left out (issue 35)", async () => {
    const { repository } = open();
    // the job's run parked its refused event e1; BullMQ had failed the job meanwhile (its lock lapsed), whose entry holds e0..e2
    const refused = letter('job-1-refused-abc', { jobId: 'job-1', eventIds: ['e1'] });
    const failed = letter('job-1-failed', { jobId: 'job-1', eventIds: ['e0', 'e1', 'e2'] });
    expect(await repository.park(refused, at(0))).toEqual({ outcome: 'parked' });
    expect(await repository.park(failed, at(1))).toEqual({ outcome: 'events-parked', eventIds: new Set(['e1']) });
    expect(await ids(repository, at(2))).toEqual(['job-1-refused-abc']);
    expect(await repository.parkedEventIds(PROJECT, 'job-1')).toEqual(new Set(['e1']));
    // the same event in another job's batch (a re-sent request) is that job's to park
    const resent = letter('job-2-failed', { jobId: 'job-2', eventIds: ['e1'] });
    expect(await repository.park(resent, at(3))).toEqual({ outcome: 'parked' });
  });

  it('drops the oldest entries past the count cap and counts them', async () => {
    const { repository } = open({ DEAD_LETTER_MAX_PER_PROJECT: '3' });
    for (let i = 0; i < 5; i++) await repository.park(letter(`c${i}`), at(i));
    const page = await repository.page(PROJECT, 50, null, at(5));
    expect(page.items.map((item) => item.id)).toEqual(['c4', 'c3', 'c2']);
    expect(page).toMatchObject({ total: 3, dropped: 2, expired: 0 });
  });

  it('drops the oldest entries past the byte cap, keeping the newest even when it alone is larger', async () => {
    const { repository, prefix } = open({ DEAD_LETTER_MAX_MB_PER_PROJECT: '1' });
    for (let i = 0; i < 5; i++) await repository.park(letter(`b${i}`, { payloadBytes: 300_000 }), at(i));
    expect(await ids(repository, at(5))).toEqual(['b4', 'b3', 'b2']);
    await repository.park(letter('huge', { payloadBytes: 2_000_000 }), at(6));
    const page = await repository.page(PROJECT, 50, null, at(6));
    expect(page.items.map((item) => item.id)).toEqual(['huge']);
    expect(page.dropped).toBe(5);
    // the payloads of dropped entries are gone from Redis, not only from the list
    const payloadKeys = await redis.keys(`${prefix}:dead-letters:{${PROJECT}}:payload:*`);
    expect(payloadKeys).toEqual([`${prefix}:dead-letters:{${PROJECT}}:payload:huge`]);
  });

  it('removes entries past retention from the list and every key of the project expires with them', async () => {
    const { repository, prefix } = open({ DEAD_LETTER_RETENTION_DAYS: '1' });
    await repository.park(letter('old'), at(0));
    await repository.park(letter('new'), at(86_000));
    expect(await ids(repository, at(86_399))).toEqual(['new', 'old']);
    const page = await repository.page(PROJECT, 50, null, at(86_401));
    expect(page.items.map((item) => item.id)).toEqual(['new']);
    expect(page.expired).toBe(1);
    const keys = await redis.keys(`${prefix}:dead-letters:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttlMs = await redis.pttl(key);
      expect(ttlMs).toBeGreaterThan(0);
      expect(ttlMs).toBeLessThanOrEqual(2 * 86_400_000);
    }
  });

  it('hands an entry to one replay at a time: in progress, then replayed, and missing for other projects', async () => {
    const { repository } = open();
    await repository.park(letter('r'), at(0));
    expect(await repository.claim(randomUUID(), 'r', 't0')).toEqual({ outcome: 'missing' });
    const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => repository.claim(PROJECT, 'r', `t${i}`)));
    const winners = claims.filter((claim) => claim.outcome === 'claimed');
    expect(winners).toHaveLength(1);
    expect(claims.filter((claim) => claim.outcome === 'in-progress')).toHaveLength(29);
    const winner = `t${claims.indexOf(winners[0])}`;
    await repository.finishReplay(PROJECT, 'r', 'not-the-winner', 'replay-x');
    expect((await repository.claim(PROJECT, 'r', 'late')).outcome).toBe('in-progress');
    await repository.finishReplay(PROJECT, 'r', winner, 'replay-1');
    expect(await repository.claim(PROJECT, 'r', 'later')).toEqual({ outcome: 'replayed', replayedAs: 'replay-1' });
    expect(await ids(repository, at(1))).toEqual([]);
  });

  it('gives a claim back when its replay could not be queued', async () => {
    const { repository } = open();
    await repository.park(letter('g'), at(0));
    expect((await repository.claim(PROJECT, 'g', 'first')).outcome).toBe('claimed');
    await repository.releaseClaim(PROJECT, 'g', 'first');
    const again = await repository.claim(PROJECT, 'g', 'second');
    expect(again.outcome).toBe('claimed');
    expect(again.outcome === 'claimed' && again.batch.events.map((e) => e.id)).toEqual(['g-e0']);
  });
});
