import { formatDay, previousDay } from '../../src/analytics/analytics-day';
import { JobName } from '../../src/infra/queue/queue.names';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * The recurring jobs as BullMQ job schedulers, in one process of every role: what the scheduler role upserts, what a
 * second replica changes, and that an occurrence is run by the handler the worker found for it.
 */
describe('recurring jobs', () => {
  let t: TestApp;
  let producer: QueueProducer;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api,worker,scheduler', NIGHTLY_CRON: '0 2 * * *', ALERT_EVALUATION_INTERVAL_MS: '3600000' });
    producer = t.app.get(QueueProducer);
  });
  afterAll(() => t.close());

  const schedulersOf = async () => ({
    analytics: (await producer.analytics.getJobSchedulers()).map(({ key, pattern, tz }) => ({ key, pattern, tz })),
    alerts: (await producer.alerts.getJobSchedulers()).map(({ key, every }) => ({ key, every })),
    maintenance: (await producer.maintenance.getJobSchedulers()).map(({ key, pattern, tz }) => ({ key, pattern, tz })),
  });

  it('holds one job scheduler per recurring job, on its queue, with the configured schedule', async () => {
    expect(await schedulersOf()).toEqual({
      analytics: [{ key: JobName.NightlySchedule, pattern: '0 2 * * *', tz: 'UTC' }],
      alerts: [{ key: JobName.AlertEvaluation, every: 3600000 }],
      maintenance: [{ key: JobName.RetentionMaintenance, pattern: '20 * * * *', tz: 'UTC' }],
    });
  });

  it('runs retention maintenance once when a scheduler starts, on the maintenance queue the scheduler role works', async () => {
    const ran = await eventually(async () => {
      const jobs = await producer.maintenance.getJobs(['completed']);
      return jobs.length > 0 ? jobs : undefined;
    }, 20_000);
    expect(ran.map((job) => job.name)).toEqual([JobName.RetentionMaintenance]);
  });

  it("runs an occurrence of nightly-schedule by enqueuing yesterday's nightly job, which a worker runs", async () => {
    const day = formatDay(previousDay(new Date()));
    await producer.enqueue(JobName.NightlySchedule, {}, 'an-occurrence');
    const run = await eventually(
      async () => ((await producer.analytics.getJobState(`nightly-${day}`)) === 'completed' ? true : undefined),
      20_000,
    );
    expect(run).toBe(true);
    expect(await producer.analytics.getJobState('an-occurrence')).toBe('completed');
  });

  it("keeps one scheduler per job when another replica starts, on that replica's schedule, and drops one no longer listed", async () => {
    await producer.analytics.upsertJobScheduler('a-job-this-version-dropped', { every: 60_000 });
    const replica = await startTestApp(
      { ROLES: 'scheduler', NIGHTLY_CRON: '30 3 * * *', NIGHTLY_TIME_ZONE: 'Europe/Berlin', ALERT_EVALUATION_INTERVAL_MS: '3600000' },
      { sharing: t },
    );
    try {
      expect((await schedulersOf()).analytics).toEqual([{ key: JobName.NightlySchedule, pattern: '30 3 * * *', tz: 'Europe/Berlin' }]);
      expect((await schedulersOf()).alerts).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });
});
