import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, startTestApp, TestApp, untilWorkerIdle } from '../support/test-app';

const FIXTURES = join(__dirname, '..', 'fixtures', 'otel');
const fixture = JSON.parse(readFileSync(join(FIXTURES, 'genai-openinference-tool-spans.json'), 'utf8'));

const LANGGRAPH_TYPE_ERROR =
  "Error invoking tool 'add' with kwargs {'a': 'x', 'b': 2} with error:\n" +
  ' a: Input should be a valid integer, unable to parse string as an integer\n' +
  ' Please fix the error and try again.';

interface ExportOutcome {
  code: number;
  error: string | null;
  spans: Array<{ name: string; traceId: string; spanId: string }>;
}

/** Runs the real OpenTelemetry SDK + OTLP/HTTP JSON exporter against `url` (see the script for why in a child). */
async function exportAgentSpans(url: string, apiKey: string): Promise<ExportOutcome> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(FIXTURES, 'export-tool-spans.js'), url, apiKey], {
    timeout: 20_000,
  });
  return JSON.parse(stdout) as ExportOutcome;
}

describe('POST /v1/traces (OTLP/HTTP JSON)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const storedEvents = (tool: string, count: number) =>
    eventually(async () => {
      const response = await t.request('GET', `/v1/events?tool=${tool}`);
      const events = response.body?.items as Array<Record<string, unknown>> | undefined;
      return events && events.length >= count && events.every((e) => e.status === 'success' || e.category) ? events : undefined;
    });

  it('turns the tool spans the real OTLP exporter sends into categorized events', async () => {
    const outcome = await exportAgentSpans(`${t.baseUrl}/v1/traces`, t.apiKey);
    expect(outcome.error).toBeNull();
    expect(outcome.code).toBe(0); // ExportResultCode.SUCCESS

    const byName = Object.fromEntries(outcome.spans.map((s) => [s.name, s]));
    const [weather] = await storedEvents('get_weather', 1);
    const { traceId, spanId } = byName['execute_tool get_weather'];
    expect(weather).toMatchObject({
      id: `otel:${traceId}:${spanId}`,
      status: 'success',
      arguments: { city: 'Paris' },
      result: { tempC: 21 },
      toolCallId: 'call_ok_1',
      traceId,
      runId: spanId,
      agent: 'weather-agent',
      framework: 'weather-agent-tools',
    });
    expect(weather.durationMs).toBe(42);

    const [factorial] = await storedEvents('factorial', 1);
    expect(factorial).toMatchObject({
      status: 'error',
      arguments: { n: 25 },
      error: { type: 'OverflowError', message: 'Factorial calculation overflow for n=25' },
      category: 'overflow',
    });
    const [add] = await storedEvents('add', 1);
    expect(add).toMatchObject({
      status: 'error',
      toolCallId: 'call_add_1',
      error: { message: LANGGRAPH_TYPE_ERROR },
      category: 'argument_mismatch',
      subtype: 'type_mismatch',
      argumentPath: '/a',
    });
  });

  it('answers {} for the captured exporter payload and counts the spans it ignored', async () => {
    const response = await t.request('POST', '/v1/traces', { body: fixture });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
    expect(response.headers.get('toolcoach-tool-spans')).toBe('3');
    expect(response.headers.get('toolcoach-ignored-spans')).toBe('2');
  });

  it('never stores a span twice when an exporter retries the same export', async () => {
    const body = JSON.parse(JSON.stringify(fixture));
    body.resourceSpans[0].scopeSpans[0].spans.forEach(
      (span: { traceId: string; attributes: Array<{ key: string; value: { stringValue?: string } }> }) => {
        span.traceId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
        for (const attribute of span.attributes) {
          if (attribute.key === 'gen_ai.tool.name' && attribute.value.stringValue === 'get_weather')
            attribute.value.stringValue = 'retried_tool';
        }
      },
    );
    expect((await t.request('POST', '/v1/traces', { body })).status).toBe(200);
    expect((await t.request('POST', '/v1/traces', { body })).status).toBe(200);
    await untilWorkerIdle(t);
    expect(await storedEvents('retried_tool', 1)).toHaveLength(1);
  });

  it('answers partialSuccess naming each tool span it could not take', async () => {
    const span = (name: string, attributes: unknown[]) => ({
      traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      spanId: name.padEnd(16, '0'),
      name,
      startTimeUnixNano: '1795168800000000000',
      endTimeUnixNano: '1795168800001000000',
      attributes,
    });
    const exec = { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } };
    const body = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span('a1', [exec, { key: 'gen_ai.tool.name', value: { stringValue: 'fine_tool' } }]),
                span('a2', [exec]),
                span('a3', [exec, { key: 'gen_ai.tool.name', value: { stringValue: 'x'.repeat(300) } }]),
              ],
            },
          ],
        },
      ],
    };
    const response = await t.request('POST', '/v1/traces', { body });
    expect(response.status).toBe(200);
    expect(response.body.partialSuccess.rejectedSpans).toBe(2);
    expect(response.body.partialSuccess.errorMessage).toBe(
      '/resourceSpans/0/scopeSpans/0/spans/1: has no gen_ai.tool.name (or tool.name) attribute; ' +
        '/resourceSpans/0/scopeSpans/0/spans/2: /tool must NOT have more than 200 characters',
    );
    await storedEvents('fine_tool', 1);
  });

  it('answers {} when there is no tool span at all', async () => {
    const response = await t.request('POST', '/v1/traces', { body: { resourceSpans: [] } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
  });

  it('needs the API key and a body shaped like an export request', async () => {
    expect((await t.request('POST', '/v1/traces', { body: fixture, key: null })).status).toBe(401);
    const bad = await t.request('POST', '/v1/traces', { body: { resourceSpans: {} } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ path: '/resourceSpans', message: 'must be an array' }]);
  });
});
