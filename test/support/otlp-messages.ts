import { join } from 'node:path';
import { Root } from 'protobufjs';

// The tests' own copy of the OTLP trace export messages, from the vendored official .proto files (never the server's).
const PROTO_DIR = join(__dirname, '..', '..', 'vendor', 'opentelemetry-proto');
const root = new Root();
root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');

export const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
export const ExportResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
