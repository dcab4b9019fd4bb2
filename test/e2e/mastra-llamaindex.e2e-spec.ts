import { createTool } from '@mastra/core/tools';
import { Toolcoach } from '@toolcoach/sdk';
import { tool } from 'llamaindex';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { runAgent as runLlamaIndexAgent } from '../../examples/llamaindex/agent';
import { runAgent as runMastraAgent } from '../../examples/mastra/agent';
import { ScriptedCall, scriptedModel } from '../../sdk/test/scripted-language-model';
import { ScriptedLlamaIndexLLM } from '../../sdk/test/scripted-llamaindex-llm';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp, untilWorkerIdle } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

// Issue 36: Mastra and LlamaIndex.TS agents (the real packages, scripted models) run the documented examples
// (examples/mastra/agent.ts, examples/llamaindex/agent.ts) against the app on its default configuration: every tool
// call is stored once with its category, the tools are registered, and after the nightly the warning it applied is in
// the description the next run's model is given. One project per framework, one app for the file.
const run = promisify(execFile);
const today = () => new Date().toISOString().slice(0, 10);
const OVERFLOW_WARNING = "'n' above 20 fails";
const BASE_DESCRIPTION = 'Returns n! for an integer n.';

function factorial(n: number): number {
  if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
  let product = 1;
  for (let i = 2; i <= n; i++) product *= i;
  return product;
}

/** Day one of both agents: 20! (the largest that works), five overflows (enough for the nightly to apply their warning), then mistakes. */
const OVERFLOWS = [21, 22, 23, 24, 25].map((n) => ({ id: `call-over-${n}`, name: 'factorial', input: `{"n":${n}}` }));
const FIRST_DAY: ScriptedCall[] = [
  { id: 'call-ok', name: 'factorial', input: '{"n":20}' },
  ...OVERFLOWS,
  { id: 'call-invalid', name: 'factorial', input: '{"number":5}' },
  { id: 'call-malformed', name: 'factorial', input: '{"n": 5' },
];
const UNKNOWN: ScriptedCall = { id: 'call-unknown', name: 'factorial_of', input: '{"n": 5}' };
const CATEGORIES: Record<string, string | null> = {
  'call-ok': null,
  ...Object.fromEntries(OVERFLOWS.map((call) => [call.id, 'overflow'])),
  'call-invalid': 'argument_mismatch',
  'call-malformed': 'argument_mismatch',
  'call-unknown': 'unknown_tool',
};

interface Framework {
  name: string;
  /** Runs the example's agent for one conversation; answers the tool descriptions its model was given at its first step. */
  runDay(tc: Toolcoach, calls: ScriptedCall[], project: Project): Promise<string[]>;
}

interface Project {
  projectId: string;
  apiKey: string;
}

let t: TestApp;
beforeAllAwayFromDayChange(async () => {
  // the calls are stamped at the real time and the nightly runs for today: never start in a day's last two minutes
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const FRAMEWORKS: Framework[] = [
  {
    name: 'Mastra',
    async runDay(tc, calls) {
      const { model, descriptionsSeen } = scriptedModel(calls.map((call) => [call]));
      const factorialTool = createTool({
        id: 'factorial',
        description: BASE_DESCRIPTION,
        inputSchema: z.object({ n: z.number().int().min(0) }),
        execute: async ({ n }) => factorial(n),
      });
      expect(await runMastraAgent(tc, model, { factorial: factorialTool }, 'Compute 20! to 25!')).toBe('done');
      return descriptionsSeen()[0] ?? [];
    },
  },
  {
    name: 'LlamaIndex.TS',
    async runDay(tc, calls, project) {
      const known = calls.filter((call) => call.name !== UNKNOWN.name);
      const llm = new ScriptedLlamaIndexLLM(known.map((call) => [call]));
      const factorialTool = tool({
        name: 'factorial',
        description: BASE_DESCRIPTION,
        parameters: z.object({ n: z.number().int().min(0) }),
        execute: ({ n }) => factorial(n),
      });
      expect(await runLlamaIndexAgent(tc, llm, [factorialTool], 'Compute 20! to 25!')).toBe('done');
      if (known.length < calls.length) await runUnknownToolConversation(project);
      return llm.descriptionsSeen[0] ?? [];
    },
  },
];

/**
 * LlamaIndex abandons a run whose model calls an unknown tool with an unhandled rejection, which Jest would count
 * against this test: that conversation runs in a process of its own (sdk/test/llamaindex-unknown-tool.js).
 */
async function runUnknownToolConversation(project: Project): Promise<void> {
  const env = { ...process.env, TOOLCOACH_URL: t.baseUrl, TOOLCOACH_API_KEY: project.apiKey, ...TEST_STARTUP_TIMEOUT_ENV };
  const script = join(__dirname, '..', '..', 'sdk', 'test', 'llamaindex-unknown-tool.js');
  const { stdout } = await run(process.execPath, [script], { env });
  expect(JSON.parse(stdout)).toMatchObject({ rejection: 'Error: Tools not found: factorial_of', isSettled: false });
}

describe.each(FRAMEWORKS)('$name on the default configuration', (framework) => {
  let project: Project;
  const api = (method: string, path: string) => t.request(method, path, { key: project.apiKey });
  const client = () =>
    new Toolcoach({
      baseUrl: t.baseUrl,
      apiKey: project.apiKey,
      agent: 'math-agent',
      cacheDir: false,
      flushOnExit: false,
      // generous: this test is about the loop, and CI runs other suites beside it on two cores
      startupTimeoutMs: 15_000,
      logger: { warn() {} },
    });

  beforeAll(async () => {
    project = await t.createProject(`issue-36-${framework.name.replace(/\W/g, '')}`);
  });

  it('stores every tool call once with its category, registers the tools, and the nightly warning reaches the next run’s model', async () => {
    const firstDay = client();
    expect(await framework.runDay(firstDay, [...FIRST_DAY, UNKNOWN], project)).toEqual([BASE_DESCRIPTION]);
    expect(await firstDay.shutdown(10_000)).toEqual({ isComplete: true, queued: 0 });

    const calls = Object.keys(CATEGORIES);
    const stored = await eventually(async () => {
      const items = (await api('GET', '/v1/events?limit=50')).body.items as Array<Record<string, unknown>>;
      return items.length >= calls.length && items.every((event) => event.category !== undefined) ? items : undefined;
    }, 30_000);
    await untilWorkerIdle(t);
    const all = (await api('GET', '/v1/events?limit=50')).body.items as Array<Record<string, unknown>>;
    expect(all.map((event) => event.toolCallId).sort()).toEqual([...calls].sort());
    expect(Object.fromEntries(stored.map((event) => [event.toolCallId, event.category]))).toEqual(CATEGORIES);
    for (const event of stored)
      expect(event).toMatchObject({ agent: 'math-agent', framework: expect.any(String), model: expect.any(String) });

    const registered = (await api('GET', '/v1/tools?format=raw')).body.tools as Array<Record<string, unknown>>;
    expect(registered.find((candidate) => candidate.name === 'factorial')).toMatchObject({
      baseDescription: BASE_DESCRIPTION,
      parameters: { type: 'object', properties: { n: expect.objectContaining({ type: 'integer', minimum: 0 }) } },
    });

    expect((await runNightly({ request: (method, path) => api(method, path) }, today())).body).toMatchObject({ status: 'succeeded' });
    const served = (await api('GET', '/v1/tools/factorial/description')).body as { description: string; version: number };
    expect(served.description).toContain(OVERFLOW_WARNING);

    // the next conversation's model is given the warning, and its call reports the version it saw
    const nextDay = client();
    const seen = await framework.runDay(nextDay, [{ id: 'call-next', name: 'factorial', input: '{"n":6}' }], project);
    expect(seen).toEqual([served.description]);
    await nextDay.shutdown(10_000);
    const next = await eventually(async () => {
      const items = (await api('GET', '/v1/events?limit=50')).body.items as Array<Record<string, unknown>>;
      return items.find((event) => event.toolCallId === 'call-next');
    }, 15_000);
    expect(next).toMatchObject({ status: 'success', descriptionVersion: served.version });
  }, 120_000);
});
