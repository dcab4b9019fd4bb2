import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TestApp, untilWorkerIdle, eventually } from '../support/test-app';

// Real agent frameworks with their own OpenTelemetry output, pointed at /v1/traces on the default configuration with
// nothing but an exporter: each runs in a child process (the exporters load their transport with a dynamic import(),
// which Jest's module system refuses) and prints the spans it made, so the test can name the events they must become.

const FIXTURES = join(__dirname, '..', 'fixtures', 'otel');
const run = promisify(execFile);

interface FrameworkRun {
  exports: Array<{ code: number; error: string | null; spans: number }>;
  spans: Array<{ name: string; traceId: string; spanId: string; parentSpanId: string | null; toolCallId: string | null }>;
}

/** Runs a fixture against the app and parses the last line it prints (frameworks log to stdout too). */
async function runFixture<T>(script: string, t: TestApp): Promise<T> {
  const { stdout } = await run(process.execPath, [join(FIXTURES, script), `${t.baseUrl}/v1/traces`, t.apiKey], { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

describe('agent frameworks exporting OpenTelemetry to /v1/traces', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** The stored events of `spans`, once each is stored, after checking no other event of theirs was stored. */
  async function storedOncePerSpan(spans: FrameworkRun['spans'], traceIds: string[]): Promise<Array<Record<string, unknown>>> {
    const ids = spans.map((s) => `otel:${s.traceId}:${s.spanId}`);
    await eventually(
      async () =>
        (await Promise.all(ids.map((id) => t.request('GET', `/v1/events/${id}`)))).every((r) => r.status === 200) ? true : undefined,
      20_000,
    );
    await untilWorkerIdle(t);
    const { rows } = await t.db.sql.query('SELECT id FROM events WHERE trace_id = ANY($1) ORDER BY id', [traceIds]);
    expect(rows.map((row: { id: string }) => row.id)).toEqual([...ids].sort());
    return Promise.all(ids.map(async (id) => (await t.request('GET', `/v1/events/${id}`)).body));
  }

  describe('the Vercel AI SDK (ai 6, experimental_telemetry, the OTLP protobuf exporter)', () => {
    interface AiSdkRun extends FrameworkRun {
      runs: Array<{ mode: string; toolParts: Array<{ type: string; toolCallId: string; error: string | null }> }>;
    }
    let outcome: AiSdkRun;
    beforeAll(async () => {
      outcome = await runFixture<AiSdkRun>('ai-sdk-telemetry.js', t);
    });

    it('exports every span with SUCCESS', () => {
      expect(outcome.exports.length).toBeGreaterThan(0);
      expect(outcome.exports.every((e) => e.code === 0 && e.error === null)).toBe(true);
      expect(outcome.exports.reduce((n, e) => n + e.spans, 0)).toBe(outcome.spans.length);
    });

    describe.each(['generateText', 'streamText'])('%s', (mode) => {
      const byCallId = <T extends { toolCallId: string | null }>(list: T[]) =>
        [...list].sort((a, b) => (a.toolCallId ?? '').localeCompare(b.toolCallId ?? ''));

      it('makes an ai.toolCall span only for the calls that reach a tool, and none for an unknown tool or bad input', () => {
        // what the SDK itself says happened to each call of the first step
        const run = outcome.runs.find((r) => r.mode === mode)!;
        expect(byCallId(run.toolParts)).toEqual([
          { type: 'tool-error', toolCallId: `${mode}_factorial`, error: 'RangeError' },
          { type: 'tool-error', toolCallId: `${mode}_invalid`, error: 'AI_InvalidToolInputError' },
          { type: 'tool-error', toolCallId: `${mode}_malformed`, error: 'AI_InvalidToolInputError' },
          { type: 'tool-error', toolCallId: `${mode}_unknown`, error: 'AI_NoSuchToolError' },
          { type: 'tool-result', toolCallId: `${mode}_weather`, error: null },
        ]);
        const toolSpans = outcome.spans.filter((s) => s.name === 'ai.toolCall' && s.toolCallId?.startsWith(`${mode}_`));
        expect(toolSpans.map((s) => s.toolCallId).sort()).toEqual([`${mode}_factorial`, `${mode}_weather`]);
      });

      it('stores each ai.toolCall span exactly once, categorized, with session and agent from the run (and the model when joined)', async () => {
        const toolSpans = byCallId(outcome.spans.filter((s) => s.name === 'ai.toolCall' && s.toolCallId?.startsWith(`${mode}_`)));
        const traceIds = [...new Set(toolSpans.map((s) => s.traceId))];
        const [factorial, weather] = await storedOncePerSpan(toolSpans, traceIds);
        // streamText runs its tools outside the active context: their spans are roots of traces of their own, so the
        // model, which is only on the run's spans, cannot be joined (docs/span-conventions.md)
        const hasParent = mode === 'generateText';
        expect(toolSpans.map((s) => s.parentSpanId !== null)).toEqual([hasParent, hasParent]);
        const fromTheRun = {
          model: hasParent ? 'scripted-weather-model' : null,
          sessionId: `session-${mode}`,
          agent: `weather-agent-${mode}`,
          framework: 'ai',
        };
        expect(weather).toMatchObject({
          tool: 'get_weather',
          status: 'success',
          toolCallId: `${mode}_weather`,
          arguments: { city: 'Paris' },
          result: { city: 'Paris', tempC: 21 },
          ...fromTheRun,
        });
        expect(factorial).toMatchObject({
          tool: 'factorial',
          status: 'error',
          toolCallId: `${mode}_factorial`,
          arguments: { n: 25 },
          error: { type: 'RangeError', message: 'Factorial calculation overflow for n=25' },
          category: 'overflow',
          ...fromTheRun,
        });
        expect((factorial.error as { stack: string }).stack).toMatch(/^RangeError: Factorial calculation overflow/);
        expect(typeof weather.durationMs).toBe('number');
      });
    });
  });

  describe('Mastra (@mastra/core agent, @mastra/observability with the @mastra/otel-exporter custom provider over protobuf)', () => {
    interface MastraRun {
      traceId: string | null;
      requests: Array<{ path: string; contentType: string | null; status: number }>;
    }
    let outcome: MastraRun;
    beforeAll(async () => {
      outcome = await runFixture<MastraRun>('mastra-tracing.mjs', t);
    });

    it('stores each tool call that makes a tool span once: a success, a thrown error and input that fails the schema', async () => {
      expect(outcome.requests).toContainEqual({ path: '/v1/traces', contentType: 'application/x-protobuf', status: 200 });
      // the exporter sends Mastra's logs too, by default, to a route toolcoach does not have: its protobuf is refused first
      expect(outcome.requests).toContainEqual({ path: '/v1/logs', contentType: 'application/x-protobuf', status: 415 });
      expect(outcome.traceId).toMatch(/^[0-9a-f]{32}$/);
      const storedIds = async () => (await t.db.sql.query('SELECT id FROM events WHERE trace_id = $1', [outcome.traceId])).rows;
      await eventually(async () => ((await storedIds()).length >= 3 ? true : undefined), 20_000);
      await untilWorkerIdle(t);
      const stored = await storedIds();
      const events = await Promise.all(stored.map(async ({ id }: { id: string }) => (await t.request('GET', `/v1/events/${id}`)).body));
      const byCall = Object.fromEntries(events.map((event) => [event.toolCallId, event]));
      // the unknown tool (getForecast) makes only a client_tool_call span: Mastra hands a tool it does not have to the client
      expect(Object.keys(byCall).sort()).toEqual(['call_factorial', 'call_invalid', 'call_weather']);
      const fromTheRun = { agent: 'weather-agent', model: 'scripted-mastra-model', framework: '@mastra/otel-exporter' };
      expect(byCall.call_weather).toMatchObject({
        tool: 'getWeather',
        status: 'success',
        arguments: { city: 'Paris' },
        result: { city: 'Paris', tempC: 21 },
        ...fromTheRun,
      });
      expect(byCall.call_factorial).toMatchObject({
        tool: 'factorial',
        status: 'error',
        arguments: { n: 25 },
        error: { message: 'Factorial calculation overflow for n=25' },
        category: 'overflow',
        ...fromTheRun,
      });
      expect(byCall.call_invalid).toMatchObject({
        tool: 'getWeather',
        status: 'error',
        arguments: { city: 7 },
        error: { message: expect.stringMatching(/^Tool input validation failed for getWeather/) },
        category: 'argument_mismatch',
        ...fromTheRun,
      });
    });
  });
});
