// The MCP gateway's added latency per tools/call: the same official SDK Client calls the same upstream (our math
// server, stdio) directly and through toolcoach-mcp, alternating, in one run. toolcoach itself is an unreachable
// address, so reporting costs what it costs an agent (enqueue; delivery retried in the background).
// Run: npm run pretest (builds mcp-gateway), then node bench/mcp-gateway.bench.js [calls, default 2000]
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const UPSTREAM = [join(ROOT, 'test', 'support', 'mcp-math-server.js')];
const GATEWAY = [join(ROOT, 'mcp-gateway', 'dist', 'cli.js'), '--cache-dir', 'none', '--', process.execPath, ...UPSTREAM];
if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  console.log(`usage: npm run bench:mcp [-- calls]     (builds the SDK and the gateway, then measures; docs/perf.md)
the MCP gateway's added latency per tools/call: the same client calls the same upstream directly and through
toolcoach-mcp, alternating
arguments:
  calls   tools/call requests each way (default 2000)`);
  process.exit(0);
}
const CALLS = Number(process.argv[2] ?? 2000);

async function connect(args) {
  const env = { ...process.env, TOOLCOACH_URL: 'http://127.0.0.1:9', TOOLCOACH_API_KEY: 'bench', TOOLCOACH_POLL_INTERVAL_MS: '0' };
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' }));
  await client.listTools();
  return client;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function main() {
  const direct = await connect(UPSTREAM);
  const gateway = await connect(GATEWAY);
  const times = { direct: [], gateway: [] };
  const call = async (client, into, i) => {
    const started = performance.now();
    await client.callTool({ name: 'factorial', arguments: { n: i % 20 } });
    into.push(performance.now() - started);
  };
  for (let i = 0; i < 200; i++) await call(i % 2 ? direct : gateway, [], i); // warm-up
  for (let i = 0; i < CALLS; i++) {
    await call(direct, times.direct, i);
    await call(gateway, times.gateway, i);
  }
  const row = (name) => {
    const sorted = times[name].sort((a, b) => a - b);
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  };
  const d = row('direct');
  const g = row('gateway');
  console.log(`tools/call over stdio, ${CALLS} calls each, alternating`);
  console.log(`  direct   p50 ${d.p50.toFixed(3)} ms  p99 ${d.p99.toFixed(3)} ms`);
  console.log(`  gateway  p50 ${g.p50.toFixed(3)} ms  p99 ${g.p99.toFixed(3)} ms`);
  console.log(`  added by the gateway: p50 ${(g.p50 - d.p50).toFixed(3)} ms, p99 ${(g.p99 - d.p99).toFixed(3)} ms`);
  await Promise.all([direct.close(), gateway.close()]);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
