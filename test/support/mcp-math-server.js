// A small upstream MCP server of our own, on the official SDK, with the two tools whose mistakes the demo teaches:
// prime_factorization takes one `number` (models pass `numbers`), factorial overflows above 20. It also has a
// resource, a prompt and tools that report progress and wait to be cancelled, so a gateway's pass-through of the rest
// of the protocol shows.
// stdio by default; `--http` serves Streamable HTTP on a port the OS picks and prints `listening <url>` on stdout.
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { isInitializeRequest } = require('@modelcontextprotocol/sdk/types.js');
const { randomUUID } = require('node:crypto');
const { createServer } = require('node:http');
const { z } = require('zod');

function createMathServer() {
  const server = new McpServer({ name: 'math-upstream', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'prime_factorization',
    {
      description: 'Returns the prime factors of a single integer between 2 and 1,000,000.',
      inputSchema: { number: z.number().int().min(2).max(1_000_000) },
    },
    async ({ number }) => {
      const factors = [];
      let rest = number;
      for (let p = 2; p * p <= rest; p++) {
        while (rest % p === 0) {
          factors.push(p);
          rest /= p;
        }
      }
      if (rest > 1) factors.push(rest);
      return { content: [{ type: 'text', text: JSON.stringify(factors) }] };
    },
  );
  server.registerTool(
    'factorial',
    { description: 'Returns n! for a non-negative integer n.', inputSchema: { n: z.number().int().min(0) } },
    async ({ n }) => {
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
      let result = 1;
      for (let i = 2; i <= n; i++) result *= i;
      return { content: [{ type: 'text', text: String(result) }] };
    },
  );
  server.registerTool(
    'count_slowly',
    { description: 'Counts to `to`, reporting progress on the way.', inputSchema: { to: z.number().int().min(1).max(10) } },
    async ({ to }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= to; i++) {
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: to } });
        }
      }
      await server.sendLoggingMessage({ level: 'info', data: `counted to ${to}` }, extra.sessionId);
      return { content: [{ type: 'text', text: `counted to ${to}` }] };
    },
  );
  // Progress, then a wait only the client ends: by cancelling the request or by calling `release`. The client has
  // every notification before the answer exists, so a test of the pass-through does not depend on how the client SDK
  // orders a response read together with notifications (it handles the response first: typescript-sdk#2580).
  const waiting = new Set();
  let cancelledWaits = 0;
  server.registerTool(
    'count_and_wait',
    {
      description: 'Counts to `to` reporting progress, then waits until released or cancelled.',
      inputSchema: { to: z.number().int().min(1).max(10) },
    },
    async ({ to }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= to; i++) {
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: to } });
        }
      }
      await new Promise((resolve) => {
        const release = () => {
          waiting.delete(release);
          resolve();
        };
        waiting.add(release);
        extra.signal.addEventListener('abort', () => {
          cancelledWaits++;
          release();
        });
      });
      return { content: [{ type: 'text', text: `counted to ${to}` }] };
    },
  );
  server.registerTool(
    'release',
    { description: 'Ends every count_and_wait call still waiting; says how many ended by a cancellation so far.' },
    async () => {
      for (const release of [...waiting]) release();
      return { content: [{ type: 'text', text: `cancelled ${cancelledWaits}` }] };
    },
  );
  server.registerResource('primes', 'math://primes', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: '2 3 5 7 11 13' }],
  }));
  server.registerPrompt('factor', { argsSchema: { number: z.string() } }, ({ number }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Factor ${number}.` } }],
  }));
  return server;
}

async function main() {
  if (!process.argv.includes('--http')) {
    await createMathServer().connect(new StdioServerTransport());
    return;
  }
  const sessions = new Map();
  const http = createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const id = request.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      await createMathServer().connect(transport);
    }
    if (!transport) {
      response.writeHead(404).end();
      return;
    }
    await transport.handleRequest(request, response, body);
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`));
}

main().catch((error) => {
  process.stderr.write(`math-upstream: ${error.stack}\n`);
  process.exit(1);
});
