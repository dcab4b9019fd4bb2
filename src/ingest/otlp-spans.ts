import type { AcceptedEvent } from '../infra/queue/queue.payloads';
import { FieldError } from '../infra/http/api-error';

// OTLP/HTTP JSON (opentelemetry-proto docs/specification.md): lowerCamelCase keys, hex trace and span ids, int64 as
// decimal strings, enums as integers. Receivers must ignore unknown fields, so only what is read here is checked.
// A span is a tool execution when it follows the GenAI conventions (gen_ai.operation.name = execute_tool) or is an
// OpenInference TOOL span; every other span is counted and ignored.

const STATUS_CODE_ERROR = 2;
const MAX_ID_CHARS = 128;
// Deeper values are dropped: events refuse JSON nested deeper than 64 levels anyway, and recursion must stay bounded.
const MAX_VALUE_DEPTH = 64;

export interface OtlpMapping {
  /** Events in our wire format, one per tool span, for the ingest path to validate and queue. */
  events: ToolSpanEvent[];
  /** Where each event came from, in the same order, to name rejected spans. */
  spanPaths: string[];
  /** Tool spans that could not become an event, with why. */
  rejected: FieldError[];
  /** Spans that are not tool executions. */
  ignoredSpans: number;
}

/** An event as /v1/events takes it (the ingest path applies defaults and limits), from one tool span. */
export type ToolSpanEvent = Omit<AcceptedEvent, 'occurredAt' | 'descriptionVersion' | 'prompt' | 'metadata'> & { occurredAt?: string };

/** The OTLP ExportTraceServiceResponse: empty when every span was taken, partialSuccess otherwise. */
export interface ExportTraceResult {
  partialSuccess?: { rejectedSpans: number; errorMessage: string };
}

export class OtlpBodyError extends Error {
  constructor(readonly details: FieldError[]) {
    super(details.map((d) => `${d.path} ${d.message}`).join('; '));
  }
}

type Attributes = Map<string, unknown>;

/**
 * Maps an ExportTraceServiceRequest to tool-call events. Throws OtlpBodyError when the body is not one. The spans of
 * `refusedSpans` (span path -> why; text a protobuf export could not carry) are rejected, whatever their kind.
 */
export function mapOtlpTraces(body: unknown, refusedSpans: ReadonlyMap<string, string> = new Map()): OtlpMapping {
  const mapping: OtlpMapping = { events: [], spanPaths: [], rejected: [], ignoredSpans: 0 };
  if (!isObject(body)) throw new OtlpBodyError([{ path: '', message: 'must be an ExportTraceServiceRequest object' }]);
  const resourceSpans = listAt(body, 'resourceSpans', '/resourceSpans');
  resourceSpans.forEach((resourceSpan, r) => {
    const resourcePath = `/resourceSpans/${r}`;
    if (!isObject(resourceSpan)) throw new OtlpBodyError([{ path: resourcePath, message: 'must be an object' }]);
    const resource = isObject(resourceSpan.resource) ? attributesOf(resourceSpan.resource.attributes) : new Map();
    listAt(resourceSpan, 'scopeSpans', `${resourcePath}/scopeSpans`).forEach((scopeSpan, s) => {
      const scopePath = `${resourcePath}/scopeSpans/${s}`;
      if (!isObject(scopeSpan)) throw new OtlpBodyError([{ path: scopePath, message: 'must be an object' }]);
      const scopeName = isObject(scopeSpan.scope) && typeof scopeSpan.scope.name === 'string' ? scopeSpan.scope.name : undefined;
      listAt(scopeSpan, 'spans', `${scopePath}/spans`).forEach((span, i) => {
        const spanPath = `${scopePath}/spans/${i}`;
        if (!isObject(span)) throw new OtlpBodyError([{ path: spanPath, message: 'must be an object' }]);
        const refusal = refusedSpans.get(spanPath);
        if (refusal) {
          mapping.rejected.push({ path: spanPath, message: refusal });
          return;
        }
        const attributes = attributesOf(span.attributes);
        if (!isToolSpan(attributes)) {
          mapping.ignoredSpans += 1;
          return;
        }
        const event = toolSpanEvent(span, attributes, resource, scopeName);
        if ('problem' in event) {
          mapping.rejected.push({ path: spanPath, message: event.problem });
          return;
        }
        mapping.events.push(event);
        mapping.spanPaths.push(spanPath);
      });
    });
  });
  return mapping;
}

function isToolSpan(attributes: Attributes): boolean {
  return attributes.get('gen_ai.operation.name') === 'execute_tool' || attributes.get('openinference.span.kind') === 'TOOL';
}

function toolSpanEvent(
  span: Record<string, unknown>,
  attributes: Attributes,
  resource: Attributes,
  scopeName: string | undefined,
): ToolSpanEvent | { problem: string } {
  const tool = firstString(attributes, 'gen_ai.tool.name', 'tool.name') ?? toolNameFromSpanName(span.name);
  if (!tool) return { problem: 'has no gen_ai.tool.name (or tool.name) attribute' };
  const traceId = typeof span.traceId === 'string' && span.traceId ? span.traceId.toLowerCase() : undefined;
  const spanId = typeof span.spanId === 'string' && span.spanId ? span.spanId.toLowerCase() : undefined;
  if (!traceId || !spanId) return { problem: 'has no traceId or spanId' };

  const exception = lastException(span.events);
  const statusCode = isObject(span.status) ? Number(span.status.code) : 0;
  const statusMessage = isObject(span.status) && typeof span.status.message === 'string' ? span.status.message : '';
  const errorType = firstString(attributes, 'error.type');
  const isError = statusCode === STATUS_CODE_ERROR || errorType !== undefined;

  // The span id is unique per trace: exporters that retry a batch resend the same ids, which ingest never stores twice.
  const event: ToolSpanEvent = { id: `otel:${traceId}:${spanId}`.slice(0, MAX_ID_CHARS), tool, status: isError ? 'error' : 'success' };
  const args = attributes.get('gen_ai.tool.call.arguments') ?? attributes.get('input.value');
  if (args !== undefined) event.arguments = parseJsonText(args);
  if (isError) {
    const message = statusMessage || exception?.message || errorType || 'Tool span ended with status ERROR';
    event.error = { message };
    const type = exception?.type ?? (errorType && errorType !== '_OTHER' ? errorType : undefined);
    if (type) event.error.type = type;
    if (exception?.stacktrace) event.error.stack = exception.stacktrace;
  } else {
    const result = attributes.get('gen_ai.tool.call.result') ?? attributes.get('output.value');
    if (result !== undefined) event.result = parseJsonText(result);
  }
  const start = nanos(span.startTimeUnixNano);
  const end = nanos(span.endTimeUnixNano);
  if (start !== undefined && start > 0n) event.occurredAt = new Date(Number(start / 1_000_000n)).toISOString();
  if (start !== undefined && end !== undefined && end >= start) event.durationMs = Number(end - start) / 1e6;
  event.traceId = traceId;
  event.runId = spanId;
  const toolCallId = firstString(attributes, 'gen_ai.tool.call.id', 'tool.id', 'tool_call.id');
  if (toolCallId) event.toolCallId = toolCallId;
  const agent = firstString(attributes, 'gen_ai.agent.name') ?? firstString(resource, 'service.name');
  if (agent) event.agent = agent;
  const model = firstString(attributes, 'gen_ai.request.model', 'llm.model_name');
  if (model) event.model = model;
  const sessionId = firstString(attributes, 'gen_ai.conversation.id', 'session.id');
  if (sessionId) event.sessionId = sessionId;
  if (scopeName) event.framework = scopeName.slice(0, 100);
  return event;
}

/** GenAI spans are named `execute_tool {gen_ai.tool.name}`; used only when the attribute itself is missing. */
function toolNameFromSpanName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const match = /^execute_tool (\S.*)$/.exec(name);
  return match?.[1];
}

function lastException(events: unknown): { type?: string; message?: string; stacktrace?: string } | undefined {
  if (!Array.isArray(events)) return undefined;
  const exceptions = events.filter((e) => isObject(e) && e.name === 'exception') as Array<Record<string, unknown>>;
  const last = exceptions.at(-1);
  if (!last) return undefined;
  const attributes = attributesOf(last.attributes);
  return {
    type: firstString(attributes, 'exception.type'),
    message: firstString(attributes, 'exception.message'),
    stacktrace: firstString(attributes, 'exception.stacktrace'),
  };
}

/** Arguments and results are often JSON text (the conventions allow it); text that is not JSON stays text. */
function parseJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  try {
    return JSON.parse(trimmed);
  } catch {
    return value;
  }
}

function nanos(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
  return undefined;
}

function attributesOf(list: unknown, depth = 0): Attributes {
  const attributes: Attributes = new Map();
  if (!Array.isArray(list)) return attributes;
  for (const item of list) {
    if (isObject(item) && typeof item.key === 'string') attributes.set(item.key, anyValue(item.value, depth));
  }
  return attributes;
}

/** OTLP AnyValue to plain JSON. int64 arrives as a decimal string; it stays a number only while it is exact. */
function anyValue(value: unknown, depth: number): unknown {
  if (!isObject(value) || depth > MAX_VALUE_DEPTH) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) {
    const n = Number(value.intValue);
    return Number.isSafeInteger(n) ? n : String(value.intValue);
  }
  if ('doubleValue' in value) {
    // OTLP/JSON writes NaN and the infinities as strings; kept as that text, since JSON has no number for them
    const n = Number(value.doubleValue);
    return typeof value.doubleValue === 'string' && !Number.isFinite(n) ? value.doubleValue : n;
  }
  if ('arrayValue' in value) {
    const values = isObject(value.arrayValue) && Array.isArray(value.arrayValue.values) ? value.arrayValue.values : [];
    return values.map((child) => anyValue(child, depth + 1));
  }
  if ('kvlistValue' in value) {
    const out: Record<string, unknown> = {};
    const values = isObject(value.kvlistValue) && Array.isArray(value.kvlistValue.values) ? value.kvlistValue.values : [];
    for (const [key, child] of attributesOf(values, depth + 1)) {
      Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if ('bytesValue' in value) return value.bytesValue;
  return undefined;
}

function firstString(attributes: Attributes, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = attributes.get(key);
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function listAt(holder: Record<string, unknown>, key: string, path: string): unknown[] {
  const value = holder[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpBodyError([{ path, message: 'must be an array' }]);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
