// OTLP/JSON export requests holding spans built as a framework builds them: one resource, one scope, one trace, the
// spans' ids padded to 16 hex digits, with their parents, status and events. A span runs from 500 ms to 512 ms past
// one fixed second unless `atMs` says otherwise.

export type Value = string | number | boolean;
export interface Span {
  name: string;
  id: string;
  parent?: string;
  attributes: Record<string, Value>;
  status?: { code: number; message?: string };
  events?: Array<{ name: string; attributes: Record<string, Value> }>;
  atMs?: [start: number, end: number];
}

const SECOND_NS = 1795799606n * 1_000_000_000n;
const nanosAt = (ms: number) => String(SECOND_NS + BigInt(ms) * 1_000_000n);

export const TRACE = 'ab'.repeat(16);
const anyValue = (v: Value) =>
  typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : { intValue: String(v) };
const kv = (attributes: Record<string, Value>) => Object.entries(attributes).map(([key, v]) => ({ key, value: anyValue(v) }));
export const ERROR = 2;

export function exportOf(spans: Span[], scope = 'test-scope', service = 'test-service') {
  return {
    resourceSpans: [
      {
        resource: { attributes: kv({ 'service.name': service }) },
        scopeSpans: [
          {
            scope: { name: scope },
            spans: spans.map((s) => ({
              traceId: TRACE,
              spanId: s.id.padStart(16, '0'),
              ...(s.parent ? { parentSpanId: s.parent.padStart(16, '0') } : {}),
              name: s.name,
              startTimeUnixNano: nanosAt(s.atMs?.[0] ?? 500),
              endTimeUnixNano: nanosAt(s.atMs?.[1] ?? 512),
              attributes: kv(s.attributes),
              status: s.status ?? { code: 1 },
              events: (s.events ?? []).map((e) => ({
                name: e.name,
                timeUnixNano: nanosAt(s.atMs?.[1] ?? 510),
                attributes: kv(e.attributes),
              })),
            })),
          },
        ],
      },
    ],
  };
}
export const exception = (type: string | undefined, message: string) => ({
  name: 'exception',
  attributes: { ...(type ? { 'exception.type': type } : {}), 'exception.message': message },
});
