import type { AcceptedEvent } from '../infra/queue/queue.payloads';
import { Attributes, attributesOf, isObject, nanos, parseJsonText } from './otlp-values';
import { SpanRule, ToolSpanConvention, TOOL_SPAN_CONVENTIONS, ValueSource } from './tool-span-conventions';

const STATUS_CODE_ERROR = 2;
const MAX_ID_CHARS = 128;

/** An event as /v1/events takes it (the ingest path applies defaults and limits), from one tool span. */
export type ToolSpanEvent = Omit<AcceptedEvent, 'occurredAt' | 'descriptionVersion' | 'prompt' | 'metadata'> & { occurredAt?: string };

/** One span of an export, with what the mapper reads of its surroundings. */
export interface SpanView {
  span: Record<string, unknown>;
  name: string;
  attributes: Attributes;
  resource: Attributes;
  scopeName: string | undefined;
  traceId: string | undefined;
  spanId: string | undefined;
  parentSpanId: string | undefined;
}

/** The spans around a tool span in the same export, nearest first. */
export interface SpanRelatives {
  ancestors: readonly Attributes[];
  /** Under the same parent, started before the tool span. */
  earlierSiblings: readonly Attributes[];
}

/**
 * The convention that reads `view` as a tool call, or undefined when the span is not one: the first whose `when`
 * holds, unless its `unless` holds, which says the span is not a tool call at all (no later row is tried).
 */
export function conventionOf(view: SpanView): ToolSpanConvention | undefined {
  const convention = TOOL_SPAN_CONVENTIONS.find((row) => row.when.some((rule) => holds(rule, view)));
  return convention?.unless?.some((rule) => holds(rule, view)) ? undefined : convention;
}

function holds(rule: SpanRule, view: SpanView): boolean {
  if (rule.name && !rule.name.test(view.name)) return false;
  if (rule.scope && !(view.scopeName !== undefined && rule.scope.test(view.scopeName))) return false;
  return Object.entries(rule.attributes ?? {}).every(([key, expected]) => {
    const value = view.attributes.get(key);
    if (expected === true) return value !== undefined && value !== '';
    if (expected instanceof RegExp) return typeof value === 'string' && expected.test(value);
    return value === expected;
  });
}

/**
 * The event of a tool span read by `convention`. Model, session and agent come from the span, else from its ancestors
 * in the same export (nearest first), where most frameworks put them; the model also from the earlier siblings.
 */
export function toolSpanEvent(
  view: SpanView,
  convention: ToolSpanConvention,
  relatives: SpanRelatives,
): ToolSpanEvent | { problem: string } {
  const { span, attributes } = view;
  const read = (keys: readonly string[]) => firstString(attributes, keys, convention.placeholders);
  const tool = read(convention.tool) ?? (convention.toolFromSpanName?.exec(view.name)?.[1] || undefined);
  if (!tool)
    return {
      problem: `has no ${convention.tool[0]}${convention.tool.length > 1 ? ` (or ${convention.tool.slice(1).join(', ')})` : ''} attribute`,
    };
  const { traceId, spanId } = view;
  if (!traceId || !spanId) return { problem: 'has no traceId or spanId' };

  const exception = lastEventAttributes(span.events, 'exception');
  const statusCode = isObject(span.status) ? Number(span.status.code) : 0;
  const statusMessage = isObject(span.status) && typeof span.status.message === 'string' ? span.status.message : '';
  // the raw value marks a failure even when it is a placeholder such as GenAI's _OTHER: it only says no type is known
  const rawErrorType = firstString(attributes, convention.errorType);
  const rawResult = valueOf(view, convention.result, convention.placeholders);
  const result = rawResult === undefined ? undefined : parseJsonText(rawResult);
  const failureReturned = failureInResult(result, convention);
  const isError =
    statusCode === STATUS_CODE_ERROR ||
    rawErrorType !== undefined ||
    failureReturned !== undefined ||
    (convention.failedWhen ?? []).some((rule) => holds(rule, view));

  // The span id is unique per trace: exporters that retry a batch resend the same ids, which ingest never stores twice.
  const event: ToolSpanEvent = { id: `otel:${traceId}:${spanId}`.slice(0, MAX_ID_CHARS), tool, status: isError ? 'error' : 'success' };
  const args = valueOf(view, convention.arguments, convention.placeholders);
  if (args !== undefined) event.arguments = parseJsonText(args);
  if (isError) {
    const exceptionMessage = firstString(exception, ['exception.message']);
    const stated = statusMessage || exceptionMessage || read(convention.errorMessage) || failureReturned;
    const message = (stated && convention.unwrapErrorMessage?.(stated)) || stated || rawErrorType || 'Tool span ended with status ERROR';
    event.error = { message };
    const type = firstString(exception, ['exception.type']) ?? read(convention.errorType);
    if (type && type !== '_OTHER') event.error.type = type;
    const stack = firstString(exception, ['exception.stacktrace']);
    if (stack) event.error.stack = stack;
  } else if (result !== undefined) {
    event.result = result;
  }
  const start = nanos(span.startTimeUnixNano);
  const end = nanos(span.endTimeUnixNano);
  if (start !== undefined && start > 0n) event.occurredAt = new Date(Number(start / 1_000_000n)).toISOString();
  if (start !== undefined && end !== undefined && end >= start) event.durationMs = Number(end - start) / 1e6;
  event.traceId = traceId;
  event.runId = spanId;
  const toolCallId = read(convention.toolCallId);
  if (toolCallId) event.toolCallId = toolCallId;
  const inherited = (keys: readonly string[], from: readonly Attributes[]) =>
    from.map((held) => firstString(held, keys, convention.placeholders)).find((value) => value !== undefined);
  const lineage = [attributes, ...relatives.ancestors];
  const agent = inherited(convention.agent, lineage) ?? firstString(view.resource, ['service.name']);
  if (agent) event.agent = agent;
  const model = inherited(convention.model, [...lineage, ...relatives.earlierSiblings]);
  if (model) event.model = model;
  const sessionId = inherited(convention.sessionId, lineage);
  if (sessionId) event.sessionId = sessionId;
  if (view.scopeName) event.framework = view.scopeName.slice(0, 100);
  return event;
}

/** The message of a failure the framework caught and returned to the model as the tool's result. */
function failureInResult(result: unknown, convention: ToolSpanConvention): string | undefined {
  const marker = convention.failureInResult;
  if (!marker || !isObject(result) || result[marker.flag] !== true) return undefined;
  const message = result[marker.message];
  return typeof message === 'string' && message !== '' ? message : 'The tool returned an error';
}

function valueOf(view: SpanView, sources: readonly ValueSource[], placeholders: readonly string[] = []): unknown {
  for (const source of sources) {
    const value =
      typeof source === 'string' ? view.attributes.get(source) : lastEventAttributes(view.span.events, source.event).get(source.attribute);
    if (value !== undefined && !(typeof value === 'string' && placeholders.includes(value))) return value;
  }
  return undefined;
}

function lastEventAttributes(events: unknown, name: string): Attributes {
  if (!Array.isArray(events)) return new Map();
  const last = events.filter((e): e is Record<string, unknown> => isObject(e) && e.name === name).at(-1);
  return last ? attributesOf(last.attributes) : new Map();
}

function firstString(attributes: Attributes, keys: readonly string[], placeholders: readonly string[] = []): string | undefined {
  for (const key of keys) {
    const value = attributes.get(key);
    if (typeof value === 'string' && value !== '' && !placeholders.includes(value)) return value;
  }
  return undefined;
}
