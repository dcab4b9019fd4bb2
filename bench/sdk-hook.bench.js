// The agent-side cost of the SDK per tool call: the LangChain hook (handleToolStart + handleToolEnd) and a manual
// report(), with the server down (connections refused) and up (a local server answering 202). Run: npm run bench:sdk.
// Target: p50 under 20 µs per call in every case. Calls run in bursts with the event loop free in between, so the
// reporter's background batching and sending interleave with the measured calls as they would in an agent.
// The guard (loadTools(tools, { guard: true })): one check of a call's arguments against a typical schema with a learned
// rename and limit, for a valid, a corrected and a refused call. Target: p50 under 50 µs per check.
'use strict';
const { createServer } = require('node:http');
const { setImmediate: nextTurn } = require('node:timers/promises');
const { ArgumentGuard, Toolcoach } = require('@toolcoach/sdk');
const { ToolcoachCallbackHandler } = require('@toolcoach/sdk/langchain');

if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  console.log(`usage: npm run bench:sdk     (builds the SDK, then measures; docs/perf.md)
the SDK's cost per tool call (LangChain hook, report(), the guard's check), with the server down and up
environment:
  BENCH_CALLS   calls measured per case (default 50000)`);
  process.exit(0);
}
const CALLS = Number(process.env.BENCH_CALLS ?? 50_000);
const WARMUP = 5_000;
const BURST = 100;
const TARGET_P50_US = 20;
const GUARD_TARGET_P50_US = 50;
// A typical tool: a few typed arguments with bounds, an enum, one required, no others allowed (as zod emits them).
const GUARD_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    number: { type: 'integer', minimum: 2, maximum: 1000000 },
    format: { type: 'string', enum: ['list', 'power'] },
    limit: { type: 'number', exclusiveMinimum: 0 },
  },
  required: ['number'],
  additionalProperties: false,
};
const GUARD_SECTION = {
  version: 2,
  policy: 'correct',
  schema: 'parameters',
  renames: [{ wrong: 'num', intended: 'number', count: 12 }],
  limits: [{ path: '/number', bound: 'upper', value: 500000, isInclusive: false, reason: 'timeout', evidenceCount: 9 }],
};
const serialized = { lc: 1, type: 'not_implemented', id: ['langchain', 'tools', 'DynamicStructuredTool'] };
const metadata = { agent: 'math-agent', langgraph_node: 'tools', langgraph_step: 2, versions: { '@langchain/core': '1.2.13' } };
const tags = ['seq:step:1'];

async function measure(name, callOnce) {
  for (let i = 0; i < WARMUP; i++) callOnce(i);
  await nextTurn();
  const samples = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const started = process.hrtime.bigint();
    callOnce(i);
    samples[i] = Number(process.hrtime.bigint() - started) / 1000;
    if (i % BURST === BURST - 1) await nextTurn();
  }
  samples.sort();
  const at = (q) => samples[Math.min(CALLS - 1, Math.floor(q * CALLS))];
  return { name, p50: at(0.5), p99: at(0.99), max: samples[CALLS - 1] };
}

function hookCall(handler) {
  return (i) => {
    const runId = `run-${i}`;
    handler.handleToolStart(serialized, '{"number":360}', runId, 'parent', tags, metadata, 'prime_factorization', `call-${i}`);
    handler.handleToolEnd({ content: '[2,2,2,3,3,5]', tool_call_id: `call-${i}`, status: 'success' }, runId);
  };
}

function reportCall(tc) {
  return (i) =>
    tc.report({
      tool: 'prime_factorization',
      status: 'success',
      arguments: { number: 360 },
      result: [2, 2, 2, 3, 3, 5],
      durationMs: 0.2,
      toolCallId: `call-${i}`,
    });
}

async function scenario(label, baseUrl) {
  const options = {
    baseUrl,
    apiKey: 'tc_bench',
    cacheDir: false,
    flushOnExit: false,
    logger: { warn() {} },
    initialBackoffMs: 50,
    maxBackoffMs: 200,
  };
  const hookClient = new Toolcoach(options);
  const hook = await measure(`hook start+end, ${label}`, hookCall(new ToolcoachCallbackHandler(hookClient)));
  const reportClient = new Toolcoach(options);
  const report = await measure(`report(), ${label}`, reportCall(reportClient));
  await Promise.all([hookClient.shutdown(2000), reportClient.shutdown(2000)]);
  return [
    { ...hook, stats: hookClient.stats() },
    { ...report, stats: reportClient.stats() },
  ];
}

async function main() {
  const down = await listen((req, res) => res.end());
  const downUrl = `http://127.0.0.1:${down.address().port}`;
  await new Promise((resolve) => down.close(resolve));

  let received = 0;
  const up = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":1,"rejected":[]}');
    });
  });
  const results = [...(await scenario('server down', downUrl)), ...(await scenario('server up', `http://127.0.0.1:${up.address().port}`))];
  up.close();

  console.log(`SDK hook cost per tool call (${CALLS} calls each, µs):`);
  for (const r of results) {
    const verdict = r.p50 < TARGET_P50_US ? 'ok' : `OVER ${TARGET_P50_US} µs`;
    console.log(
      `  ${r.name.padEnd(30)} p50 ${r.p50.toFixed(2).padStart(6)}  p99 ${r.p99.toFixed(2).padStart(7)}  max ${r.max.toFixed(0).padStart(6)}  [${verdict}]  sent ${r.stats.sent}, dropped ${r.stats.dropped}`,
    );
  }
  console.log(`  (local server received ${received} batches)`);

  const guard = new ArgumentGuard('prime_factorization', GUARD_SCHEMA, GUARD_SECTION, 'correct');
  const checks = [
    await measure('guard check, valid', () => guard.check({ number: 360, format: 'list' })),
    await measure('guard check, corrected', () => guard.check({ num: ['360'], format: 'list' })),
    await measure('guard check, refused', () => guard.check({ numbers: [12, 15, 18] })),
  ];
  console.log(`Guard cost per tool call (${CALLS} checks each, µs):`);
  for (const r of checks) {
    const verdict = r.p50 < GUARD_TARGET_P50_US ? 'ok' : `OVER ${GUARD_TARGET_P50_US} µs`;
    console.log(
      `  ${r.name.padEnd(30)} p50 ${r.p50.toFixed(2).padStart(6)}  p99 ${r.p99.toFixed(2).padStart(7)}  max ${r.max.toFixed(0).padStart(6)}  [${verdict}]`,
    );
  }
  if (results.some((r) => r.p50 >= TARGET_P50_US) || checks.some((r) => r.p50 >= GUARD_TARGET_P50_US)) process.exitCode = 1;
}

function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

main();
