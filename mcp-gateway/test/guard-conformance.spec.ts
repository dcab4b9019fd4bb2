import { readFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type GuardConformanceCase, type GuardConformanceTable, guardSectionOf } from '@toolcoach/core';
import { Toolcoach } from '@toolcoach/sdk';
import { ArgumentCheck } from '../src/argument-check';
import { LiveDescriptions } from '../src/live-descriptions';

// The gateway's --check-arguments held to the guard's contract (test/fixtures/guard-conformance.json): the tools are
// loaded as the gateway loads them, from a registry that serves each case's guard section in the case's mode, and each
// call is checked where the gateway is, with no validate request.
const { schemas, cases } = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'guard-conformance.json'), 'utf8'),
) as GuardConformanceTable;

/** A registry that serves one case's tool: registration accepted, the raw list with the case's guard section. */
function registryFor(testCase: () => GuardConformanceCase, requests: string[]) {
  return (request: IncomingMessage, response: ServerResponse) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => {
      const served = testCase();
      const tool = {
        name: served.tool,
        version: 1,
        description: served.tool,
        baseDescription: served.tool,
        warnings: [],
        parameters: schemas[served.tool],
        guard: guardSectionOf(served),
      };
      const body = request.url === '/v1/tools?format=raw' ? { tools: [tool] } : { tools: [] };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  };
}

describe('the gateway argument check against the guard conformance table', () => {
  let server: Server;
  let current: GuardConformanceCase;
  const requests: string[] = [];
  let baseUrl: string;

  beforeAll(async () => {
    server = createServer(registryFor(() => current, requests));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', async (_name, testCase) => {
    current = testCase;
    const toolcoach = new Toolcoach({ baseUrl, apiKey: 'tc_test', cacheDir: false, flushOnExit: false, logger: { warn: () => {} } });
    const descriptions = new LiveDescriptions(toolcoach, { baseUrl, apiKey: 'tc_test', pollIntervalMs: 0, isGuarded: true });
    try {
      await descriptions.serve([{ name: testCase.tool, description: testCase.tool, inputSchema: schemas[testCase.tool] }]);
      requests.length = 0;
      const { refusal, correction } = new ArgumentCheck(toolcoach).check(testCase.tool, testCase.arguments);
      const outcome: Record<string, unknown> = refusal
        ? { outcome: 'refused', text: refusal.content[0].text }
        : correction
          ? { outcome: 'corrected', corrected: correction.corrected }
          : { outcome: 'pass' };
      const { valid: _valid, ...expected } = testCase.expected;
      expect(outcome).toEqual(expected);
      // checked where the gateway is: no validate round trip
      expect(requests).toEqual([]);
    } finally {
      descriptions.close();
      await toolcoach.shutdown(100);
    }
  });

  it('checks against the schema the upstream lists when toolcoach cannot be reached', async () => {
    const toolcoach = new Toolcoach({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'tc_test',
      cacheDir: false,
      flushOnExit: false,
      logger: { warn: () => {} },
    });
    const descriptions = new LiveDescriptions(toolcoach, {
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'tc_test',
      pollIntervalMs: 0,
      isGuarded: true,
    });
    try {
      await descriptions.serve([{ name: 'prime', inputSchema: schemas.prime }]);
      const check = new ArgumentCheck(toolcoach);
      expect(check.check('prime', { number: [12, 30] }).refusal?.content[0].text).toBe(
        "prime was not called: 'number' must be integer, not an array: pass one integer per call: call this tool once per item, for each of 12, 30",
      );
      expect(check.check('prime', { numbers: 12 }).correction?.corrected).toEqual({ number: 12 });
      expect(check.check('prime', { number: 12 })).toEqual({});
    } finally {
      descriptions.close();
      await toolcoach.shutdown(100);
    }
  });
});
