import { Cluster } from 'ioredis';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { ProjectService } from '../../src/tenancy/project.service';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { findClusterToolProblem, OwnRedisCluster, startOwnRedisCluster } from '../support/redis-cluster';
import { reportSkip } from '../support/skip-report';
import { eventually, isWorkerIdle, startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 19: the whole app on a real 3-master Redis Cluster (its own redis-server processes): BullMQ under a hash-tagged
 * prefix, ingest -> worker -> Postgres across a crash and restart of the master that holds the queues, pub/sub between
 * replicas and the shared rate limit.
 */

const toolProblem = findClusterToolProblem();
if (toolProblem) reportSkip(`the Redis Cluster tests (test/e2e/redis-cluster.e2e-spec.ts): ${toolProblem}`);
const describeWithCluster = toolProblem ? describe.skip : describe;

const BATCHES = 40;
const EVENTS_PER_BATCH = 100;
/** The crash comes once this many batches were accepted, so load runs before, during and after it. */
const CRASH_AFTER_BATCHES = 12;
/** A batch is re-sent (same ids) until it is accepted; this bounds the test when the cluster never comes back. */
const MAX_ATTEMPTS_PER_BATCH = 400;

jest.setTimeout(180_000);

describeWithCluster('BullMQ and every Redis use on a real Redis Cluster', () => {
  let cluster: OwnRedisCluster;
  let t: TestApp;
  let replica: TestApp;
  let inspector: Cluster;

  beforeAll(async () => {
    cluster = await startOwnRedisCluster();
    t = await startTestApp({ REDIS_URL: cluster.url, RATE_LIMIT_REQUESTS: '0', AUTH_CACHE_TTL_MS: '600000' });
    replica = await startTestApp(
      { REDIS_URL: cluster.url, RATE_LIMIT_REQUESTS: '0', AUTH_CACHE_TTL_MS: '600000', ROLES: 'api' },
      { sharing: t },
    );
    inspector = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
    inspector.on('error', () => undefined);
  }, 120_000);

  afterAll(async () => {
    inspector?.disconnect();
    await replica?.close();
    await t?.close();
    await cluster?.stop();
  });

  it('puts every key of the queues in one slot under the hash-tagged prefix, and reports the cluster ready', async () => {
    expect(t.config.queueKeyPrefix).toBe(`{${t.config.queuePrefix}}`);
    const event = anEvent();
    expect((await t.request('POST', '/v1/events', { body: { events: [event] } })).status).toBe(202);
    await t.storedEvent(event.id as string);

    const queueKeys: string[] = [];
    for (const node of inspector.nodes('master')) queueKeys.push(...(await node.keys(`${t.config.queueKeyPrefix}:*`)));
    expect(queueKeys).toEqual(expect.arrayContaining([`${t.config.queueKeyPrefix}:events:id`, `${t.config.queueKeyPrefix}:events:meta`]));
    const slots = new Set(await Promise.all(queueKeys.map((key) => inspector.cluster('KEYSLOT', key))));
    expect(slots.size).toBe(1);
    // and no BullMQ key escaped the tag
    for (const node of inspector.nodes('master')) expect(await node.keys(`${t.config.queuePrefix}:events:*`)).toEqual([]);

    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis).toBe('up');
  });

  it('tells the other replica about a revoked key and a changed tool over pub/sub on the cluster', async () => {
    const projects = t.app.get(ProjectService);
    const projectName = (await t.db.sql.query('SELECT name FROM projects WHERE id = $1', [t.projectId])).rows[0].name;
    const key = await projects.createKeyForProject(projectName, 'cluster-revoke');
    expect((await replica.request('GET', '/v1/events', { key })).status).toBe(200);
    expect(await projects.revokeApiKey(key)).toBe(true);
    // the replica trusts cached keys for 10 minutes: only the broadcast can make it refuse this one now
    await eventually(async () => ((await replica.request('GET', '/v1/events', { key })).status === 401 ? true : undefined), 5000);

    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    expect((await t.request('PUT', '/v1/tools/cluster_tool', { body: { description: 'Weather.', parameters } })).status).toBe(201);
    expect((await replica.request('GET', '/v1/tools/cluster_tool/description')).body.version).toBe(1);
    expect((await t.request('PUT', '/v1/tools/cluster_tool', { body: { description: 'Weather for a city.', parameters } })).status).toBe(
      200,
    );
    const refreshed = await eventually(async () => {
      const response = await replica.request('GET', '/v1/tools/cluster_tool/description');
      return response.body.version === 2 ? response : undefined;
    }, 5000);
    expect(refreshed.body.description).toContain('Weather for a city.');
  });

  it('shares one rate limit per key across replicas through the cluster, each key on its own', async () => {
    const limited = await startTestApp({ REDIS_URL: cluster.url, RATE_LIMIT_REQUESTS: '4', ROLES: 'api' }, { sharing: t });
    const limitedReplica = await startTestApp({ REDIS_URL: cluster.url, RATE_LIMIT_REQUESTS: '4', ROLES: 'api' }, { sharing: t });
    try {
      const other = await t.createProject('cluster-rate-other');
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await (i % 2 === 0 ? limited : limitedReplica).request('GET', '/v1/events')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      expect((await limitedReplica.request('GET', '/v1/events', { key: other.apiKey })).status).toBe(200);
    } finally {
      await limitedReplica.close();
      await limited.close();
    }
  });

  it('stores every accepted event exactly once while the master holding the queues crashes and restarts, twice, mid-load', async () => {
    const project = await t.createProject('cluster-load');
    const batches = Array.from({ length: BATCHES }, (_, b) =>
      Array.from({ length: EVENTS_PER_BATCH }, (_, i) =>
        // a tenth are errors, so the error groups and error rollups are written (and could double count) too
        i % 10 === 0
          ? anErrorEvent('Missing required argument: city', { id: `cluster-${b}-${i}`, tool: `tool_${i % 4}` })
          : anEvent({ id: `cluster-${b}-${i}`, tool: `tool_${i % 4}` }),
      ),
    );
    const queue = t.app.get(QueueProducer).events;
    const queueMaster = await cluster.masterOf(`${t.config.queueKeyPrefix}:events:wait`);
    const refusals = new Map<string, number>();

    /** Two senders share the batches; each re-sends a refused batch (same ids) until it is accepted, as the SDK does. */
    const send = async (from: number, to: number, onAccepted: (accepted: number) => void = () => undefined) => {
      let next = from;
      let accepted = 0;
      const sender = async () => {
        while (next < to) {
          const batch = batches[next++];
          for (let attempt = 1; ; attempt++) {
            if (attempt > MAX_ATTEMPTS_PER_BATCH) throw new Error(`a batch was refused ${MAX_ATTEMPTS_PER_BATCH} times`);
            const status = await t
              .request('POST', '/v1/events', { body: { events: batch }, key: project.apiKey })
              .then((response) => (response.status === 202 ? 'accepted' : `${response.status} ${response.body?.error?.code ?? ''}`.trim()))
              .catch((error: Error) => `request failed: ${error.message}`);
            if (status === 'accepted') break;
            refusals.set(status, (refusals.get(status) ?? 0) + 1);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          onAccepted(++accepted);
        }
      };
      await Promise.all([sender(), sender()]);
    };

    // 1. the worker paused: the jobs are only in Redis when their master crashes, and must come back from its AOF
    await queue.pause();
    await send(0, CRASH_AFTER_BATCHES);
    const parkedIds = (await queue.getJobs(['waiting', 'prioritized'])).map((job) => job.id);
    expect(parkedIds).toHaveLength(CRASH_AFTER_BATCHES);
    const firstCrash = cluster.crashAndRestart(queueMaster);
    await Promise.all([firstCrash, send(CRASH_AFTER_BATCHES, 2 * CRASH_AFTER_BATCHES)]);
    const afterRestart = new Set((await queue.getJobs(['waiting', 'prioritized'])).map((job) => job.id));
    expect(parkedIds.filter((id) => !afterRestart.has(id))).toEqual([]);
    await queue.resume();

    // 2. the worker running: the same master crashes while jobs are being taken, processed and acknowledged
    let secondCrash: Promise<void> | undefined;
    await send(2 * CRASH_AFTER_BATCHES, BATCHES, (accepted) => {
      if (accepted === CRASH_AFTER_BATCHES / 2) secondCrash = cluster.crashAndRestart(queueMaster);
    });
    await secondCrash;
    console.log(`redis-cluster e2e: queue master (node ${queueMaster}) crashed twice; refused`, Object.fromEntries(refusals));
    // a refusal other than "Redis could not take it, try again" would be a bug of its own
    for (const status of refusals.keys()) expect(status).toMatch(/^503 queue_un(available|confirmed)$|^request failed/);

    const total = BATCHES * EVENTS_PER_BATCH;
    const counts = await eventually(
      async () => {
        const { rows } = await t.db.sql.query(
          `SELECT (SELECT count(*)::int FROM events WHERE project_id = $1) AS events,
                  (SELECT count(*)::int FROM events WHERE project_id = $1 AND status = 'error') AS errors,
                  (SELECT coalesce(sum(calls), 0)::int FROM hourly_rollups WHERE project_id = $1) AS rollup_calls,
                  (SELECT coalesce(sum(errors), 0)::int FROM hourly_rollups WHERE project_id = $1) AS rollup_errors,
                  (SELECT coalesce(sum(count), 0)::int FROM error_groups WHERE project_id = $1) AS grouped_errors`,
          [project.projectId],
        );
        const now = rows[0];
        if (now.events !== total || !(await isWorkerIdle(t))) throw new Error(`${total} accepted, ${now.events} stored so far`);
        return now;
      },
      120_000,
      200,
    );
    const deadLetters = await t.request('GET', '/v1/admin/dead-letters?limit=10', { key: project.apiKey });
    expect(deadLetters.status).toBe(200);
    // 0 lost (all stored, none parked) and 0 counted twice (every counter equals what was sent once)
    expect({ ...counts, deadLetters: deadLetters.body.items.length }).toEqual({
      events: total,
      errors: total / 10,
      rollup_calls: total,
      rollup_errors: total / 10,
      grouped_errors: total / 10,
      deadLetters: 0,
    });
    expect(await cluster.stateSeenBy(queueMaster)).toBe('ok');
    expect((await t.request('GET', '/readyz')).status).toBe(200);
    expect(await t.app.get(QueueProducer).findRedisProblem()).toBeNull();
  });

  it('still broadcasts a revocation after the node restart', async () => {
    const projects = t.app.get(ProjectService);
    const projectName = (await t.db.sql.query('SELECT name FROM projects WHERE id = $1', [t.projectId])).rows[0].name;
    const key = await projects.createKeyForProject(projectName, 'cluster-revoke-after');
    expect((await replica.request('GET', '/v1/events', { key })).status).toBe(200);
    expect(await projects.revokeApiKey(key)).toBe(true);
    await eventually(async () => ((await replica.request('GET', '/v1/events', { key })).status === 401 ? true : undefined), 10_000);
  });
});
