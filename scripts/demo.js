// The toolcoach loop in one command (npm run demo, with the server running), on the project's policies as they are: a
// real LangChain.js agent whose scripted model reads its tool descriptions makes the classic mistakes (phase 1); the
// nightly job learns warnings and starts them as canaries (docs/rollout.md: every caller gets the canary version until
// the next nightly); the agent restarts with the new descriptions and makes fewer mistakes (phase 2); the nightly job
// decides each canary on its numbers and measures each warning's effect.
// TOOLCOACH_URL (alias TOOLCOACH_BASE_URL) and TOOLCOACH_API_KEY choose the server and project; without a key the demo
// uses the server's development key (TOOLCOACH_DEV_KEY, default tc_dev_key).
'use strict';
if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  console.log(`usage: npm run demo     (with the server running: npm start; docs/getting-started.md)
a LangChain.js agent makes the classic tool-call mistakes, the nightly job learns warnings, the agent restarts with
them, and each warning's effect is measured
environment:
  TOOLCOACH_URL        the server (default http://localhost:3000; TOOLCOACH_BASE_URL is an older name)
  TOOLCOACH_API_KEY    a project whose demo tools carry no warnings yet (default: the server's development key,
                       TOOLCOACH_DEV_KEY, else tc_dev_key); npm run cli -- project:create demo-2 makes a fresh one`);
  process.exit(0);
}
const { createAgent } = require('langchain');
const { Toolcoach } = require('@toolcoach/sdk');
const { ToolcoachCallbackHandler } = require('@toolcoach/sdk/langchain');
const { mathTools, ReaderModel, MODEL_NAME } = require('./demo-agent');

const env = (...names) => names.map((name) => process.env[name]?.trim()).find((value) => value);
const BASE_URL = (env('TOOLCOACH_URL', 'TOOLCOACH_BASE_URL') ?? 'http://localhost:3000').replace(/\/+$/, '');
const API_KEY = env('TOOLCOACH_API_KEY', 'TOOLCOACH_DEV_KEY') ?? 'tc_dev_key';
const AGENT = 'demo-math-agent';
// A canary is decided at its first look once each side has 100 calls (the rollout policy's minCalls) or the evidence is
// clear; 40 sessions give each tool that many calls in a phase, so the second nightly decides every canary.
const SESSIONS_PER_PHASE = 40;
const TOOL_NAMES = mathTools().map((t) => t.name);

async function api(method, path, json) {
  const headers = { authorization: `Bearer ${API_KEY}`, ...(json ? { 'content-type': 'application/json' } : {}) };
  const response = await fetch(BASE_URL + path, { method, headers, body: json ? JSON.stringify(json) : undefined });
  const text = await response.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, body };
}

async function until(what, timeoutMs, probe) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Runs one phase of agent sessions; returns what the agent saw and did. */
async function runPhase(title) {
  const tc = new Toolcoach({ baseUrl: BASE_URL, apiKey: API_KEY, agent: AGENT, cacheDir: false, flushIntervalMs: 200 });
  const tools = await tc.loadTools(mathTools());
  if (tc.descriptionSource !== 'server') throw new Error(`could not load the tool descriptions from ${BASE_URL}`);
  const versions = tools.map((t) => `${t.name} v${tc.descriptionVersionOf(t.name)}`).join(', ');
  console.log(`\n== ${title} (${versions})`);
  const startedAt = new Date().toISOString();
  const handler = new ToolcoachCallbackHandler(tc);
  const failures = new Map();
  let calls = 0;
  for (let session = 1; session <= SESSIONS_PER_PHASE; session++) {
    const agent = createAgent({ model: new ReaderModel(session), tools });
    const { messages } = await agent.invoke(
      { messages: [{ role: 'user', content: 'Factor two numbers and compute two factorials.' }] },
      { callbacks: [handler], metadata: { demoSession: session } },
    );
    for (const message of messages.filter((m) => m.getType() === 'tool')) {
      calls += 1;
      if (message.status === 'error') failures.set(message.name, (failures.get(message.name) ?? 0) + 1);
    }
  }
  const flushed = await tc.shutdown(10_000);
  const stats = tc.stats();
  if (!flushed.isComplete || stats.rejected > 0) throw new Error(`not every event was delivered: ${JSON.stringify(stats)}`);
  const mistakes = [...failures.values()].reduce((sum, n) => sum + n, 0);
  const byTool = [...failures].map(([tool, n]) => `${tool} ${n}`).join(', ');
  console.log(
    `   ${SESSIONS_PER_PHASE} sessions, ${calls} tool calls, ${mistakes} failed${byTool ? ` (${byTool})` : ''}; ${stats.sent} events reported`,
  );
  await waitUntilStored(startedAt, stats.sent);
  return { calls, mistakes };
}

/** The worker stores events asynchronously; the nightly job must see all of them. */
async function waitUntilStored(since, expected) {
  await until(`storing ${expected} events`, 60_000, async () => {
    let stored = 0;
    let cursor;
    do {
      const page = await api(
        'GET',
        `/v1/events?agent=${AGENT}&from=${since}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (page.status !== 200) throw new Error(`GET /v1/events answered ${page.status}: ${JSON.stringify(page.body)}`);
      stored += page.body.items.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    return stored >= expected;
  });
}

async function runNightly(day) {
  let run = await api('POST', `/v1/jobs/nightly?date=${day}`);
  if (run.status !== 202) throw new Error(`POST /v1/jobs/nightly answered ${run.status}: ${JSON.stringify(run.body)}`);
  run = await until('the nightly run', 120_000, async () => {
    const current = await api('GET', `/v1/jobs/${run.body.id}`);
    return ['queued', 'running'].includes(current.body.status) ? undefined : current;
  });
  if (run.body.status !== 'succeeded') throw new Error(`the nightly run ended ${run.body.status}: ${JSON.stringify(run.body)}`);
  return run.body.counts;
}

async function activeWarnings(tool) {
  const { body } = await api('GET', `/v1/tools/${tool}/warnings`);
  return (body.warnings ?? body.items ?? []).filter((w) => w.status === 'active');
}

const percent = (rate) => (rate === null || rate === undefined ? '-' : `${Math.round(rate * 100)}%`);
const interval = (ci) => (ci ? `[${percent(ci[0])}-${percent(ci[1])}]` : '');
const side = (s) => (s ? `${s.mistakes}/${s.calls} = ${percent(s.rate)} ${interval(s.ci95)}` : '-');

function printEffects(recommendations) {
  const rows = [['tool', 'warning', 'mistakes without warning', 'mistakes with warning', 'verdict']];
  const sorted = [...recommendations].sort((a, b) => a.tool.localeCompare(b.tool) || a.kind.localeCompare(b.kind));
  for (const r of sorted) {
    rows.push([r.tool, r.kind, side(r.effect?.withoutWarning), side(r.effect?.withWarning), r.effect?.verdict ?? 'not measured']);
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows)
    console.log(
      `   ${row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd()}`,
    );
}

async function main() {
  const health = await fetch(`${BASE_URL}/healthz`).catch(() => undefined);
  if (!health?.ok) {
    console.error(
      `The toolcoach server does not answer at ${BASE_URL}. Start it with "npm start" (see docs/getting-started.md), then run "npm run demo" again.`,
    );
    process.exit(1);
  }
  for (const tool of TOOL_NAMES) {
    if ((await activeWarnings(tool)).length > 0) {
      console.error(
        `The tools of this project already carry warnings (an earlier demo run?), so phase 1 would show no mistakes.\n` +
          `Run the demo on an empty project: npm run cli -- project:create demo-2, then TOOLCOACH_API_KEY=<its key> npm run demo`,
      );
      process.exit(1);
    }
  }
  // both phases and both nightly runs are one UTC day; a start just before midnight waits for the next day
  const msToMidnight = 86_400_000 - (Date.now() % 86_400_000);
  if (msToMidnight < 90_000) {
    console.log(`(waiting ${Math.ceil(msToMidnight / 1000)} s for the UTC day to change, so both phases fall on one day)`);
    await new Promise((resolve) => setTimeout(resolve, msToMidnight + 1000));
  }
  const today = new Date().toISOString().slice(0, 10);
  console.log(`toolcoach demo against ${BASE_URL}: agent ${AGENT}, model ${MODEL_NAME}, ${SESSIONS_PER_PHASE} sessions per phase`);

  const { body: policy } = await api('GET', '/v1/rollout/policy');
  console.log(
    policy.enabled
      ? `(guarded rollout is on, ${policy.design}: each learned warning starts as a canary that the next nightly decides)`
      : '(guarded rollout is off for this project: every learned warning is served to everyone at once)',
  );
  await runPhases(today);
}

/** What the nightly decided of each canary of the demo's tools, one line each. */
async function printCanaries() {
  const { body } = await api('GET', '/v1/rollout/canaries?limit=50');
  for (const canary of (body.items ?? []).filter((c) => TOOL_NAMES.includes(c.tool)).reverse()) {
    const numbers = canary.decision
      ? `: mistakes ${side(canary.decision.canary)} with it, ${side(canary.decision.previous)} without`
      : ` (${canary.state?.waitingFor ?? 'not looked at yet'})`;
    console.log(`   ${canary.tool} v${canary.canaryVersion} against v${canary.previousVersion}: ${canary.status}${numbers}`);
  }
}

async function runPhases(today) {
  const before = await runPhase('Phase 1: the agent starts with the tools as written');

  const first = await runNightly(today);
  console.log(`\n== Nightly job for ${today}: ${first.recommendations} recommendations, ${first.applied} applied as warnings`);
  for (const tool of TOOL_NAMES) {
    for (const warning of await activeWarnings(tool)) console.log(`   ${tool}: ${warning.text.split('\n')[0].slice(0, 110)}`);
  }
  await printCanaries();

  const after = await runPhase('Phase 2: the agent restarts and loads the learned descriptions');

  const second = await runNightly(today);
  console.log(`\n== Nightly job again: ${second.canariesPromoted} canaries promoted, ${second.canariesRolledBack} rolled back`);
  await printCanaries();
  const { body } = await api('GET', '/v1/recommendations?status=applied&limit=100');
  const ours = (body.items ?? []).filter((r) => TOOL_NAMES.includes(r.tool));
  console.log(`\n== Nightly job again: the measured effect of each warning (${second.effectsMeasured} measured; 95% intervals)`);
  printEffects(ours);
  console.log(`\n   failed tool calls: phase 1 ${before.mistakes}/${before.calls}, phase 2 ${after.mistakes}/${after.calls}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
