import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapOtlpTraces, OtlpBodyError } from './otlp-spans';

// Captured from @opentelemetry/exporter-trace-otlp-http 0.223.1 (see test/fixtures/otel/README.md).
const exported = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'otel', 'genai-openinference-tool-spans.json'), 'utf8'),
);

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const bodyWithSpans = (...spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
const toolSpan = (attributes: unknown[], extra: Record<string, unknown> = {}) => ({
  traceId: '5B8EFFF798038103D269B633813FC60C',
  spanId: 'EEE19B7EC3C1B174',
  name: 'execute_tool x',
  startTimeUnixNano: '1544712660000000000',
  endTimeUnixNano: '1544712661000000000',
  attributes: [str('gen_ai.operation.name', 'execute_tool'), ...attributes],
  ...extra,
});

describe('mapOtlpTraces', () => {
  it('maps the tool spans the real OTLP/JSON exporter sends and counts the others', () => {
    const mapping = mapOtlpTraces(exported);
    const spans = exported.resourceSpans[0].scopeSpans[0].spans;
    expect(mapping.ignoredSpans).toBe(2);
    expect(mapping.rejected).toEqual([]);
    expect(mapping.spanPaths).toEqual([
      '/resourceSpans/0/scopeSpans/0/spans/0',
      '/resourceSpans/0/scopeSpans/0/spans/1',
      '/resourceSpans/0/scopeSpans/0/spans/2',
    ]);
    const [weather, factorial, add] = mapping.events;
    expect(weather).toEqual({
      id: `otel:${spans[0].traceId}:${spans[0].spanId}`,
      tool: 'get_weather',
      status: 'success',
      arguments: { city: 'Paris' },
      result: { tempC: 21 },
      occurredAt: '2026-11-20T10:00:00.000Z',
      durationMs: 42,
      traceId: spans[0].traceId,
      runId: spans[0].spanId,
      toolCallId: 'call_ok_1',
      agent: 'weather-agent',
      framework: 'weather-agent-tools',
    });
    expect(factorial).toMatchObject({
      tool: 'factorial',
      status: 'error',
      arguments: { n: 25 },
      error: { type: 'OverflowError', message: 'Factorial calculation overflow for n=25', stack: expect.stringContaining('OverflowError') },
      durationMs: 12,
      toolCallId: 'call_fact_1',
    });
    expect(factorial).not.toHaveProperty('result');
    expect(add).toMatchObject({
      tool: 'add',
      status: 'error',
      arguments: { a: 'x', b: 2 },
      toolCallId: 'call_add_1',
      error: {
        message: expect.stringMatching(/^Error invoking tool 'add' with kwargs \{'a': 'x', 'b': 2\} with error:\n a: Input should be/),
      },
    });
  });

  it('treats error.type without an ERROR status as a failure, and _OTHER as no type', () => {
    const { events } = mapOtlpTraces(bodyWithSpans(toolSpan([str('gen_ai.tool.name', 'x'), str('error.type', '_OTHER')])));
    expect(events[0]).toMatchObject({ status: 'error', error: { message: '_OTHER' } });
    expect(events[0].error).not.toHaveProperty('type');
  });

  it('takes the tool name from the span name when the attribute is missing, and rejects a span with neither', () => {
    const named = mapOtlpTraces(bodyWithSpans(toolSpan([])));
    expect(named.events[0].tool).toBe('x');
    const unnamed = mapOtlpTraces(bodyWithSpans(toolSpan([], { name: 'tool' })));
    expect(unnamed.events).toEqual([]);
    expect(unnamed.rejected).toEqual([
      { path: '/resourceSpans/0/scopeSpans/0/spans/0', message: 'has no gen_ai.tool.name (or tool.name) attribute' },
    ]);
  });

  it('reads arguments given as a kvlist, int64 as decimal strings, and keeps text that is not JSON', () => {
    const kvlist = {
      key: 'gen_ai.tool.call.arguments',
      value: {
        kvlistValue: {
          values: [
            { key: 'n', value: { intValue: '25' } },
            { key: 'big', value: { intValue: '9007199254740993' } },
          ],
        },
      },
    };
    expect(mapOtlpTraces(bodyWithSpans(toolSpan([str('gen_ai.tool.name', 'x'), kvlist]))).events[0].arguments).toEqual({
      n: 25,
      big: '9007199254740993',
    });
    const text = str('gen_ai.tool.call.arguments', '{city: Paris');
    expect(mapOtlpTraces(bodyWithSpans(toolSpan([str('gen_ai.tool.name', 'x'), text]))).events[0].arguments).toBe('{city: Paris');
  });

  it('drops attribute values nested deeper than 64 levels instead of recursing without bound', () => {
    let value: unknown = { stringValue: 'leaf' };
    for (let i = 0; i < 20_000; i += 1) value = { arrayValue: { values: [value] } };
    const [event] = mapOtlpTraces(
      bodyWithSpans(toolSpan([str('gen_ai.tool.name', 'x'), { key: 'gen_ai.tool.call.arguments', value }])),
    ).events;
    let depth = 0;
    for (let node = event.arguments; Array.isArray(node); node = node[0]) depth += 1;
    expect(depth).toBe(65);
  });

  it('lower-cases hex ids and leaves timing out when the times are missing or reversed', () => {
    const [event] = mapOtlpTraces(bodyWithSpans(toolSpan([str('gen_ai.tool.name', 'x')], { endTimeUnixNano: '1' }))).events;
    expect(event.traceId).toBe('5b8efff798038103d269b633813fc60c');
    expect(event).not.toHaveProperty('durationMs');
    expect(event.occurredAt).toBe('2018-12-13T14:51:00.000Z');
  });

  it('accepts an empty export and ignores unknown fields', () => {
    expect(mapOtlpTraces({})).toEqual({ events: [], spanPaths: [], rejected: [], ignoredSpans: 0 });
    expect(mapOtlpTraces({ resourceSpans: [{ scopeSpans: [{ spans: [], future: 1 }] }], other: true }).events).toEqual([]);
  });

  it('throws naming the path when the body is not an export request', () => {
    expect(() => mapOtlpTraces([])).toThrow(OtlpBodyError);
    try {
      mapOtlpTraces({ resourceSpans: [{ scopeSpans: 'x' }] });
    } catch (error) {
      expect((error as OtlpBodyError).details).toEqual([{ path: '/resourceSpans/0/scopeSpans', message: 'must be an array' }]);
    }
  });
  it('keeps NaN and the infinities, which OTLP/JSON writes as strings, as that text rather than a number JSON cannot carry', () => {
    const kv = (key: string, doubleValue: unknown) => ({ key, value: { doubleValue } });
    const attributes = [
      { key: 'input.value', value: { kvlistValue: { values: [kv('a', 'NaN'), kv('b', '-Infinity'), kv('c', 1.5), kv('d', '2.5')] } } },
    ];
    const [event] = mapOtlpTraces(bodyWithSpans(toolSpan(attributes))).events;
    expect(event.arguments).toEqual({ a: 'NaN', b: '-Infinity', c: 1.5, d: 2.5 });
  });
});
