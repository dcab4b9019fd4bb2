import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { AppProcess, startAppProcess } from '../support/app-process';
import { ExportRequest, ExportResponse } from '../support/otlp-messages';
import { pythonVenv } from '../support/python-venv';
import { reportSkip } from '../support/skip-report';
import { eventually, startTestApp, TestApp, untilWorkerIdle } from '../support/test-app';

const FIXTURES = join(__dirname, '..', 'fixtures', 'otel');
const run = promisify(execFile);

// The Python side: the official generated classes need only these two wheels (with --no-deps)
const PROTO_PACKAGES = ['opentelemetry-proto==1.45.0', 'protobuf<7'];
const PROTO_PROBE = 'from opentelemetry.proto.collector.trace.v1 import trace_service_pb2';
const SDK_PACKAGES = [
  'opentelemetry-api==1.45.0',
  'opentelemetry-sdk==1.45.0',
  'opentelemetry-exporter-otlp-proto-http==1.45.0',
  'opentelemetry-exporter-otlp-proto-common==1.45.0',
  'opentelemetry-proto==1.45.0',
  'protobuf<7',
  'googleapis-common-protos',
  'typing-extensions',
  'importlib-metadata',
  'zipp',
  'requests',
  'urllib3',
  'idna',
  'certifi',
  'charset-normalizer',
];
// Names each module that does not import and what it lacks, so the skip says exactly what this machine is missing
const SDK_PROBE = `
import importlib, sys
missing = []
for name in ['opentelemetry.sdk.trace', 'opentelemetry.exporter.otlp.proto.http.trace_exporter']:
    try:
        importlib.import_module(name)
    except ImportError as error:
        missing.append(f'{name} needs {getattr(error, "name", None) or error}')
if missing:
    sys.exit('missing modules: ' + '; '.join(missing))
`;

interface ExportOutcome {
  code: number;
  error: string | null;
  spans: Array<{ name: string; traceId: string; spanId: string }>;
  requests: Array<{ contentType: string | null; contentEncoding: string | null }>;
}

/** The real OTLP/HTTP exporter of `protocol` in a child process (it loads its transport with a dynamic import()). */
async function exportWithRealExporter(url: string, apiKey: string, protocol: 'proto' | 'json', compression: 'gzip' | 'none') {
  const { stdout } = await run(process.execPath, [join(FIXTURES, 'export-tool-spans.js'), url, apiKey], {
    timeout: 20_000,
    env: { ...process.env, OTLP_PROTOCOL: protocol, OTLP_COMPRESSION: compression },
  });
  return JSON.parse(stdout) as ExportOutcome;
}

/** Our JSON error body, which every refusal carries whatever the request's encoding. */
const errorBody = async (response: Response) => (await response.json()) as { error: Record<string, unknown> };

const exec = { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } };
const toolName = (name: string) => ({ key: 'gen_ai.tool.name', value: { stringValue: name } });

/** A protobuf ExportTraceServiceRequest holding `spans` (each: id suffix and attributes). */
function protobufRequest(spans: Array<{ id: string; attributes: unknown[] }>): Buffer {
  const now = BigInt(Date.now()) * 1_000_000n;
  const message = ExportRequest.fromObject({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: spans.map(({ id, attributes }) => ({
              traceId: Buffer.from('c'.repeat(32), 'hex'),
              spanId: Buffer.from(id.padStart(16, '0'), 'hex'),
              name: `span ${id}`,
              startTimeUnixNano: String(now),
              endTimeUnixNano: String(now + 1_000_000n),
              attributes,
            })),
          },
        ],
      },
    ],
  });
  return Buffer.from(ExportRequest.encode(message).finish());
}

describe('POST /v1/traces with OTLP/HTTP protobuf and gzip', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const post = (body: Buffer | string, headers: Record<string, string>, path = '/v1/traces') =>
    fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${t.apiKey}`, ...headers }, body });

  /** The stored events whose id is one of `ids`, once each of them is stored. */
  async function storedOnce(ids: string[]): Promise<Array<Record<string, unknown>>> {
    await eventually(
      async () =>
        (await Promise.all(ids.map((id) => t.request('GET', `/v1/events/${id}`)))).every((r) => r.status === 200) ? true : undefined,
      20_000,
    );
    await untilWorkerIdle(t);
    const { rows } = await t.db.sql.query('SELECT id, count(*)::int AS n FROM events WHERE id = ANY($1) GROUP BY id ORDER BY id', [ids]);
    expect(rows).toEqual([...ids].sort().map((id) => ({ id, n: 1 })));
    return Promise.all(ids.map(async (id) => (await t.request('GET', `/v1/events/${id}`)).body));
  }

  describe.each([
    ['proto', 'gzip', 'application/x-protobuf'],
    ['proto', 'none', 'application/x-protobuf'],
    ['json', 'gzip', 'application/json'],
    ['json', 'none', 'application/json'],
  ] as const)('the real %s exporter with compression %s', (protocol, compression, contentType) => {
    it('reports SUCCESS, and every tool span it sent is stored exactly once and categorized', async () => {
      const outcome = await exportWithRealExporter(`${t.baseUrl}/v1/traces`, t.apiKey, protocol, compression);
      expect(outcome.error).toBeNull();
      expect(outcome.code).toBe(0); // ExportResultCode.SUCCESS
      expect(outcome.requests).toEqual([{ contentType, contentEncoding: compression === 'gzip' ? 'gzip' : null }]);

      const toolSpans = outcome.spans.filter((s) => ['execute_tool get_weather', 'execute_tool factorial', 'add'].includes(s.name));
      const ids = toolSpans.map((s) => `otel:${s.traceId}:${s.spanId}`);
      const [weather, factorial, add] = await storedOnce(ids);
      expect(weather).toMatchObject({ tool: 'get_weather', status: 'success', arguments: { city: 'Paris' }, result: { tempC: 21 } });
      expect(weather).toMatchObject({ traceId: toolSpans[0].traceId, runId: toolSpans[0].spanId, agent: 'weather-agent', durationMs: 42 });
      expect(factorial).toMatchObject({ tool: 'factorial', status: 'error', error: { type: 'OverflowError' }, category: 'overflow' });
      expect(add).toMatchObject({ tool: 'add', status: 'error', category: 'argument_mismatch', argumentPath: '/a' });
    });
  });

  it.each([
    ['plain', (body: Buffer) => body, {}],
    ['gzipped', (body: Buffer) => gzipSync(body), { 'content-encoding': 'gzip' }],
  ])('answers a %s protobuf body holding one bad tool span with a protobuf partial_success rejecting 1', async (_name, encode, headers) => {
    const body = protobufRequest([
      { id: 'd1', attributes: [exec, toolName('pb_fine_tool')] },
      { id: 'd2', attributes: [exec] },
      { id: 'd3', attributes: [{ key: 'http.request.method', value: { stringValue: 'GET' } }] },
    ]);
    const response = await post(encode(body), { 'content-type': 'application/x-protobuf', ...headers });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    expect(response.headers.get('toolcoach-tool-spans')).toBe('2');
    expect(response.headers.get('toolcoach-ignored-spans')).toBe('1');
    const answer = ExportResponse.toObject(ExportResponse.decode(Buffer.from(await response.arrayBuffer())), { longs: Number });
    expect(answer).toEqual({
      partialSuccess: {
        rejectedSpans: 1,
        errorMessage: '/resourceSpans/0/scopeSpans/0/spans/1: has no gen_ai.tool.name (or tool.name) attribute',
      },
    });
    await t.storedEvent(`otel:${'c'.repeat(32)}:${'d1'.padStart(16, '0')}`);
  });

  it('answers a protobuf body with every span taken with an empty protobuf ExportTraceServiceResponse', async () => {
    const response = await post(protobufRequest([{ id: 'e1', attributes: [exec, toolName('pb_all_good')] }]), {
      'content-type': 'application/x-protobuf',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('refuses bytes that are not a protobuf ExportTraceServiceRequest with 400 naming why, in our JSON error body', async () => {
    const response = await post(Buffer.from([0x0a, 0x05, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      error: {
        code: 'invalid_body',
        message: 'Body is not an OTLP ExportTraceServiceRequest',
        details: [{ path: '', message: expect.stringMatching(/^is not a protobuf ExportTraceServiceRequest \(index out of range/) }],
      },
    });
  });

  it.each([
    ['application/x-protobuf', protobufRequest([{ id: 'f1', attributes: [exec, toolName('never_stored')] }])],
    ['application/json', Buffer.from('{"resourceSpans": [], "padding": "')],
  ])('refuses a %s zip bomb (10 MB once inflated, about 10 KB sent) with 413', async (contentType, start) => {
    const bomb = gzipSync(Buffer.concat([start, Buffer.alloc(10 * 1024 * 1024)]));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const response = await post(bomb, { 'content-type': contentType, 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: { code: 'payload_too_large', message: 'Request body is larger than the 1 MB limit once decompressed' },
    });
  });

  it('refuses gzip-labelled bytes that are not gzip with 400, and a coding it does not take with 415 naming the ones it does', async () => {
    const notGzip = await post(protobufRequest([]), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(notGzip.status).toBe(400);
    expect((await errorBody(notGzip)).error).toEqual({
      code: 'invalid_encoding',
      message: 'Body is not valid gzip: incorrect header check',
    });

    const brotli = await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(brotli.status).toBe(415);
    expect((await errorBody(brotli)).error).toEqual({
      code: 'unsupported_content_encoding',
      message: 'Content-Encoding "br" is not supported; send gzip or identity',
      details: [{ path: '/headers/content-encoding', message: 'must be gzip or identity' }],
    });
    const identity = await post(protobufRequest([]), { 'content-type': 'application/x-protobuf', 'content-encoding': 'identity' });
    expect(identity.status).toBe(200);
  });

  it('needs the API key for protobuf too (401, JSON error body), and refuses other media types with 415', async () => {
    const unkeyed = await fetch(`${t.baseUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: protobufRequest([]),
    });
    expect(unkeyed.status).toBe(401);
    expect((await errorBody(unkeyed)).error.code).toBe('unauthorized');
    const xml = await post('<spans/>', { 'content-type': 'application/xml' });
    expect(xml.status).toBe(415);
    expect((await errorBody(xml)).error).toEqual({
      code: 'unsupported_media_type',
      message: 'Send the body as application/json or application/x-protobuf',
    });
  });

  it('leaves /v1/events JSON-only (protobuf is 415 there) and takes gzipped JSON events too', async () => {
    const protobuf = await post(protobufRequest([]), { 'content-type': 'application/x-protobuf' }, '/v1/events');
    expect(protobuf.status).toBe(415);
    expect((await errorBody(protobuf)).error).toEqual({ code: 'unsupported_media_type', message: 'Send the body as application/json' });
    const event = { id: 'gzipped-event-1', tool: 'gz_tool', status: 'success', arguments: { q: 1 } };
    const gzipped = await post(
      gzipSync(JSON.stringify(event)),
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      '/v1/events',
    );
    expect(gzipped.status).toBe(202);
    expect(await t.storedEvent('gzipped-event-1')).toMatchObject({ tool: 'gz_tool', arguments: { q: 1 } });
  });

  it('documents both encodings of the route in the OpenAPI document', async () => {
    const document = (await t.request('GET', '/openapi.json', { key: null })).body;
    const operation = document.paths['/v1/traces'].post;
    expect(Object.keys(operation.requestBody.content)).toEqual(['application/json', 'application/x-protobuf']);
    expect(operation.responses['200'].content['application/x-protobuf'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(operation.responses['200'].content['application/json'].schema.properties.partialSuccess).toBeDefined();
  });

  describe('from Python, with the official generated protobuf classes (a second protobuf implementation)', () => {
    const venv = pythonVenv('otel-proto', PROTO_PACKAGES, PROTO_PROBE);
    if (!venv.ok) {
      reportSkip(`OTLP protobuf from Python (opentelemetry-proto): ${venv.reason}`);
      it.todo(`OTLP protobuf from Python: skipped, ${venv.reason}`);
      return;
    }

    it.each(['gzip', 'none'])('is answered with a partial_success the Python classes parse, compression %s', async (compression) => {
      const { stdout } = await run(venv.python, [join(FIXTURES, 'export_protobuf.py'), `${t.baseUrl}/v1/traces`, t.apiKey, compression], {
        timeout: 30_000,
      });
      const outcome = JSON.parse(stdout);
      expect(outcome).toMatchObject({
        status: 200,
        contentType: 'application/x-protobuf',
        hasPartialSuccess: true,
        partialSuccess: {
          rejectedSpans: 1,
          errorMessage: '/resourceSpans/0/scopeSpans/0/spans/2: has no gen_ai.tool.name (or tool.name) attribute',
        },
      });
      const ids = outcome.spans.slice(0, 2).map((s: { traceId: string; spanId: string }) => `otel:${s.traceId}:${s.spanId}`);
      const [weather, factorial] = await storedOnce(ids);
      expect(weather).toMatchObject({
        tool: 'py_weather',
        status: 'success',
        toolCallId: 'py_call_1',
        arguments: { city: 'Oslo' },
        agent: 'python-agent',
      });
      expect(weather.framework).toBe('python-agent-tools');
      expect(factorial).toMatchObject({ tool: 'py_factorial', status: 'error', error: { type: 'OverflowError' }, category: 'overflow' });
    });
  });

  describe('from Python, with the real OpenTelemetry SDK and its OTLP/HTTP protobuf exporter', () => {
    const venv = pythonVenv('otel-sdk', SDK_PACKAGES, SDK_PROBE);
    if (!venv.ok) {
      // expected on machines whose wheel mirror lacks what SDK 1.45 imports (opentelemetry-semantic-conventions, ...)
      reportSkip(`OpenTelemetry Python SDK exporter: ${venv.reason}`);
      it.todo(`OpenTelemetry Python SDK exporter: skipped, ${venv.reason}`);
      return;
    }

    it.each(['gzip', 'none'])('exports SUCCESS and every tool span is stored once, compression %s', async (compression) => {
      const { stdout } = await run(venv.python, [join(FIXTURES, 'export_sdk.py'), `${t.baseUrl}/v1/traces`, t.apiKey, compression], {
        timeout: 30_000,
      });
      const outcome = JSON.parse(stdout);
      expect(outcome.result).toBe('SUCCESS');
      const toolSpans = outcome.spans.filter((s: { name: string }) => s.name.startsWith('execute_tool'));
      const [weather, factorial] = await storedOnce(
        toolSpans.map((s: { traceId: string; spanId: string }) => `otel:${s.traceId}:${s.spanId}`),
      );
      expect(weather).toMatchObject({ tool: 'sdk_weather', status: 'success', arguments: { city: 'Oslo' } });
      expect(factorial).toMatchObject({ tool: 'sdk_factorial', status: 'error', category: 'overflow' });
    });
  });
});

describe('POST /v1/traces refusals in the log of the built app', () => {
  let t: TestApp;
  let app: AppProcess;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
    ({ app, url } = await startAppProcess(t));
  });
  afterAll(async () => {
    app.child.kill('SIGTERM');
    await app.exited;
    await t.close();
  });

  it('loads the vendored .proto files from dist and logs each refused traces request with status, reason and project', async () => {
    const headers = { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/x-protobuf' };
    const taken = await fetch(`${url}/v1/traces`, { method: 'POST', headers, body: protobufRequest([]) });
    expect(taken.status).toBe(200);
    const refused = await fetch(`${url}/v1/traces`, { method: 'POST', headers, body: Buffer.from([0x0a, 0x05, 0x01]) });
    expect(refused.status).toBe(400);
    const bomb = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.alloc(10 * 1024 * 1024)),
    });
    expect(bomb.status).toBe(413);

    const refusals = await eventually(async () => {
      const lines = app
        .output()
        .split('\n')
        .filter((line) => line.includes('"request refused"'))
        .map((line) => JSON.parse(line));
      return lines.length >= 2 ? lines : undefined;
    });
    expect(refusals[0]).toMatchObject({
      level: 'warn',
      status: 400,
      code: 'invalid_body',
      projectId: t.projectId,
      url: '/v1/traces',
      contentType: 'application/x-protobuf',
    });
    expect(refusals[0].reason).toBe('Body is not an OTLP ExportTraceServiceRequest');
    expect(refusals[0].details).toEqual([{ path: '', message: expect.stringMatching(/^is not a protobuf ExportTraceServiceRequest/) }]);
    // the body is refused before the API key is checked, so no project is known yet
    expect(refusals[1]).toMatchObject({ status: 413, code: 'payload_too_large', projectId: null, contentEncoding: 'gzip' });
  });

  it('stays up when a gzip-labelled body is never read: a refused media type, bytes that are not gzip, a GET', async () => {
    const headers = { authorization: `Bearer ${t.apiKey}`, 'content-encoding': 'gzip' };
    for (const body of ['not gzip at all', gzipSync('<spans/>').subarray(0, 12)]) {
      const refused = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { ...headers, 'content-type': 'application/xml' }, body });
      expect(refused.status).toBe(415);
    }
    expect((await fetch(`${url}/v1/events?limit=1`, { headers })).status).toBe(200);
    // the same connection answers again, so the process read those bodies and outlived the gzip errors they caused
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(app.child.exitCode).toBeNull();
    expect(app.output()).not.toMatch(/Unhandled|uncaught/i);
  });
});
