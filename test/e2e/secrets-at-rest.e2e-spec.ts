import { startTestApp, TestApp } from '../support/test-app';

// Secrets inside text, at every depth and in every shape an event can carry them, never reach the database nor the
// API's answers; what is not a secret (numbers under token-like keys, ordinary text) is kept.
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

const OPENAI_KEY = 'sk-proj-Q7wErTy9UiOp3AsDfGh5JkL2ZxCvBn8M';
const TOOLCOACH_KEY = 'tc_live_4f9a8b7c6d5e4f3a2b1c';
const GITHUB_TOKEN = `ghp_${'Zz9Yy8Xx7'.repeat(4)}`;
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const SECRETS = [
  'hunter2-in-args',
  'hunter2-in-args-text',
  'n0te-passw0rd',
  'hunter2-in-message',
  'db-pa55-in-metadata',
  'cookie-val-9',
  'escaped-s3cret',
  'hunter2-in-stack',
  'otel-arg-s3cret',
  'otel-exc-s3cret',
  'openai-arg-s3cret',
  OPENAI_KEY,
  TOOLCOACH_KEY,
  GITHUB_TOKEN,
  AWS_KEY,
  JWT,
];
const CONTROLS = ['Paris', 'sunny with light wind', '"max_tokens": 512', 'max_tokens=512', 'temperature'];

async function storedText(ids: string[]): Promise<string> {
  const bodies = await Promise.all(ids.map((id) => t.storedEvent(id)));
  const { rows } = await t.db.sql.query('SELECT to_jsonb(e)::text AS row FROM events e WHERE project_id = $1', [t.projectId]);
  return `${JSON.stringify(bodies)}\n${rows.map((row: { row: string }) => row.row).join('\n')}`;
}

function expectNoSecret(text: string) {
  for (const secret of SECRETS) expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
}

describe('secrets inside stored text', () => {
  it('redacts them in arguments, results, content blocks, error messages and stacks, metadata and the prompt', async () => {
    const tag = `s-${Date.now()}`;
    const events = [
      {
        // the probe: password=... inside an argument object's string value
        id: `${tag}-args`,
        tool: 'login',
        status: 'success',
        arguments: { user: 'bob', options: { note: 'connect with password=hunter2-in-args please', city: 'Paris', max_tokens: 512 } },
        result: { ok: true },
      },
      {
        // the probe: JSON text inside an MCP result's content block, and an environment dump like server-everything's
        id: `${tag}-content`,
        tool: 'get_weather',
        status: 'success',
        arguments: '{"city": "Paris", "auth": {"password": "hunter2-in-args-text"}, "max_tokens": 512}',
        result: {
          content: [
            {
              type: 'text',
              text: JSON.stringify({ api_key: OPENAI_KEY, city: 'Paris', conditions: 'sunny with light wind', max_tokens: 512 }),
            },
            { type: 'text', text: JSON.stringify({ TOOLCOACH_API_KEY: TOOLCOACH_KEY, HOME: '/home/u' }, null, 2) },
            { type: 'text', text: JSON.stringify(JSON.stringify({ client_secret: 'escaped-s3cret', temperature: 21 })) },
          ],
        },
      },
      {
        // the probe: {"api_key": ...} and password=... inside an error message; a stack and a type as well
        id: `${tag}-error`,
        tool: 'deploy',
        status: 'error',
        arguments: { repo: 'app', token_note: `using ${GITHUB_TOKEN} from the env`, max_tokens: 512 },
        error: {
          type: 'AuthError',
          message: `request failed: {"api_key": "${OPENAI_KEY}", "user": "bob"} then password=hunter2-in-message; max_tokens=512`,
          stack: `AuthError: Authorization: Bearer ${JWT}\n    at login (auth.js:1:1) password: "hunter2-in-stack"`,
        },
      },
      {
        id: `${tag}-metadata`,
        tool: 'query',
        status: 'success',
        arguments: { sql: 'select 1', 'note password=n0te-passw0rd': true },
        result: [{ row: `aws ${AWS_KEY} in config` }],
        metadata: { db: 'postgres://app:db-pa55-in-metadata@db.internal:5432/main', headers: ['Cookie: session=cookie-val-9'] },
        prompt: `Use ${GITHUB_TOKEN} to open the PR about the temperature in Paris`,
      },
    ];
    const response = await t.request('POST', '/v1/events', { body: { events } });
    expect(response.status).toBe(202);
    expect(response.body.rejected).toEqual([]);
    const text = await storedText(events.map((event) => event.id));
    expectNoSecret(text);
    for (const kept of CONTROLS) expect(text).toContain(kept);
    const stored = await t.storedEvent(`${tag}-args`);
    expect(stored.arguments.options).toEqual({ note: 'connect with password=[REDACTED] please', city: 'Paris', max_tokens: 512 });
  });

  it('redacts them in OTLP span attributes and in provider-shaped events', async () => {
    const traceId = '6c9fe0a8a7103c4b2e9f1d0c8b7a6f5e';
    const spans = [
      {
        traceId,
        spanId: '1a2b3c4d5e6f7a8b',
        name: 'execute_tool login',
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
          { key: 'gen_ai.tool.name', value: { stringValue: 'login' } },
          { key: 'gen_ai.tool.call.arguments', value: { stringValue: '{"user": "bob", "note": "secret: otel-arg-s3cret"}' } },
          {
            key: 'gen_ai.tool.call.result',
            value: { stringValue: JSON.stringify({ content: [{ type: 'text', text: `{"token":"${JWT}"}` }] }) },
          },
        ],
      },
      {
        traceId,
        spanId: '2b3c4d5e6f7a8b9c',
        name: 'execute_tool deploy',
        status: { code: 2 },
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
          { key: 'gen_ai.tool.name', value: { stringValue: 'deploy' } },
        ],
        events: [
          {
            name: 'exception',
            attributes: [
              { key: 'exception.type', value: { stringValue: 'AuthError' } },
              { key: 'exception.message', value: { stringValue: 'login refused for credentials=otel-exc-s3cret' } },
            ],
          },
        ],
      },
    ];
    const traces = await t.request('POST', '/v1/traces', { body: { resourceSpans: [{ scopeSpans: [{ spans }] }] } });
    expect(traces.status).toBe(200);
    const openai = {
      openai: {
        toolCall: {
          id: `call_${Date.now()}`,
          type: 'function',
          function: { name: 'login', arguments: '{"user": "bob", "password": "openai-arg-s3cret", "max_tokens": 512}' },
        },
      },
    };
    const events = await t.request('POST', '/v1/events', { body: { events: [openai] } });
    expect(events.status).toBe(202);
    const ids = [`otel:${traceId}:1a2b3c4d5e6f7a8b`, `otel:${traceId}:2b3c4d5e6f7a8b9c`, ...events.body.ids];
    const text = await storedText(ids);
    expectNoSecret(text);
    expect(text).toContain('credentials=[REDACTED]');
    expect(text).toContain('"max_tokens": 512');
  });
});
