import { fakeModel } from '@langchain/core/testing';
import { Toolcoach } from '@toolcoach/sdk';
import { ToolcoachCallbackHandler } from '@toolcoach/sdk/langchain';
import { AIMessage, createAgent, tool } from 'langchain';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// The built SDK against the real backend (issue 34): one client serving many conversations, and a long-running agent
// whose loaded tools follow the registry without a restart.
let app: TestApp;
let cacheDir: string;
const REFRESH_INTERVAL_MS = 100;

beforeAll(async () => {
  app = await startTestApp();
  cacheDir = mkdtempSync(join(tmpdir(), 'toolcoach-sdk-sessions-e2e-'));
});

afterAll(async () => {
  await app?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

function factorialTool() {
  return tool(
    ({ n }) => {
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return product;
    },
    { name: 'factorial', description: 'Returns n! for an integer n.', schema: z.object({ n: z.number().int().min(0) }) },
  );
}

/** A GET /v1/tools answer the client received: its status, and whether it asked with an ETag. */
interface ListAnswer {
  status: number;
  isConditional: boolean;
}

function clientFor(project: { apiKey: string }, listAnswers: ListAnswer[] = []): Toolcoach {
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (String(input).includes('/v1/tools?')) {
      const headers = (init?.headers ?? {}) as Record<string, string>;
      listAnswers.push({ status: response.status, isConditional: headers['if-none-match'] !== undefined });
    }
    return response;
  };
  return new Toolcoach({
    baseUrl: app.baseUrl,
    apiKey: project.apiKey,
    agent: 'math-agent',
    flushIntervalMs: 50,
    // a generous start-up budget: CI runs other suites beside this one on two cores
    startupTimeoutMs: 15_000,
    refreshIntervalMs: REFRESH_INTERVAL_MS,
    cacheDir,
    flushOnExit: false,
    fetch: recordingFetch,
    logger: { warn() {} },
  });
}

async function storedEvents(projectId: string, count: number) {
  return eventually(async () => {
    const { rows } = await app.db.sql.query(
      `SELECT tool_call_id, session_id, agent, description_version FROM events WHERE project_id = $1 ORDER BY tool_call_id`,
      [projectId],
    );
    return rows.length === count ? rows : undefined;
  }, 20_000);
}

it('serves two conversations from one client: each agent run is reported with the session of its view', async () => {
  const project = await app.createProject(`sdk-sessions-${Date.now()}`);
  const tc = clientFor(project);
  try {
    for (const session of ['conversation-1', 'conversation-2']) {
      const view = tc.forSession(session);
      const tools = await view.loadTools([factorialTool()]);
      expect(view.descriptionSource).toBe('server');
      const model = fakeModel()
        .respondWithTools([{ id: `call-${session}`, name: 'factorial', args: { n: 5 } }])
        .respond(new AIMessage('120'));
      await createAgent({ model, tools }).invoke(
        { messages: [{ role: 'user', content: 'What is 5!?' }] },
        { callbacks: [new ToolcoachCallbackHandler(view)] },
      );
    }
    expect(await tc.shutdown(5000)).toEqual({ isComplete: true, queued: 0 });
  } finally {
    await tc.shutdown(100);
  }
  const rows = await storedEvents(project.projectId, 2);
  expect(rows.map((row) => [row.tool_call_id, row.session_id, row.agent])).toEqual([
    ['call-conversation-1', 'conversation-1', 'math-agent'],
    ['call-conversation-2', 'conversation-2', 'math-agent'],
  ]);
});

it('gives a loaded tool the warning added through the API within the poll interval, and reports calls with the new version', async () => {
  const project = await app.createProject(`sdk-refresh-${Date.now()}`);
  const listAnswers: ListAnswer[] = [];
  const tc = clientFor(project, listAnswers);
  try {
    const view = tc.forSession('long-conversation');
    const factorial = factorialTool();
    let assignments = 0;
    let description = factorial.description;
    Object.defineProperty(factorial, 'description', {
      get: () => description,
      set: (text: string) => {
        assignments++;
        description = text;
      },
    });
    const tools = await view.loadTools([factorial]);
    const loadedVersion = view.descriptionVersionOf('factorial')!;
    expect(assignments).toBe(1);

    const added = await app.request('POST', '/v1/tools/factorial/warnings', {
      key: project.apiKey,
      body: { text: 'Pass n as one integer, never a list.', kind: 'manual' },
    });
    expect(added.status).toBe(201);
    await eventually(async () => (factorial.description.includes('Pass n as one integer, never a list.') ? true : undefined), 10_000);
    const refreshedVersion = view.descriptionVersionOf('factorial')!;
    expect(refreshedVersion).toBeGreaterThan(loadedVersion);
    expect(assignments).toBe(2);

    // the answers that follow are 304s, and they assign nothing
    const answersBefore = listAnswers.length;
    await eventually(async () => (listAnswers.slice(answersBefore).filter((a) => a.status === 304).length >= 3 ? true : undefined));
    expect(listAnswers.slice(answersBefore).every((a) => a.status === 304 && a.isConditional)).toBe(true);
    expect(assignments).toBe(2);

    const model = fakeModel()
      .respondWithTools([{ id: 'call-after-refresh', name: 'factorial', args: { n: 4 } }])
      .respond(new AIMessage('24'));
    await createAgent({ model, tools }).invoke(
      { messages: [{ role: 'user', content: 'What is 4!?' }] },
      { callbacks: [new ToolcoachCallbackHandler(view)] },
    );
    expect(await tc.shutdown(5000)).toEqual({ isComplete: true, queued: 0 });
    const [row] = await storedEvents(project.projectId, 1);
    expect(row).toMatchObject({
      tool_call_id: 'call-after-refresh',
      session_id: 'long-conversation',
      description_version: refreshedVersion,
    });
  } finally {
    await tc.shutdown(100);
  }
});
