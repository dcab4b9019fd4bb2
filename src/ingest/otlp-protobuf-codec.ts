import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Reader, Root, Type } from 'protobufjs';
import { ExportTraceResult, OtlpBodyError } from './otlp-spans';

// OTLP/HTTP binary protobuf, decoded with the official opentelemetry-proto definitions vendored in
// vendor/opentelemetry-proto (see its README for the version), loaded once at start. A decoded request is turned into
// the OTLP/JSON shape (hex ids, int64 as decimal strings, enums as integers, NaN and the infinities as text) so that
// mapOtlpTraces stays the one mapping from spans to events.

const VENDORED_PROTO = join('vendor', 'opentelemetry-proto');
const TRACE_SERVICE_PROTO = 'opentelemetry/proto/collector/trace/v1/trace_service.proto';
const PACKAGE = 'opentelemetry.proto.collector.trace.v1';
const TO_OTLP_JSON = { longs: String, enums: Number, bytes: String, json: true } as const;

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Stands in for a string field whose bytes are not UTF-8; random per process, so no client can send it. */
const INVALID_UTF8 = `\u0000invalid-utf8-${randomUUID()}`;
const SPAN_PATH = /^(\/resourceSpans\/\d+\/scopeSpans\/\d+\/spans\/\d+)(\/.*)$/;
const SCOPE_PATH = /^\/resourceSpans\/\d+\/scopeSpans\/\d+(?=\/)/;
const RESOURCE_PATH = /^\/resourceSpans\/\d+(?=\/)/;

/** A decoded export, and the spans refused for text that is not UTF-8 (span path -> why), to report as rejected. */
export interface DecodedExport {
  body: unknown;
  refusedSpans: Map<string, string>;
}

@Injectable()
export class OtlpProtobufCodec {
  private readonly request: Type;
  private readonly response: Type;

  constructor() {
    const protoDir = join(findVendorRoot(__dirname), VENDORED_PROTO);
    const root = new Root();
    // the .proto files import each other by their path from the vendored root
    root.resolvePath = (_origin, target) => join(protoDir, target);
    root.loadSync(TRACE_SERVICE_PROTO).resolveAll();
    this.request = root.lookupType(`${PACKAGE}.ExportTraceServiceRequest`);
    this.response = root.lookupType(`${PACKAGE}.ExportTraceServiceResponse`);
  }

  /**
   * An ExportTraceServiceRequest in the OTLP/JSON shape. Throws OtlpBodyError when the bytes are not one. A string
   * that is not UTF-8 (proto3 requires it) costs only the span holding it, or the spans of the scope or resource
   * holding it, as JSON exports do: the rest of the export is kept and the refused spans reported as rejected.
   */
  decodeRequest(bytes: Uint8Array): DecodedExport {
    let message;
    try {
      // protobufjs stops at 100 levels of nesting, so a deeply nested value cannot exhaust the stack
      message = this.request.decode(lenientStringReader(bytes));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new OtlpBodyError([{ path: '', message: `is not a protobuf ExportTraceServiceRequest (${reason})` }]);
    }
    const body = this.request.toObject(message, TO_OTLP_JSON);
    hexIdsOf(body);
    return { body, refusedSpans: spansWithInvalidText(body) };
  }

  /** The ExportTraceServiceResponse for the JSON answer the traces service built: partial_success when spans were rejected. */
  encodeResponse(result: ExportTraceResult): Buffer {
    const bytes = this.response.encode(this.response.fromObject(result)).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/** A reader whose proto3 strings that are not UTF-8 read as INVALID_UTF8 instead of failing the whole decode. */
function lenientStringReader(bytes: Uint8Array): Reader {
  const reader = Reader.create(bytes);
  reader.stringVerify = function readStringOrMarker(this: Reader) {
    const raw = this.bytes();
    try {
      return STRICT_UTF8.decode(raw);
    } catch {
      return INVALID_UTF8;
    }
  };
  return reader;
}

/**
 * The spans that hold INVALID_UTF8 anywhere, or sit under a scope or resource that does, with where the bad text is.
 * Those spans are never mapped, so the marker never reaches an event.
 */
function spansWithInvalidText(body: Record<string, unknown>): Map<string, string> {
  const refused = new Map<string, string>();
  for (const path of pathsOfInvalidText(body, '')) {
    const inSpan = SPAN_PATH.exec(path);
    if (inSpan) {
      if (!refused.has(inSpan[1])) refused.set(inSpan[1], `holds text that is not valid UTF-8 at ${inSpan[2]}`);
      continue;
    }
    const holder = SCOPE_PATH.exec(path)?.[0] ?? RESOURCE_PATH.exec(path)?.[0] ?? '';
    for (const spanPath of spanPathsUnder(body, holder)) {
      if (!refused.has(spanPath)) refused.set(spanPath, `sits under text that is not valid UTF-8 at ${path}`);
    }
  }
  return refused;
}

function* pathsOfInvalidText(value: unknown, path: string): Generator<string> {
  if (value === INVALID_UTF8) yield path;
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* pathsOfInvalidText(value[i], `${path}/${i}`);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) yield* pathsOfInvalidText(inner, `${path}/${key}`);
  }
}

function spanPathsUnder(body: Record<string, unknown>, holder: string): string[] {
  const paths: string[] = [];
  listOf(body.resourceSpans).forEach((resourceSpans, r) =>
    listOf(resourceSpans.scopeSpans).forEach((scopeSpans, s) =>
      listOf(scopeSpans.spans).forEach((_, i) => {
        const spanPath = `/resourceSpans/${r}/scopeSpans/${s}/spans/${i}`;
        if (spanPath.startsWith(`${holder}/`)) paths.push(spanPath);
      }),
    ),
  );
  return paths;
}

/** OTLP/JSON writes trace and span ids as hex, where the protobuf bytes were read as base64 text. */
function hexIdsOf(body: Record<string, unknown>): void {
  for (const resourceSpans of listOf(body.resourceSpans)) {
    for (const scopeSpans of listOf(resourceSpans.scopeSpans)) {
      for (const span of listOf(scopeSpans.spans)) {
        hexIds(span, 'traceId', 'spanId', 'parentSpanId');
        for (const link of listOf(span.links)) hexIds(link, 'traceId', 'spanId');
      }
    }
  }
}

function hexIds(holder: Record<string, unknown>, ...keys: string[]) {
  for (const key of keys) {
    const value = holder[key];
    if (typeof value === 'string') holder[key] = Buffer.from(value, 'base64').toString('hex');
  }
}

function listOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? (value as Array<Record<string, unknown>>) : [];
}

/** The folder holding vendor/opentelemetry-proto: the repository root, above src/ingest or dist/src/ingest. */
function findVendorRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, VENDORED_PROTO, TRACE_SERVICE_PROTO))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${VENDORED_PROTO}/${TRACE_SERVICE_PROTO} not found above ${from}`);
    dir = parent;
  }
  return dir;
}
