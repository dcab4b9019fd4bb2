import { Toolcoach } from '@toolcoach/sdk';
import { ToolcoachCallbackHandler } from '@toolcoach/sdk/langchain';
import { createAgent } from 'langchain';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Issue 34: the loop closes on the default policies for every deployment shape the SDK serves. A real LangChain.js
// agent whose scripted model reads its tool descriptions (scripts/demo-agent.js: it batches numbers into one call,
// asks for factorials past 20 and misspells a tool name until a description warns against it) runs a day of
// conversations, the nightly runs, and so on; nightlies run for today several times in a row, as the issue allows.
// The MCP gateway's shape is test/e2e/mcp-gateway.e2e-spec.ts, the demo's (`npm run demo`) test/e2e/demo.e2e-spec.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { mathTools, ReaderModel } = require('../../scripts/demo-agent') as {
  mathTools: () => Parameters<Toolcoach['loadTools']>[0];
  ReaderModel: new (session: number) => ConstructorParameters<typeof Object>[0];
};

// 40 conversations give prime_factorization over 100 calls a day, the volume the issue promises a decision in 3 nightlies at
const CONVERSATIONS_PER_DAY = 40;
const today = () => new Date().toISOString().slice(0, 10);

interface Day {
  calls: number;
  mistakes: number;
}

/** How a deployment talks to toolcoach: which clients a day's conversations use, and the sticky headers each sends. */
interface Shape {
  name: string;
  /** One entry per conversation of a day: the client settings it runs with. */
  conversations: (day: number) => Array<{ agent: string; session?: string }>;
  /**
   * restart: each agent process starts (loads its tools) once a day; long-running: one process for all days, which
   * loads its tools once and follows new versions by the SDK's refresh (ETag polling), never restarted.
   */
  lifetime: 'restart' | 'long-running';
}

const SHAPES: Shape[] = [
  {
    name: 'one agent without a session, restarted each day',
    conversations: () => Array.from({ length: CONVERSATIONS_PER_DAY }, () => ({ agent: 'math-agent' })),
    lifetime: 'restart',
  },
  {
    name: 'one agent without a session that is never restarted',
    conversations: () => Array.from({ length: CONVERSATIONS_PER_DAY }, () => ({ agent: 'math-agent' })),
    lifetime: 'long-running',
  },
  {
    name: 'one session per conversation (one client, forSession)',
    conversations: (day) => Array.from({ length: CONVERSATIONS_PER_DAY }, (_, i) => ({ agent: 'math-agent', session: `d${day}-c${i}` })),
    lifetime: 'restart',
  },
  {
    name: 'ten agents',
    conversations: () => Array.from({ length: CONVERSATIONS_PER_DAY }, (_, i) => ({ agent: `math-agent-${i % 10}` })),
    lifetime: 'restart',
  },
];

describe.each(SHAPES)('on the default policies, the loop closes for $name', (shape) => {
  let t: TestApp;
  let project: { projectId: string; apiKey: string };
  const api = (method: string, path: string) => t.request(method, path, { key: project.apiKey });

  beforeAllAwayFromDayChange(async () => {
    // every call is stamped at the real time and every nightly is for today: never start in a day's last two minutes
    t = await startTestApp();
    project = await t.createProject(`shape-${shape.name.replace(/\W/g, '')}`);
  });
  afterAll(async () => {
    for (const root of processes.values()) await root.shutdown(1000);
    await t?.close();
  });

  type Client = { tc: Toolcoach; tools: Awaited<ReturnType<Toolcoach['loadTools']>> };
  /** Agent processes by agent name; a long-running one lives across days. */
  const processes = new Map<string, Toolcoach>();
  const longRunningClients = new Map<string, Client>();

  /**
   * One day of conversations. An agent process (one per agent name) is one Toolcoach client; a conversation with a
   * session is a `forSession` view of it with tools loaded for it; without one, the process loads its tools once.
   */
  async function runDay(day: number): Promise<Day> {
    const clients = shape.lifetime === 'long-running' ? longRunningClients : new Map<string, Client>();
    if (shape.lifetime === 'restart') processes.clear();
    const outcome: Day = { calls: 0, mistakes: 0 };
    let conversation = 0;
    for (const settings of shape.conversations(day)) {
      const key = `${settings.agent}\u0000${settings.session ?? ''}`;
      let client = clients.get(key);
      if (!client) {
        let root = processes.get(settings.agent);
        if (!root) {
          // the long-running process polls every 100 ms here (60 s by default) so the test need not wait a minute
          const refresh = shape.lifetime === 'long-running' ? { refreshIntervalMs: 100 } : {};
          root = new Toolcoach({
            baseUrl: t.baseUrl,
            apiKey: project.apiKey,
            agent: settings.agent,
            cacheDir: false,
            flushIntervalMs: 100,
            ...refresh,
          });
          processes.set(settings.agent, root);
        }
        const tc = settings.session ? root.forSession(settings.session) : root;
        client = { tc, tools: await tc.loadTools(mathTools()) };
        expect(tc.descriptionSource).toBe('server');
        clients.set(key, client);
      }
      const agent = createAgent({ model: new ReaderModel(day * 100 + conversation++) as never, tools: client.tools as never });
      const { messages } = await agent.invoke(
        { messages: [{ role: 'user', content: 'Factor two numbers and compute two factorials.' }] },
        { callbacks: [new ToolcoachCallbackHandler(client.tc)] },
      );
      for (const message of messages.filter((m) => m.getType() === 'tool')) {
        outcome.calls += 1;
        if ((message as { status?: string }).status === 'error') outcome.mistakes += 1;
      }
    }
    let sent = 0;
    for (const root of processes.values()) {
      const flushed = shape.lifetime === 'long-running' ? await root.flush(10_000) : await root.shutdown(10_000);
      expect(flushed.isComplete).toBe(true);
      sent += root.stats().sent - (sentBefore.get(root) ?? 0);
      sentBefore.set(root, root.stats().sent);
    }
    await eventually(async () => {
      const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [project.projectId]);
      return rows[0].n >= storedBefore + sent ? true : undefined;
    }, 30_000);
    storedBefore += sent;
    return outcome;
  }
  let storedBefore = 0;
  const sentBefore = new Map<Toolcoach, number>();

  /** A long-running process follows the version each tool is served now (refresh) before its next day. */
  async function awaitRefresh(): Promise<void> {
    if (shape.lifetime !== 'long-running') return;
    for (const tool of ['prime_factorization', 'factorial']) {
      const served = (await api('GET', `/v1/tools/${tool}/description`)).body.version;
      for (const { tc } of longRunningClients.values()) {
        await eventually(async () => (tc.descriptionVersionOf(tool) === served ? true : undefined), 10_000, 50);
      }
    }
  }

  it('serves every mistake its warning, decides each canary within 3 nightlies, and the next day has <= 20% of the mistakes', async () => {
    expect((await api('GET', '/v1/rollout/policy')).body).toMatchObject({ enabled: true, design: 'alternating' });
    const days: Day[] = [await runDay(1)];
    expect(days[0].mistakes).toBeGreaterThan(0);
    for (let nightly = 1; nightly <= 3; nightly++) {
      expect((await runNightly({ request: (method, path) => api(method, path) }, today())).body).toMatchObject({ status: 'succeeded' });
      await awaitRefresh();
      days.push(await runDay(nightly + 1));
    }

    // each warning learned from a mistake (not a definition finding, which may have started on the last night) decided
    const canaries = (await api('GET', '/v1/rollout/canaries')).body.items as Array<{
      tool: string;
      status: string;
      warningIds: string[];
      decision: { action: string } | null;
    }>;
    const warnings = new Map<string, { kind: string; text: string }>();
    for (const tool of ['prime_factorization', 'factorial']) {
      for (const warning of (await api('GET', `/v1/tools/${tool}/warnings`)).body.warnings) warnings.set(warning.id, warning);
    }
    const learned = canaries.filter((canary) => canary.warningIds.some((id) => warnings.get(id)?.kind !== 'schema_quality'));
    expect(learned.length).toBeGreaterThan(0);
    for (const canary of learned) expect([canary.tool, canary.status]).toEqual([canary.tool, 'promoted']);

    // every agent that made the mistakes is served their warnings, with whatever sticky id it sends
    for (const settings of shape.conversations(5).slice(0, 10)) {
      const headers: Record<string, string> = { 'x-toolcoach-agent': settings.agent };
      if (settings.session) headers['x-toolcoach-session'] = settings.session;
      const served = async (tool: string) =>
        (await t.request('GET', `/v1/tools/${tool}/description`, { key: project.apiKey, headers })).body;
      expect((await served('prime_factorization')).description).toContain("'numbers'");
      expect((await served('prime_factorization')).description).toContain('`prime_factorise`');
      expect((await served('factorial')).description).toContain("'n' above 20 fails");
    }

    // the day after the third nightly: at most a fifth of the first day's mistakes
    console.log(`${shape.name}: mistakes per day ${days.map((day) => `${day.mistakes}/${day.calls}`).join(', ')}`);
    expect(days[3].mistakes).toBeLessThanOrEqual(days[0].mistakes * 0.2);
  }, 240_000);
});
