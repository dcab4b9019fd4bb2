import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Root, Type } from 'protobufjs';
import { ExportTraceResult, OtlpBodyError } from './otlp-spans';

// OTLP/HTTP binary protobuf, decoded with the official opentelemetry-proto definitions vendored in
// vendor/opentelemetry-proto (see its README for the version), loaded once at start. A decoded request is turned into
// the OTLP/JSON shape (hex ids, int64 as decimal strings, enums as integers, NaN and the infinities as text) so that
// mapOtlpTraces stays the one mapping from spans to events.

const VENDORED_PROTO = join('vendor', 'opentelemetry-proto');
const TRACE_SERVICE_PROTO = 'opentelemetry/proto/collector/trace/v1/trace_service.proto';
const PACKAGE = 'opentelemetry.proto.collector.trace.v1';
const TO_OTLP_JSON = { longs: String, enums: Number, bytes: String, json: true } as const;

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

  /** An ExportTraceServiceRequest in the OTLP/JSON shape. Throws OtlpBodyError when the bytes are not one. */
  decodeRequest(bytes: Uint8Array): unknown {
    let message;
    try {
      // protobufjs stops at 100 levels of nesting, so a deeply nested value cannot exhaust the stack
      message = this.request.decode(bytes);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new OtlpBodyError([{ path: '', message: `is not a protobuf ExportTraceServiceRequest (${reason})` }]);
    }
    const body = this.request.toObject(message, TO_OTLP_JSON);
    hexIdsOf(body);
    return body;
  }

  /** The ExportTraceServiceResponse for the JSON answer the traces service built: partial_success when spans were rejected. */
  encodeResponse(result: ExportTraceResult): Buffer {
    const bytes = this.response.encode(this.response.fromObject(result)).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
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
