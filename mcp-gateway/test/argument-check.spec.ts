import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Toolcoach } from '@toolcoach/sdk';
import { ArgumentCheck } from '../src/argument-check';

// Issue 33: toolcoach's `checked: false` and any 4xx mean "not checked": the gateway then checks the arguments against
// the schema the upstream lists, and lets a call through unchecked only when it has nothing to check it with.

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

describe('ArgumentCheck when toolcoach did not check', () => {
  let server: Server;
  let answer: { status: number; body: unknown };
  let toolcoach: Toolcoach;
  const warn = jest.fn();

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    toolcoach = new Toolcoach({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'tc_test',
      cacheDir: false,
      flushOnExit: false,
      logger: { warn: () => {} },
    });
  });
  afterAll(async () => {
    await toolcoach.shutdown(100);
    await new Promise((resolve) => server.close(resolve));
  });

  const notChecked = [
    [
      'checked: false',
      { status: 200, body: { valid: true, errors: [], suggestion: null, checked: false, reason: 'schema too expensive' } },
    ],
    ['a 400', { status: 400, body: { error: { code: 'invalid_body', message: 'Invalid body', details: [] } } }],
    ['a 413', { status: 413, body: { error: { code: 'body_too_large', message: 'too large', details: [] } } }],
  ] as const;

  it.each(notChecked)('after %s, refuses what the upstream schema refuses, in the same words', async (_, notCheckedAnswer) => {
    answer = notCheckedAnswer;
    const check = new ArgumentCheck(toolcoach, (tool) => (tool === 'weather' ? weather : undefined), { warn });
    const refusal = await check.refusal('weather', JSON.parse('{"__proto__": {"x": 1}, "town": "Paris"}'));
    expect(refusal).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^Invalid arguments for tool weather \(not executed\):\n- .*'city' is required[\s\S]*'__proto__' is not a parameter/,
          ),
        },
      ],
    });
    expect(await check.refusal('weather', { city: 'Paris' })).toBeUndefined();
  });

  it('lets a call through when nothing can check it, and says so', async () => {
    answer = notChecked[1][1];
    warn.mockClear();
    const check = new ArgumentCheck(toolcoach, () => undefined, { warn });
    expect(await check.refusal('weather', { town: 'Paris' })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^toolcoach-mcp: arguments of weather not checked \(not checked: HTTP 400/));
  });

  it('refuses with toolcoach words when toolcoach checked', async () => {
    answer = {
      status: 200,
      body: {
        valid: false,
        errors: [
          { category: 'argument_mismatch', subtype: 'unknown_argument', path: '/town', message: "'town' is not a parameter of this tool" },
        ],
        suggestion: { city: 'Paris' },
        checked: true,
        reason: null,
      },
    };
    const check = new ArgumentCheck(toolcoach, () => weather, { warn });
    expect((await check.refusal('weather', { town: 'Paris' }))?.content[0].text).toBe(
      'Invalid arguments for tool weather (not executed):\n- \'town\' is not a parameter of this tool\nCall it with: {"city":"Paris"}',
    );
  });
});
