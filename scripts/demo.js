// The toolcoach loop in one command (npm run demo, with the server running): a real LangChain.js agent whose scripted
// model makes the classic mistakes, the SDK reports them, the nightly job learns warnings, and the agent's next start
// sees them in its tool descriptions. Set TOOLCOACH_URL and TOOLCOACH_API_KEY to use another server or project.
'use strict';
const { fakeModel } = require('@langchain/core/testing');
const { AIMessage, createAgent, tool } = require('langchain');
const { z } = require('zod');
const { Toolcoach } = require('@toolcoach/sdk');
const { ToolcoachCallbackHandler } = require('@toolcoach/sdk/langchain');

const BASE_URL = process.env.TOOLCOACH_URL ?? 'http://localhost:3000';
const API_KEY = process.env.TOOLCOACH_API_KEY ?? process.env.TOOLCOACH_DEV_KEY ?? 'tc_dev_key';
// The nightly job proposes a warning once a mistake was seen at least 5 times; a few more sessions make it clear.
const SESSIONS = 8;

function mathTools() {
  const primeFactorization = tool(({ number }) => factorize(number), {
    name: 'prime_factorization',
    description: 'Returns the prime factors of a single integer between 2 and 1,000,000.',
    schema: z.object({ number: z.number().int().min(2).max(1_000_000).describe('the integer to factor') }),
  });
  const factorial = tool(
    ({ n }) => {
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return product;
    },
    {
      name: 'factorial',
      description: 'Returns n! for a non-negative integer n.',
      schema: z.object({ n: z.number().int().min(0).describe('n') }),
    },
  );
  return [primeFactorization, factorial];
}

function factorize(value) {
  const factors = [];
  for (let d = 2; value > 1; d++) {
    while (value % d === 0) {
      factors.push(d);
      value /= d;
    }
  }
  return factors;
}

/** What a model typically does: a list where one integer belongs, a factorial too large, then the corrected calls. */
function scriptedModel(session) {
  const a = 12 + session;
  return fakeModel()
    .respondWithTools([
      { name: 'prime_factorization', args: { numbers: [a, a + 6] } },
      { name: 'factorial', args: { n: 100 + session } },
    ])
    .respondWithTools([
      { name: 'prime_factorization', args: { number: a } },
      { name: 'prime_factorization', args: { number: a + 6 } },
      { name: 'factorial', args: { n: 20 } },
    ])
    .respond(new AIMessage(`Done with session ${session}.`));
}

async function api(method, path) {
  const response = await fetch(BASE_URL + path, { method, headers: { authorization: `Bearer ${API_KEY}` } });
  const text = await response.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, body };
}

function printDescriptions(title, tools) {
  console.log(`\n== ${title}`);
  for (const t of tools) console.log(`-- ${t.name}\n${t.description.replace(/^/gm, '   ')}`);
}

async function main() {
  const health = await fetch(`${BASE_URL}/healthz`).catch(() => undefined);
  if (!health?.ok) {
    console.error(
      `The toolcoach server does not answer at ${BASE_URL}. Start it with "npm start" (see README), then run "npm run demo" again.`,
    );
    process.exit(1);
  }
  const tc = new Toolcoach({ baseUrl: BASE_URL, apiKey: API_KEY, agent: 'demo-math-agent', cacheDir: false });
  const tools = await tc.loadTools(mathTools());
  printDescriptions(`Tool descriptions the agent starts with (from: ${tc.descriptionSource})`, tools);

  console.log(`\n== Running ${SESSIONS} agent sessions with a scripted model`);
  const handler = new ToolcoachCallbackHandler(tc);
  for (let session = 1; session <= SESSIONS; session++) {
    const agent = createAgent({ model: scriptedModel(session), tools });
    const { messages } = await agent.invoke(
      { messages: [{ role: 'user', content: 'Factor two numbers and compute a factorial.' }] },
      { callbacks: [handler] },
    );
    const toolMessages = messages.filter((m) => m.tool_call_id);
    const failed = toolMessages.filter((m) => m.status === 'error').length;
    console.log(`   session ${session}: ${toolMessages.length} tool calls, ${failed} failed`);
  }
  const flushed = await tc.flush(10_000);
  console.log(`   reported: ${JSON.stringify(tc.stats())}${flushed.isComplete ? '' : ' (not all delivered!)'}`);

  // The worker categorizes asynchronously; give it a moment before the nightly job reads the day.
  const expected = tc.stats().sent;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await api('GET', '/v1/events?limit=200&agent=demo-math-agent');
    const categorized = (body.items ?? []).filter((e) => e.status === 'success' || e.category);
    if (categorized.length >= Math.min(expected, 200) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const today = new Date().toISOString().slice(0, 10);
  console.log(`\n== Running the nightly job for ${today}`);
  let nightly = await api('POST', `/v1/jobs/nightly?date=${today}`);
  if (nightly.status === 404)
    console.log('   note: this server has no nightly job endpoint (POST /v1/jobs/nightly) yet; descriptions will not change.');
  else {
    // the run is queued for a worker (202): follow it until it has an outcome
    const runDeadline = Date.now() + 60_000;
    while (nightly.status === 202 || ['queued', 'running'].includes(nightly.body.status)) {
      if (Date.now() > runDeadline) throw new Error(`the nightly run did not finish within 60 s: ${JSON.stringify(nightly.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      nightly = await api('GET', `/v1/jobs/${nightly.body.id}`);
    }
    console.log(`   HTTP ${nightly.status}: ${JSON.stringify(nightly.body.counts ?? nightly.body)}`);
  }

  const restarted = new Toolcoach({ baseUrl: BASE_URL, apiKey: API_KEY, agent: 'demo-math-agent', cacheDir: false });
  const after = await restarted.loadTools(mathTools());
  printDescriptions('Tool descriptions the agent sees at its next start', after);
  for (const t of after) {
    console.log(`   ${t.name}: version ${tc.descriptionVersionOf(t.name) ?? '-'} -> ${restarted.descriptionVersionOf(t.name) ?? '-'}`);
  }

  console.log('\n== Success rates reported by the dashboard API (GET /v1/stats/tools)');
  const stats = await api('GET', '/v1/stats/tools');
  if (stats.status === 404) console.log('   note: this server has no GET /v1/stats/tools yet.');
  else if (stats.status !== 200) console.log(`   HTTP ${stats.status}: ${JSON.stringify(stats.body)}`);
  else {
    const rows = stats.body.tools ?? stats.body.items ?? [];
    for (const row of rows) {
      const rate = row.successRate === null || row.successRate === undefined ? '-' : `${(row.successRate * 100).toFixed(1)}%`;
      console.log(`   ${String(row.tool ?? row.name).padEnd(22)} calls ${String(row.calls).padStart(5)}  success ${rate}`);
    }
  }
  await Promise.all([tc.shutdown(), restarted.shutdown()]);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
