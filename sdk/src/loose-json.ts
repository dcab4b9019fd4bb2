// Reading the providers' request and response bodies without trusting their shape: a field of the wrong type reads as
// absent, so an SDK version with other fields never breaks the caller's request.

export type Json = Record<string, unknown>;

export function objectOf(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function stringOr(value: unknown, fallback: unknown): string | undefined {
  if (typeof value === 'string' && value) return value;
  return typeof fallback === 'string' && fallback ? fallback : undefined;
}

/** A result's text: a string as is, text parts joined (`{type: "text" | "input_text", text}`), anything else as JSON. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((part) => typeof objectOf(part).text === 'string')) {
    return content.map((part) => objectOf(part).text as string).join('\n');
  }
  return content === undefined ? '' : JSON.stringify(content);
}
