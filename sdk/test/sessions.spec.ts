import type { Serialized } from '@langchain/core/load/serializable';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Toolcoach, ToolcoachOptions } from '../src';
import { ToolcoachCallbackHandler } from '../src/langchain';
import { ReceivedRequest, ScriptedServer } from './scripted-server';

// One client, many conversations (issue 34, finding 8), and descriptions that follow the registry without a restart.
let server: ScriptedServer;
let cacheDir: string;
const clients: Toolcoach[] = [];

function client(options: Partial<ToolcoachOptions> = {}): Toolcoach {
  const tc = new Toolcoach({
    baseUrl: server.baseUrl,
    apiKey: 'tc_test',
    cacheDir,
    flushOnExit: false,
    flushIntervalMs: 20,
    refreshIntervalMs: false,
    logger: { warn() {} },
    ...options,
  });
  clients.push(tc);
  return tc;
}

const tools = () => [{ name: 'factorial', description: 'n!', parameters: { type: 'object', properties: { n: { type: 'integer' } } } }];

/**
 * A registry whose served text names the side that asked (so a test can tell whose description a tool got) and the
 * current version; the ETag changes with both, as the real one does.
 */
function serveRegistry(state: { version: number }) {
  server.answerOtherwise((request: ReceivedRequest) => {
    if (request.url === '/v1/tools:bulk') return { status: 200, body: { tools: [] } };
    if (request.url === '/v1/events') return { status: 202, body: { accepted: request.body.events.length, rejected: [] } };
    if (request.url !== '/v1/tools?format=raw') return { status: 404 };
    const side = String(request.headers['x-toolcoach-session'] ?? request.headers['x-toolcoach-agent'] ?? 'everyone');
    const etag = `"${side}-${state.version}"`;
    if (request.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
    const description = `n!\nWARNING v${state.version} for ${side}.`;
    return { status: 200, headers: { etag }, body: { format: 'raw', tools: [{ name: 'factorial', version: state.version, description }] } };
  });
}

const serialized: Serialized = { lc: 1, type: 'not_implemented', id: ['langchain', 'tools', 'DynamicStructuredTool'] };

/** One tool run as LangChain reports it, ended after `between` ran. */
async function runTool(handler: ToolcoachCallbackHandler, runId: string, between: () => Promise<unknown> = async () => {}) {
  handler.handleToolStart(serialized, '{"n":5}', runId, undefined, [], {}, 'factorial', `call-${runId}`);
  await between();
  handler.handleToolEnd('120', runId);
}

beforeEach(async () => {
  server = await ScriptedServer.start();
  cacheDir = mkdtempSync(join(tmpdir(), 'toolcoach-sessions-'));
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((tc) => tc.shutdown(50)));
  await server.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('one client, many conversations', () => {
  it("puts each view's session on its registry requests and on every event its handler reports, through the one reporter", async () => {
    serveRegistry({ version: 2 });
    const tc = client({ agent: 'math-agent' });
    const first = tc.forSession('conversation-1');
    const second = tc.forSession('conversation-2');
    await first.loadTools(tools());
    await second.loadTools(tools());
    const sessionsAsked = server.requests.filter((r) => r.url === '/v1/tools?format=raw').map((r) => r.headers['x-toolcoach-session']);
    expect(sessionsAsked).toEqual(['conversation-1', 'conversation-2']);

    await runTool(new ToolcoachCallbackHandler(first), 'run-1');
    await runTool(new ToolcoachCallbackHandler(second), 'run-2');
    await tc.flush(2000);
    expect(server.events.map((e) => [e.runId, e.sessionId, e.agent, e.descriptionVersion])).toEqual([
      ['run-1', 'conversation-1', 'math-agent', 2],
      ['run-2', 'conversation-2', 'math-agent', 2],
    ]);
  });

  it('puts the session of a client made with `session` on its events, and a sessionId given to the handler still wins', async () => {
    serveRegistry({ version: 1 });
    const tc = client({ session: 'conversation-9' });
    await runTool(new ToolcoachCallbackHandler(tc), 'run-1');
    await runTool(new ToolcoachCallbackHandler(tc, { sessionId: 'explicit' }), 'run-2');
    tc.report({ tool: 'factorial', status: 'success' });
    await tc.flush(2000);
    expect(server.events.map((e) => e.sessionId)).toEqual(['conversation-9', 'explicit', 'conversation-9']);
  });

  it("keeps each side's descriptions apart in the disk cache: a start while the server is down never gets another side's", async () => {
    serveRegistry({ version: 3 });
    await client({ session: 'conversation-a' }).loadTools(tools());
    await client({ session: 'conversation-b' }).loadTools(tools());
    await client().forSession('conversation-c').loadTools(tools());
    server.answerOtherwise(() => ({ status: 503 }));

    const restarted = client();
    const descriptionOf = async (view: Toolcoach) => (await view.loadTools(tools()))[0].description;
    expect(await descriptionOf(restarted.forSession('conversation-a'))).toBe('n!\nWARNING v3 for conversation-a.');
    expect(await descriptionOf(client({ session: 'conversation-b' }))).toBe('n!\nWARNING v3 for conversation-b.');
    expect(await descriptionOf(restarted.forSession('conversation-c'))).toBe('n!\nWARNING v3 for conversation-c.');
    const unseen = restarted.forSession('conversation-d');
    expect(await descriptionOf(unseen)).toBe('n!');
    expect(unseen.descriptionSource).toBe('given');
  });

  it('serves 50 conversations from one client, and 50 clients, without a listener warning', async () => {
    serveRegistry({ version: 1 });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const listenersBefore = process.listenerCount('beforeExit');
    try {
      const tc = client({ flushOnExit: true });
      await Promise.all(Array.from({ length: 50 }, (_, i) => tc.forSession(`conversation-${i}`).loadTools(tools())));
      for (let i = 0; i < 50; i++) client({ flushOnExit: true, session: `client-${i}` });
      // Node emits the warning on the next tick after the listener that crossed the limit
      await new Promise((resolve) => setImmediate(resolve));
      expect(process.listenerCount('beforeExit')).toBe(listenersBefore + 1);
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.removeListener('warning', onWarning);
    }
    await Promise.all(clients.splice(0).map((tc) => tc.shutdown(50)));
    expect(process.listenerCount('beforeExit')).toBe(listenersBefore);
  });

  it('refuses a session view without an id, rather than joining another side', () => {
    expect(() => client().forSession('')).toThrow(TypeError);
  });
});

describe('live refresh', () => {
  it('gives loaded tools a new version in place, with If-None-Match; a 304 assigns nothing', async () => {
    const state = { version: 1 };
    serveRegistry(state);
    const tc = client();
    const view = tc.forSession('conversation-1');
    let assignments = 0;
    let description = 'n!';
    const counted = {
      name: 'factorial',
      parameters: {},
      get description() {
        return description;
      },
      set description(text: string) {
        assignments++;
        description = text;
      },
    };
    await view.loadTools([counted]);
    expect([counted.description, assignments]).toEqual(['n!\nWARNING v1 for conversation-1.', 1]);

    expect(await view.refreshDescriptions()).toBe(false);
    state.version = 2;
    expect(await view.refreshDescriptions()).toBe(true);
    expect([counted.description, view.descriptionVersionOf('factorial'), assignments]).toEqual([
      'n!\nWARNING v2 for conversation-1.',
      2,
      2,
    ]);
    expect(await view.refreshDescriptions()).toBe(false);
    expect(assignments).toBe(2);
    const polls = server.requests.filter((r) => r.method === 'GET').slice(1);
    expect(polls.map((r) => r.headers['if-none-match'])).toEqual(['"conversation-1-1"', '"conversation-1-1"', '"conversation-1-2"']);
  });

  it('reports the version a tool had when it was called, not the one a refresh brought before the call ended', async () => {
    const state = { version: 1 };
    serveRegistry(state);
    const tc = client({ session: 'conversation-1' });
    await tc.loadTools(tools());
    const handler = new ToolcoachCallbackHandler(tc);
    await runTool(handler, 'run-1', async () => {
      state.version = 2;
      await tc.refreshDescriptions();
    });
    await runTool(handler, 'run-2');
    await tc.flush(2000);
    expect(server.events.map((e) => [e.runId, e.descriptionVersion])).toEqual([
      ['run-1', 1],
      ['run-2', 2],
    ]);
  });

  it('polls on its own at refreshIntervalMs, for every session of the client', async () => {
    const state = { version: 1 };
    serveRegistry(state);
    const tc = client({ refreshIntervalMs: 20 });
    const loaded = await Promise.all(['a', 'b'].map((session) => tc.forSession(session).loadTools(tools())));
    state.version = 2;
    const deadline = Date.now() + 5000;
    while (!loaded.every(([tool]) => tool.description.startsWith('n!\nWARNING v2')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(loaded.map(([tool]) => tool.description)).toEqual(['n!\nWARNING v2 for a.', 'n!\nWARNING v2 for b.']);
  });

  it('registers tools loaded while the server was down once it answers again', async () => {
    server.answerOtherwise(() => ({ status: 503 }));
    const tc = client({ cacheDir: false });
    const [tool] = await tc.loadTools(tools());
    expect(tc.descriptionSource).toBe('given');
    expect(await tc.refreshDescriptions()).toBe(false);
    serveRegistry({ version: 5 });
    expect(await tc.refreshDescriptions()).toBe(true);
    expect([tool.description, tc.descriptionSource, tc.descriptionVersionOf('factorial')]).toEqual([
      'n!\nWARNING v5 for everyone.',
      'server',
      5,
    ]);
    expect(server.requests.filter((r) => r.url === '/v1/tools:bulk')).toHaveLength(3);
  });
});
