import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate } from '../../src/infra/prisma/migrate';
import { anEvent } from '../factories/event.factory';
import { AppProcess, startListeningAppProcess } from '../support/app-process';
import { findPostgresClusterProblem, OwnPostgresCluster, startOwnPostgresCluster } from '../support/postgres-cluster';
import { reportSkip } from '../support/skip-report';
import { eventually } from '../support/test-app';
import { REDIS_URL } from '../support/test-env';

/**
 * Issue 19: DATABASE_READ_URL sends the dashboard's reads to a real streaming replica (its own primary and replica,
 * made by initdb and pg_basebackup -R in a temp directory, on free ports), writes stay on the primary, and a replica
 * that is down is answered for by the primary with one warning, until it is back.
 */

const clusterProblem = findPostgresClusterProblem();
if (clusterProblem) reportSkip(`the read replica tests (test/e2e/read-replica.e2e-spec.ts): ${clusterProblem}`);
const describeWithCluster = clusterProblem ? describe.skip : describe;

const API_KEY = 'tc_read_replica_key';
const TOOL = 'replica_tool';
const UNAVAILABLE_LINE = /read replica unavailable; dashboard reads go to the primary/g;
const BACK_LINE = /read replica answers again; dashboard reads go to it/g;

jest.setTimeout(120_000);

describeWithCluster('dashboard reads from a streaming replica (DATABASE_READ_URL)', () => {
  let cluster: OwnPostgresCluster;
  let primary: Client;
  let app: AppProcess;
  let baseUrl: string;

  beforeAll(async () => {
    cluster = await startOwnPostgresCluster('toolcoach_replica');
    await migrate(cluster.primaryUrl);
    primary = new Client({ connectionString: cluster.primaryUrl });
    await primary.connect();
    ({ app, url: baseUrl } = await startListeningAppProcess({
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_READ_URL: cluster.replicaUrl,
      REDIS_URL,
      QUEUE_PREFIX: `tc-test-${randomBytes(4).toString('hex')}`,
      ROLES: 'api,worker',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_REQUESTS: '0',
      LOG_LEVEL: 'info',
      TOOLCOACH_DEV_KEY: API_KEY,
    }));
  }, 120_000);

  afterAll(async () => {
    if (app && app.child.exitCode === null) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    await primary?.end();
    await cluster?.stop();
  });

  const get = async <Body = unknown>(path: string) => {
    const response = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${API_KEY}` } });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const ingest = async (event: Record<string, unknown>) => {
    const response = await fetch(`${baseUrl}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [event] }),
    });
    expect(response.status).toBe(202);
  };
  /** Waits until the worker has written the event (and its rollup, in the same transaction) on the primary. */
  const untilOnPrimary = (id: string) =>
    eventually(async () => ((await primary.query('SELECT 1 FROM events WHERE id = $1', [id])).rowCount === 1 ? true : undefined), 20_000);
  const onReplica = async (sql: string) => {
    const replica = new Client({ connectionString: cluster.replicaUrl });
    await replica.connect();
    try {
      return (await replica.query(sql)).rows;
    } finally {
      await replica.end();
    }
  };
  const pauseReplay = async () => {
    await onReplica('SELECT pg_wal_replay_pause()');
    await eventually(async () =>
      (await onReplica('SELECT pg_get_wal_replay_pause_state() AS state'))[0].state === 'paused' ? true : undefined,
    );
  };
  const toolCalls = async () => (await get<{ totals: { calls: number } }>(`/v1/tools/${TOOL}/stats`)).body.totals.calls;
  const linesOf = (pattern: RegExp) => app.output().match(pattern)?.length ?? 0;

  it('serves events and stats as of the replica: an event the primary has stays unseen while replay is paused, then arrives', async () => {
    const first = anEvent({ tool: TOOL });
    await ingest(first);
    await eventually(async () => ((await get(`/v1/events/${first.id}`)).status === 200 ? true : undefined), 20_000);
    const callsBefore = await toolCalls();
    expect(callsBefore).toBe(1);

    await pauseReplay();
    const second = anEvent({ tool: TOOL });
    await ingest(second);
    await untilOnPrimary(String(second.id));
    // the primary has the event and its rollup; a dashboard reading the primary would answer 200 and 2 calls
    expect((await primary.query('SELECT sum(calls)::int AS calls FROM hourly_rollups WHERE tool = $1', [TOOL])).rows[0].calls).toBe(2);
    expect((await get(`/v1/events/${second.id}`)).status).toBe(404);
    expect(await toolCalls()).toBe(1);
    expect((await get<{ items: Array<{ id: string }> }>(`/v1/events?tool=${TOOL}`)).body.items.map((e) => e.id)).toEqual([first.id]);

    await onReplica('SELECT pg_wal_replay_resume()');
    await eventually(async () => ((await get(`/v1/events/${second.id}`)).status === 200 ? true : undefined), 20_000);
    expect(await toolCalls()).toBe(2);
    expect(linesOf(UNAVAILABLE_LINE)).toBe(0);
  });

  it('answers from the primary with one warning while the replica is down, and reads from the replica again once it is back', async () => {
    await cluster.stopReplica();
    const whileDown = anEvent({ tool: TOOL });
    await ingest(whileDown);
    await untilOnPrimary(String(whileDown.id));
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push((await get(`/v1/events/${whileDown.id}`)).status);
    expect(answers).toEqual(Array(10).fill(200));
    expect(await toolCalls()).toBe(3);
    await eventually(async () => (linesOf(UNAVAILABLE_LINE) > 0 ? true : undefined), 5_000);
    expect(linesOf(UNAVAILABLE_LINE)).toBe(1);

    await cluster.startReplica();
    await pauseReplay();
    const afterRestart = anEvent({ tool: TOOL });
    await ingest(afterRestart);
    await untilOnPrimary(String(afterRestart.id));
    // reads stay on the primary (200) until the retry period ends and a read finds the replica (behind: 404)
    await eventually(async () => ((await get(`/v1/events/${afterRestart.id}`)).status === 404 ? true : undefined), 20_000);
    // the app's log reaches this process through a pipe, which may deliver the line after the HTTP answer
    await eventually(async () => (linesOf(BACK_LINE) > 0 ? true : undefined), 5_000);
    expect(linesOf(BACK_LINE)).toBe(1);
    expect(linesOf(UNAVAILABLE_LINE)).toBe(1);
    await onReplica('SELECT pg_wal_replay_resume()');
    await eventually(async () => ((await get(`/v1/events/${afterRestart.id}`)).status === 200 ? true : undefined), 20_000);
  });
});
