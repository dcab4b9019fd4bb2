import { FieldError } from '../infra/http/api-error';
import { Attributes, attributesOf, isObject, nanos } from './otlp-values';
import { conventionOf, SpanView, toolSpanEvent, ToolSpanEvent } from './tool-span-event';

// OTLP/HTTP JSON (opentelemetry-proto docs/specification.md): lowerCamelCase keys, hex trace and span ids, int64 as
// decimal strings, enums as integers. Receivers must ignore unknown fields, so only what is read here is checked.
// A span is a tool execution when one of the conventions of tool-span-conventions.ts reads it as one (the GenAI
// execute_tool span, OpenInference TOOL spans, the AI SDK's ai.toolCall, ...); every other span is counted and ignored.

// A parent chain longer than this is cut, and at most this many earlier siblings are read: spans come from the client,
// and a cycle, a deep chain or a crowd of siblings must stay cheap.
const MAX_ANCESTORS = 32;
const MAX_SIBLINGS = 32;

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

/** The OTLP ExportTraceServiceResponse: empty when every span was taken, partialSuccess otherwise. */
export interface ExportTraceResult {
  partialSuccess?: { rejectedSpans: number; errorMessage: string };
}

export class OtlpBodyError extends Error {
  constructor(readonly details: FieldError[]) {
    super(details.map((d) => `${d.path} ${d.message}`).join('; '));
  }
}

/**
 * Maps an ExportTraceServiceRequest to tool-call events. Throws OtlpBodyError when the body is not one. The spans of
 * `refusedSpans` (span path -> why; text a protobuf export could not carry) are rejected, whatever their kind.
 */
export function mapOtlpTraces(body: unknown, refusedSpans: ReadonlyMap<string, string> = new Map()): OtlpMapping {
  const mapping: OtlpMapping = { events: [], spanPaths: [], rejected: [], ignoredSpans: 0 };
  const views = spanViewsOf(body);
  // so that a tool span can read the model, session and agent of its ancestors and the model of the call before it;
  // a refused span holds text that could not be read, so it lends nothing
  const readable = views.filter(({ path }) => !refusedSpans.has(path)).map(({ view }) => view);
  const byId = new Map(readable.filter((view) => view.traceId && view.spanId).map((view) => [`${view.traceId}:${view.spanId}`, view]));
  const childrenByStart = childrenByStartTime(readable);
  for (const { view, path } of views) {
    const refusal = refusedSpans.get(path);
    if (refusal) {
      mapping.rejected.push({ path, message: refusal });
      continue;
    }
    const convention = conventionOf(view);
    if (!convention) {
      mapping.ignoredSpans += 1;
      continue;
    }
    const event = toolSpanEvent(view, convention, {
      ancestors: ancestorsOf(view, byId),
      earlierSiblings: earlierSiblingsOf(view, childrenByStart),
    });
    if ('problem' in event) {
      mapping.rejected.push({ path, message: event.problem });
      continue;
    }
    mapping.events.push(event);
    mapping.spanPaths.push(path);
  }
  return mapping;
}

/** Every span of the export with its path; throws OtlpBodyError naming the first part that is not OTLP. */
function spanViewsOf(body: unknown): Array<{ view: SpanView; path: string }> {
  if (!isObject(body)) throw new OtlpBodyError([{ path: '', message: 'must be an ExportTraceServiceRequest object' }]);
  const views: Array<{ view: SpanView; path: string }> = [];
  listAt(body, 'resourceSpans', '/resourceSpans').forEach((resourceSpan, r) => {
    const resourcePath = `/resourceSpans/${r}`;
    if (!isObject(resourceSpan)) throw new OtlpBodyError([{ path: resourcePath, message: 'must be an object' }]);
    const resource = isObject(resourceSpan.resource) ? attributesOf(resourceSpan.resource.attributes) : new Map();
    listAt(resourceSpan, 'scopeSpans', `${resourcePath}/scopeSpans`).forEach((scopeSpan, s) => {
      const scopePath = `${resourcePath}/scopeSpans/${s}`;
      if (!isObject(scopeSpan)) throw new OtlpBodyError([{ path: scopePath, message: 'must be an object' }]);
      const scopeName = isObject(scopeSpan.scope) && typeof scopeSpan.scope.name === 'string' ? scopeSpan.scope.name : undefined;
      listAt(scopeSpan, 'spans', `${scopePath}/spans`).forEach((span, i) => {
        const path = `${scopePath}/spans/${i}`;
        if (!isObject(span)) throw new OtlpBodyError([{ path, message: 'must be an object' }]);
        const view: SpanView = {
          span,
          name: typeof span.name === 'string' ? span.name : '',
          attributes: attributesOf(span.attributes),
          resource,
          scopeName,
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: hexId(span.parentSpanId),
        };
        views.push({ view, path });
      });
    });
  });
  return views;
}

/** The attributes of the span's ancestors that are in this export, nearest first. */
function ancestorsOf(view: SpanView, byId: ReadonlyMap<string, SpanView>): Attributes[] {
  const ancestors: Attributes[] = [];
  const seen = new Set<SpanView>([view]);
  let parent = view.parentSpanId && byId.get(`${view.traceId}:${view.parentSpanId}`);
  while (parent && !seen.has(parent) && ancestors.length < MAX_ANCESTORS) {
    ancestors.push(parent.attributes);
    seen.add(parent);
    parent = parent.parentSpanId && byId.get(`${parent.traceId}:${parent.parentSpanId}`);
  }
  return ancestors;
}

/** Each parent's children in this export, by start time, ascending. */
function childrenByStartTime(views: SpanView[]): Map<string, Array<{ start: bigint; view: SpanView }>> {
  const children = new Map<string, Array<{ start: bigint; view: SpanView }>>();
  for (const view of views) {
    const start = nanos(view.span.startTimeUnixNano);
    if (!view.parentSpanId || start === undefined) continue;
    const key = `${view.traceId}:${view.parentSpanId}`;
    const list = children.get(key) ?? [];
    list.push({ start, view });
    children.set(key, list);
  }
  for (const list of children.values()) list.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  return children;
}

/**
 * The attributes of the spans under the same parent that started before this one, the latest first: the model call
 * that asked for a tool is its sibling in the AI SDK (ai.generateText.doGenerate, ended before the tool starts) and in
 * Mastra (chat, which ends after its step's tools).
 */
function earlierSiblingsOf(view: SpanView, childrenByStart: ReadonlyMap<string, Array<{ start: bigint; view: SpanView }>>): Attributes[] {
  const start = nanos(view.span.startTimeUnixNano);
  const siblings = view.parentSpanId ? childrenByStart.get(`${view.traceId}:${view.parentSpanId}`) : undefined;
  if (!siblings || start === undefined) return [];
  // binary search for the first sibling that started after this span
  let low = 0;
  let high = siblings.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (siblings[middle].start <= start) low = middle + 1;
    else high = middle;
  }
  return siblings
    .slice(Math.max(0, low - MAX_SIBLINGS), low)
    .reverse()
    .filter((sibling) => sibling.view !== view)
    .map((sibling) => sibling.view.attributes);
}

function hexId(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.toLowerCase() : undefined;
}

function listAt(holder: Record<string, unknown>, key: string, path: string): unknown[] {
  const value = holder[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpBodyError([{ path, message: 'must be an array' }]);
  return value;
}
