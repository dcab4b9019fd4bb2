// The words a fallback model reads in a failed call: the message's lower-cased word unigrams and bigrams (numbers and
// quoted values masked, so a wording is one feature whatever values it carries), the words of the exception's type
// name, and what the call and its schema show (argument kinds, whether a schema was registered). Bounded: only the
// head of the message and a fixed number of its words are read.

/** Characters of the message read; the substance of every report we know comes first. */
export const MAX_FEATURE_MESSAGE_CHARS = 1000;
/** Words of the message read, after masking. */
export const MAX_FEATURE_WORDS = 120;

export interface FeatureInput {
  message: unknown;
  type: unknown;
  arguments: unknown;
  hasSchema: boolean;
}

const QUOTED = /'[^'\n]{0,80}'|"[^"\n]{0,80}"|`[^`\n]{0,80}`/g;
const NUMBER = /[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?/g;
const WORD = /[a-z_]{1,30}|#|<|>|=/g;

/** The features of one call, without duplicates, in first-seen order. */
export function extractFeatures(input: FeatureInput): string[] {
  const features = new Set<string>();
  const words = messageWords(input.message);
  if (words.length === 0) features.add('m:empty');
  for (let index = 0; index < words.length; index++) {
    features.add(`u:${words[index]}`);
    if (index > 0) features.add(`b:${words[index - 1]} ${words[index]}`);
  }
  for (const word of typeNameWords(input.type)) features.add(`t:${word}`);
  for (const feature of callFeatures(input.arguments, input.hasSchema)) features.add(feature);
  return [...features];
}

/** The message's words as the model reads them: lower-cased, quoted values read `qv`, numbers `#`, bounded. */
export function messageWords(message: unknown): string[] {
  const text = typeof message === 'string' ? message.slice(0, MAX_FEATURE_MESSAGE_CHARS) : '';
  const masked = text.toLowerCase().replace(QUOTED, ' qv ').replace(NUMBER, ' # ');
  return (masked.match(WORD) ?? []).slice(0, MAX_FEATURE_WORDS);
}

/** "System.ArgumentOutOfRangeException" -> system, argument, out, of, range, exception; "ZodError" -> zod, error. */
export function typeNameWords(type: unknown): string[] {
  if (typeof type !== 'string' || type === '') return ['none'];
  const spaced = type
    .slice(0, 200)
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  return spaced.toLowerCase().match(/[a-z]{2,30}/g) ?? ['none'];
}

function callFeatures(args: unknown, hasSchema: boolean): string[] {
  const features = [hasSchema ? 's:schema' : 's:none'];
  if (args === undefined) return [...features, 'a:absent'];
  if (typeof args === 'string') return [...features, 'a:text'];
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [...features, 'a:not_object'];
  const values = Object.values(args as Record<string, unknown>);
  if (values.length === 0) return [...features, 'a:empty'];
  features.push(values.length === 1 ? 'a:one' : 'a:several');
  for (const value of values.slice(0, 50)) features.push(`v:${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`);
  return [...new Set(features)];
}
