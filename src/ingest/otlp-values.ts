// Reading OTLP/JSON values (opentelemetry-proto docs/specification.md): attribute lists, AnyValue, int64 as decimal
// strings, and the JSON text that conventions put arguments and results in.

// Deeper values are dropped: events refuse JSON nested deeper than 64 levels anyway, and recursion must stay bounded.
const MAX_VALUE_DEPTH = 64;

export type Attributes = Map<string, unknown>;

export function attributesOf(list: unknown, depth = 0): Attributes {
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

/** Arguments and results are often JSON text (the conventions allow it); text that is not JSON stays text. */
export function parseJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  try {
    return JSON.parse(trimmed);
  } catch {
    return value;
  }
}

export function nanos(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
  return undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
