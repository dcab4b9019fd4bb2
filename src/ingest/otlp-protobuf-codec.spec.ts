import { SpanStatusCode } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { join } from 'node:path';
import { Root } from 'protobufjs';
import { OtlpProtobufCodec } from './otlp-protobuf-codec';
import { mapOtlpTraces, OtlpBodyError } from './otlp-spans';

const codec = new OtlpProtobufCodec();

// The test's own copy of the message types, loaded from the vendored files apart from the codec's
const protoDir = join(__dirname, '..', '..', 'vendor', 'opentelemetry-proto');
const root = new Root();
root.resolvePath = (_origin, target) => join(protoDir, target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
const RequestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ResponseType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
const START = new Date('2026-11-20T10:00:00.000Z');
const at = (ms: number) => new Date(START.getTime() + ms);

/** Spans recorded by the real OpenTelemetry SDK, as an instrumented agent would. */
function recordSpans() {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'weather-agent' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('weather-agent-tools', '1.0.0');
  const ok = tracer.startSpan('execute_tool get_weather', {
    startTime: at(0),
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_ok_1',
      'gen_ai.tool.call.arguments': '{"city":"Paris","days":3}',
      'gen_ai.tool.call.result': '{"tempC":21.5}',
      'gen_ai.request.model': 'gpt-4.1',
    },
  });
  ok.end(at(42));
  const failed = tracer.startSpan('execute_tool factorial', {
    startTime: at(100),
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'factorial', 'gen_ai.tool.call.arguments': '{"n":25}' },
  });
  const error = new Error('Factorial calculation overflow for n=25');
  error.name = 'OverflowError';
  failed.recordException(error, at(110));
  failed.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  failed.end(at(112));
  tracer.startSpan('chat gpt-4.1', { startTime: at(300), attributes: { 'gen_ai.operation.name': 'chat' } }).end(at(900));
  return memory.getFinishedSpans();
}

type DecodedRequest = {
  resourceSpans: Array<{
    scopeSpans: Array<{ spans: Array<{ traceId: unknown; spanId: unknown; attributes: Array<{ key: string; value: unknown }> }> }>;
  }>;
};

/** A request whose one tool span carries `value` (an AnyValue) as its arguments, encoded apart from the codec. */
function withArgumentValue(value: Record<string, unknown>): Uint8Array {
  const body = codec.decodeRequest(ProtobufTraceSerializer.serializeRequest(recordSpans().slice(0, 1))!).body as DecodedRequest;
  const span = body.resourceSpans[0].scopeSpans[0].spans[0];
  span.attributes = span.attributes.map((a) => (a.key === 'gen_ai.tool.call.arguments' ? { key: a.key, value } : a));
  span.traceId = Buffer.from(span.traceId as string, 'hex');
  span.spanId = Buffer.from(span.spanId as string, 'hex');
  return RequestType.encode(RequestType.fromObject(body)).finish();
}

describe('OtlpProtobufCodec', () => {
  it('maps what the real protobuf exporter serializes to the very events the JSON exporter gives for the same spans', () => {
    const spans = recordSpans();
    const protobuf = ProtobufTraceSerializer.serializeRequest(spans)!;
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!));

    const fromProtobuf = mapOtlpTraces(codec.decodeRequest(protobuf).body);
    expect(fromProtobuf).toEqual(mapOtlpTraces(json));
    expect(fromProtobuf.ignoredSpans).toBe(1);
    const { traceId, spanId } = spans[0].spanContext();
    expect(fromProtobuf.events).toEqual([
      {
        id: `otel:${traceId}:${spanId}`,
        tool: 'get_weather',
        status: 'success',
        arguments: { city: 'Paris', days: 3 },
        result: { tempC: 21.5 },
        occurredAt: '2026-11-20T10:00:00.000Z',
        durationMs: 42,
        traceId,
        runId: spanId,
        toolCallId: 'call_ok_1',
        agent: 'weather-agent',
        model: 'gpt-4.1',
        framework: 'weather-agent-tools',
      },
      expect.objectContaining({
        tool: 'factorial',
        status: 'error',
        error: expect.objectContaining({ type: 'OverflowError', message: 'Factorial calculation overflow for n=25' }),
        durationMs: 12,
      }),
    ]);
  });

  it('writes trace and span ids as lowercase hex, as OTLP/JSON does, where protobuf carries them as bytes', () => {
    const [span] = recordSpans();
    const body = codec.decodeRequest(ProtobufTraceSerializer.serializeRequest([span])!).body as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>;
    };
    const decoded = body.resourceSpans[0].scopeSpans[0].spans[0];
    expect(decoded.traceId).toBe(span.spanContext().traceId);
    expect(decoded.spanId).toBe(span.spanContext().spanId);
    expect(decoded.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(decoded.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(decoded.startTimeUnixNano).toBe(`${START.getTime()}000000`);
  });

  it.each([
    ['an int64 beyond 2^53 as its exact decimal text', { intValue: '9007199254740993' }, '9007199254740993'],
    ['a small int64 as a number', { intValue: 12 }, 12],
    ['false, which protobuf would leave out of a plain field', { boolValue: false }, false],
    ['the empty string', { stringValue: '' }, ''],
    ['NaN as its text, as OTLP/JSON writes it', { doubleValue: NaN }, 'NaN'],
    ['bytes as base64, as OTLP/JSON writes them', { bytesValue: Buffer.from([1, 2, 250]) }, 'AQL6'],
    [
      'a kvlist holding an array',
      { kvlistValue: { values: [{ key: 'n', value: { arrayValue: { values: [{ intValue: 1 }, { doubleValue: 2.5 }] } } }] } },
      { n: [1, 2.5] },
    ],
  ])('reads an AnyValue holding %s', (_name, value, expected) => {
    const mapping = mapOtlpTraces(codec.decodeRequest(withArgumentValue(value)).body);
    expect(mapping.events[0].arguments).toEqual(expected);
  });

  it('takes an empty body as an export request with no spans', () => {
    expect(mapOtlpTraces(codec.decodeRequest(new Uint8Array()).body)).toEqual({ events: [], spanPaths: [], rejected: [], ignoredSpans: 0 });
  });

  it.each([
    ['JSON text', Buffer.from('{"resourceSpans":[]}'), /^is not a protobuf ExportTraceServiceRequest \(index out of range/],
    [
      'a length that runs past the end',
      Buffer.from([0x0a, 0x05, 0x01]),
      /^is not a protobuf ExportTraceServiceRequest \(index out of range/,
    ],
    ['a wire type that does not exist', Buffer.from([0x0e, 0x00]), /^is not a protobuf ExportTraceServiceRequest \(invalid wire type 6/],
  ])('refuses %s with OtlpBodyError naming why', (_name, bytes, message) => {
    expect(() => codec.decodeRequest(bytes)).toThrow(OtlpBodyError);
    try {
      codec.decodeRequest(bytes);
    } catch (error) {
      expect((error as OtlpBodyError).details).toEqual([{ path: '', message: expect.stringMatching(message) }]);
    }
  });

  it('refuses values nested deeper than protobufjs allows instead of exhausting the stack', () => {
    // 200 nested arrayValues, written by hand: AnyValue.array_value = 5, ArrayValue.values = 1, each length-delimited
    let value = Buffer.from([0x0a, 0x00]);
    for (let i = 0; i < 200; i += 1) {
      const array = Buffer.concat([Buffer.from([0x0a]), varint(value.length), value]);
      value = Buffer.concat([Buffer.from([0x2a]), varint(array.length), array]);
    }
    const keyValue = Buffer.concat([Buffer.from([0x0a, 0x01, 0x61, 0x12]), varint(value.length), value]);
    const span = Buffer.concat([Buffer.from([0x4a]), varint(keyValue.length), keyValue]);
    const scopeSpans = Buffer.concat([Buffer.from([0x12]), varint(span.length), span]);
    const resourceSpans = Buffer.concat([Buffer.from([0x12]), varint(scopeSpans.length), scopeSpans]);
    const request = Buffer.concat([Buffer.from([0x0a]), varint(resourceSpans.length), resourceSpans]);
    expect(() => codec.decodeRequest(request)).toThrow(/max depth exceeded/);
  });

  describe('a string that is not UTF-8', () => {
    /** The real exporter's request for recordSpans() with the first bytes of `text` overwritten by `bytes`. */
    function withBytes(text: string, bytes: number[]): Uint8Array {
      const request = Buffer.from(ProtobufTraceSerializer.serializeRequest(recordSpans())!);
      const at = request.indexOf(Buffer.from(text, 'utf8'));
      expect(at).toBeGreaterThan(0);
      Buffer.from(bytes).copy(request, at);
      return request;
    }
    const span = (i: number) => `/resourceSpans/0/scopeSpans/0/spans/${i}`;

    it.each([
      ['a byte that never starts UTF-8', [0x50, 0xff]],
      ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
      ['an overlong encoding', [0xc0, 0xaf]],
      ['a sequence cut short by the end of the string', [0x50, 0x61, 0x72, 0x69, 0xe2]],
    ])('costs only the span holding it (%s): that span is rejected by path, the others are kept', (_name, bytes) => {
      const decoded = codec.decodeRequest(withBytes('Paris', bytes));
      const mapping = mapOtlpTraces(decoded.body, decoded.refusedSpans);
      expect(mapping.rejected).toEqual([
        { path: span(0), message: expect.stringMatching(/^holds text that is not valid UTF-8 at \/attributes\/\d+\/value\/stringValue$/) },
      ]);
      expect(mapping.events.map((event) => event.tool)).toEqual(['factorial']);
      expect(mapping.ignoredSpans).toBe(1);
      expect(JSON.stringify(mapping)).not.toContain('invalid-utf8');
    });

    it('in a span name rejects that span, even one that is not a tool span', () => {
      const decoded = codec.decodeRequest(withBytes('chat gpt', [0x63, 0x68, 0xfe]));
      const mapping = mapOtlpTraces(decoded.body, decoded.refusedSpans);
      expect(mapping.rejected).toEqual([{ path: span(2), message: 'holds text that is not valid UTF-8 at /name' }]);
      expect(mapping.events).toHaveLength(2);
    });

    it('in the resource rejects every span under it, naming where the text is', () => {
      const decoded = codec.decodeRequest(withBytes('weather-agent', [0x77, 0xff]));
      const mapping = mapOtlpTraces(decoded.body, decoded.refusedSpans);
      expect(mapping.events).toEqual([]);
      expect(mapping.rejected.map((r) => r.path)).toEqual([span(0), span(1), span(2)]);
      expect(mapping.rejected[0].message).toMatch(
        /^sits under text that is not valid UTF-8 at \/resourceSpans\/0\/resource\/attributes\/\d+/,
      );
    });
  });

  it('encodes a partial success as ExportTraceServiceResponse.partial_success, and nothing at all for full success', () => {
    const encoded = codec.encodeResponse({ partialSuccess: { rejectedSpans: 2, errorMessage: '/resourceSpans/0: bad' } });
    expect(ResponseType.toObject(ResponseType.decode(encoded), { longs: Number })).toEqual({
      partialSuccess: { rejectedSpans: 2, errorMessage: '/resourceSpans/0: bad' },
    });
    expect(codec.encodeResponse({})).toHaveLength(0);
  });
});

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
