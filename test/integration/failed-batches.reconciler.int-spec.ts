import { Job, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { CategorizeRepository } from '../../src/categorize/categorize.repository';
import { FailedBatchesReconciler } from '../../src/categorize/failed-batches.reconciler';
import { ROOT_LOGGER } from '../../src/infra/logging/logging.module';
import { PrismaService } from '../../src/infra/prisma/prisma.service';
import { SqlPoolService } from '../../src/infra/prisma/sql-pool.service';
import { DeadLetterService } from '../../src/infra/queue/dead-letters/dead-letter.service';
import { JobName, QueueName } from '../../src/infra/queue/queue.names';
import { CategorizeBatchPayload, DeadLetterPayload } from '../../src/infra/queue/queue.payloads';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { anEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * The reconciler against the real Redis, in an app without a worker of its own (api role), so the test decides when
 * jobs fail and when a pass runs.
 */
describe('FailedBatchesReconciler', () => {
  let t: TestApp;
  let reconciler: FailedBatchesReconciler;
  let producer: QueueProducer;
  let deadLetters: DeadLetterService;
  beforeAll(async () => {
    // one attempt: the throwaway worker fails a job for good at once, instead of after two backoffs (1.5 s a job)
    t = await startTestApp({ ROLES: 'api', JOB_ATTEMPTS: '1' });
    producer = t.app.get(QueueProducer);
    deadLetters = t.app.get(DeadLetterService);
    reconciler = new FailedBatchesReconciler(
      producer,
      deadLetters,
      new CategorizeRepository(t.app.get(PrismaService), t.app.get(SqlPoolService)),
      t.app.get(ROOT_LOGGER),
    );
  });
  afterAll(() => t.close());

  const batch = (events = 3): CategorizeBatchPayload => ({
    projectId: t.projectId,
    receivedAt: new Date().toISOString(),
    events: Array.from({ length: events }, () => anEvent()) as unknown as CategorizeBatchPayload['events'],
  });

  /** Queues a batch and lets a throwaway worker fail it for good, as BullMQ does after the last attempt. */
  async function failedJob(payload: CategorizeBatchPayload): Promise<Job<CategorizeBatchPayload>> {
    // replays of earlier tests wait on the queue of this worker-less app; the throwaway worker must fail this job only
    await producer.events.drain();
    const jobId = randomUUID();
    await producer.enqueue(JobName.CategorizeBatch, payload, jobId);
    return failByThrowawayWorker(jobId);
  }

  async function failByThrowawayWorker<T>(jobId: string): Promise<Job<T>> {
    const connection = new Redis(t.config.redisUrl, { maxRetriesPerRequest: null });
    const worker = new Worker(QueueName.Events, async () => Promise.reject(new Error('injected failure')), {
      connection,
      prefix: t.config.queuePrefix,
    });
    try {
      return await eventually(async () => {
        const job = await producer.events.getJob(jobId);
        return (await job?.isFailed()) ? (job as Job<T>) : undefined;
      }, 30_000);
    } finally {
      await worker.close();
      connection.disconnect();
    }
  }

  const entries = async () => (await deadLetters.list(t.projectId, 200, null)).items;

  it('parks a failed job with its batch and reason, then removes it from the failed set', async () => {
    const payload = batch(3);
    const job = await failedJob(payload);
    const before = (await entries()).length;
    expect(await reconciler.reconcile()).toMatchObject({ parked: 1, skipped: 0 });
    expect(await producer.events.getJob(job.id!)).toBeUndefined();
    const parked = (await entries()).find((entry) => entry.originalJobId === job.id);
    expect(parked).toMatchObject({ events: 3, eventIds: payload.events.map((e) => e.id), failedReason: 'injected failure' });
    expect(await entries()).toHaveLength(before + 1);
  });

  it('parks a job once when a pass died between parking it and removing it from the failed set', async () => {
    const job = await failedJob(batch(2));
    // the pass that crashed got this far: parked, not removed
    await deadLetters.parkFailedJob(job);
    const before = (await entries()).length;
    await reconciler.reconcile();
    await reconciler.reconcile();
    expect(await entries()).toHaveLength(before);
    expect((await entries()).filter((entry) => entry.originalJobId === job.id)).toHaveLength(1);
    expect(await producer.events.getFailedCount()).toBe(0);
  });

  it('parks only the events that are not stored, and no dead letter when a worker died after its commit', async () => {
    const partly = batch(3);
    const whole = batch(2);
    const storedIds = [partly.events[0].id, ...whole.events.map((e) => e.id)];
    for (const id of storedIds) {
      // as the worker stores one: the event, and its id's claim in event_ids (the idempotency key)
      await t.db.sql.query(
        `INSERT INTO events (project_id, id, tool, status, occurred_at, received_at) VALUES ($1, $2, 't', 'success', now(), now())`,
        [t.projectId, id],
      );
      await t.db.sql.query(`INSERT INTO event_ids (project_id, id, received_at) VALUES ($1, $2, now())`, [t.projectId, id]);
    }
    const partlyJob = await failedJob(partly);
    const wholeJob = await failedJob(whole);
    expect(await reconciler.reconcile()).toMatchObject({ parked: 1, alreadyStored: 1 });
    const parked = (await entries()).find((entry) => entry.originalJobId === partlyJob.id);
    expect(parked).toMatchObject({ events: 2, eventIds: partly.events.slice(1).map((e) => e.id) });
    expect((await entries()).filter((entry) => entry.originalJobId === wholeJob.id)).toEqual([]);
    expect(await producer.events.getFailedCount()).toBe(0);
  });

  it('does not park again the events a job already parked as refused (its lock lapsed while it ran)', async () => {
    const payload = batch(4);
    const job = await failedJob(payload);
    // the run BullMQ then counted as stalled: the database refused events 1 and 2, they were parked, the rest stored
    const refused = payload.events.slice(1, 3);
    await deadLetters.parkRefusedEvents(
      job.id!,
      payload,
      refused.map((event) => ({ event, reason: 'refused by the database' })),
    );
    expect(await reconciler.reconcile()).toMatchObject({ parked: 1 });
    const ofJob = (await entries()).filter((entry) => entry.originalJobId === job.id);
    const parkedIds = ofJob.flatMap((entry) => entry.eventIds);
    // every event in exactly one entry: the refused ones once, the others in the failed job's entry
    expect([...parkedIds].sort()).toEqual(payload.events.map((e) => e.id).sort());
    expect(ofJob).toHaveLength(2);
    expect(ofJob.find((entry) => entry.id.endsWith('-failed'))).toMatchObject({
      events: 2,
      eventIds: [payload.events[0].id, payload.events[3].id],
    });

    // a job all of whose events were parked as refused leaves no second entry at all
    const allRefused = batch(2);
    const allJob = await failedJob(allRefused);
    await deadLetters.parkRefusedEvents(
      allJob.id!,
      allRefused,
      allRefused.events.map((event) => ({ event, reason: 'refused by the database' })),
    );
    await reconciler.reconcile();
    expect((await entries()).filter((entry) => entry.originalJobId === allJob.id)).toHaveLength(1);
    expect(await producer.events.getFailedCount()).toBe(0);
  });

  it('parks each event once when the reconciliation comes first and the run that refused it parks after (issue 35)', async () => {
    // under slow processing a run outlives its lock: BullMQ fails the job, the reconciler parks it while the run goes
    // on, and then the run finds two of the events refused (the dead-letters e2e test once counted 29 entries for 5)
    const payload = batch(3);
    const job = await failedJob(payload);
    expect(await reconciler.reconcile()).toMatchObject({ parked: 1 });
    const refused = payload.events.slice(0, 2).map((event) => ({ event, reason: 'refused by the database' }));
    await deadLetters.parkRefusedEvents(job.id!, payload, refused);
    const ofJob = (await entries()).filter((entry) => entry.originalJobId === job.id);
    expect(ofJob.map((entry) => entry.id)).toEqual([`${job.id}-failed`]);
    expect(ofJob[0].eventIds).toEqual(payload.events.map((e) => e.id));

    // and a refused event the failed entry lacks is parked on its own, once
    const late = batch(2);
    const lateJob = await failedJob(late);
    await deadLetters.parkRefusedEvents(lateJob.id!, late, [{ event: late.events[0], reason: 'refused by the database' }]);
    await reconciler.reconcile();
    await deadLetters.parkRefusedEvents(lateJob.id!, late, [
      { event: late.events[0], reason: 'refused by the database' },
      { event: late.events[1], reason: 'refused by the database' },
    ]);
    const ofLateJob = (await entries()).filter((entry) => entry.originalJobId === lateJob.id);
    expect(ofLateJob.flatMap((entry) => entry.eventIds).sort()).toEqual(late.events.map((e) => e.id).sort());

    // and a failed job's park that read the job's parked events before its run parked the refused one leaves it out
    const raced = batch(3);
    const racedJob = await failedJob(raced);
    await deadLetters.parkRefusedEvents(racedJob.id!, raced, [{ event: raced.events[1], reason: 'refused by the database' }]);
    expect(await deadLetters.parkFailedJob(racedJob)).toBe(true);
    const failedEntry = (await entries()).find((entry) => entry.id === `${racedJob.id}-failed`);
    expect(failedEntry?.eventIds).toEqual([raced.events[0].id, raced.events[2].id]);
  });

  it('does not park a job again after its dead letter was replayed', async () => {
    const job = await failedJob(batch(1));
    await deadLetters.parkFailedJob(job);
    const id = (await entries()).find((entry) => entry.originalJobId === job.id)!.id;
    expect((await deadLetters.replay(t.projectId, id)).outcome).toBe('replayed');
    await reconciler.reconcile();
    expect((await entries()).filter((entry) => entry.originalJobId === job.id)).toEqual([]);
  });

  it('moves the entries an older version left in the BullMQ dead-letter queue into the store, under their ids', async () => {
    const payload = batch(2);
    const legacy: DeadLetterPayload = {
      queue: QueueName.Events,
      jobName: JobName.CategorizeBatch,
      originalJobId: 'old-job-1',
      projectId: t.projectId,
      data: payload,
      failedReason: 'value too long for type character varying(200)',
      attemptsMade: 8,
      failedAt: '2026-11-01T10:00:00.000Z',
    };
    await producer.deadLetters.add(JobName.CategorizeBatch, legacy, { jobId: 'old-job-1-refused' });
    expect(await reconciler.reconcile()).toMatchObject({ legacy: 1 });
    expect(await producer.deadLetters.getJob('old-job-1-refused')).toBeUndefined();
    const moved = (await entries()).find((entry) => entry.id === 'old-job-1-refused');
    expect(moved).toMatchObject({
      originalJobId: 'old-job-1',
      events: 2,
      attemptsMade: 8,
      failedAt: legacy.failedAt,
      failedReason: legacy.failedReason,
    });
    expect((await deadLetters.replay(t.projectId, 'old-job-1-refused')).outcome).toBe('replayed');
  });

  it('parks once a batch an older version both dead-lettered under its job id and kept as a failed job', async () => {
    const payload = batch(2);
    const job = await failedJob(payload);
    const legacy: DeadLetterPayload = {
      queue: QueueName.Events,
      jobName: JobName.CategorizeBatch,
      originalJobId: job.id!,
      projectId: t.projectId,
      data: payload,
      failedReason: 'injected failure',
      attemptsMade: 1,
      failedAt: new Date().toISOString(),
    };
    await producer.deadLetters.add(JobName.CategorizeBatch, legacy, { jobId: job.id });
    expect(await reconciler.reconcile()).toMatchObject({ legacy: 1, parkedBefore: 1, parked: 0 });
    expect((await entries()).filter((entry) => entry.originalJobId === job.id).map((entry) => entry.id)).toEqual([job.id]);
    expect(await producer.events.getFailedCount()).toBe(0);
  });

  it('leaves a failed job that holds no batch of a project where it is, and goes on with the others', async () => {
    await producer.events.drain();
    const oddId = `odd-${randomUUID()}`;
    await producer.events.add('not-a-batch', { nothing: true }, { jobId: oddId });
    const odd = await failByThrowawayWorker(oddId);
    const good = await failedJob(batch(1));
    expect(await reconciler.reconcile()).toMatchObject({ parked: 1, skipped: 1 });
    expect(await producer.events.getJob(odd.id!)).toBeDefined();
    expect(await producer.events.getJob(good.id!)).toBeUndefined();
  });
});
