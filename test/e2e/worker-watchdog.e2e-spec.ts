import { QueueWorkers } from '../../src/infra/queue/queue-worker';
import { QueueName } from '../../src/infra/queue/queue.names';
import { anEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// A BullMQ worker can stay blocked on a connection that never recovered after its Redis node restarted (the Redis
// Cluster e2e saw 4,000 accepted events and none stored for two minutes). From outside, such a worker takes no job while
// jobs wait: the watchdog (WORKER_STUCK_AFTER_MS) closes it and starts a new one on a new connection.
describe('a queue worker that takes no job while jobs wait', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ WORKER_STUCK_AFTER_MS: '1000' });
  });
  afterAll(async () => t?.close());

  it('is started again on a new connection, and the events that waited are stored', async () => {
    const workers = t.app.get(QueueWorkers);
    const stuck = workers.workerFor(QueueName.Events)!;
    // a worker that takes no job, as the stuck one: paused here, never resumed (its blocking fetch ends first)
    await stuck.pause(true);
    await eventually(async () => (stuck.isRunning() ? undefined : true), 20_000);
    const events = [anEvent(), anEvent()];
    expect((await t.request('POST', '/v1/events', { body: { events } })).status).toBe(202);
    await eventually(async () => (workers.workerFor(QueueName.Events) !== stuck ? true : undefined), 30_000);
    for (const event of events) await t.storedEvent(event.id as string);
    expect(stuck.isPaused()).toBe(true);
  }, 60_000);
});
