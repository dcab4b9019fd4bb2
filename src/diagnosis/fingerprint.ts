import { createHash } from 'node:crypto';

// Groups errors the way Sentry does (getsentry/sentry grouping/parameterization): keep the first two non-empty lines
// and replace the variable parts with placeholders, so "n=25" and "n=30" land in one error group.

const MAX_TEMPLATE_LENGTH = 512;
// Bounds the regex work on pathological messages; the template only needs the first two lines anyway.
const MAX_SCANNED_CHARS = 8192;

/** Ordered: more specific shapes first, so a UUID is not eaten as hex runs and a date not as integers. */
const PARAMETER_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/\b[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}\b/g, '<email>'],
  [/\b(?:https?|wss?|ftp):\/\/[^\s'"<>]{1,2048}/gi, '<url>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}\b/g, '<ip>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<date>'],
  [/\b0x[0-9a-f]{1,64}\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]{0,63}[a-f])(?=[0-9a-f]{0,63}\d)[0-9a-f]{8,64}\b/gi, '<hex>'],
  [/'[^'\n]{0,256}'/g, '<str>'],
  [/"[^"\n]{0,256}"/g, '<str>'],
  [/`[^`\n]{0,256}`/g, '<str>'],
  [/(?<![\w.])[-+]?\d{1,32}\.\d{1,32}(?:e[-+]?\d{1,4})?(?!\w|\.\d)/gi, '<float>'],
  // a number may end a sentence ("got 7."), but "1.2.3" stays one token
  [/(?<![\w.])[-+]?\d{1,64}(?!\w|\.\d)/g, '<int>'],
];

export function normalizeMessageTemplate(message: string): string {
  const text = typeof message === 'string' ? message.slice(0, MAX_SCANNED_CHARS) : String(message ?? '');
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  let template = lines.slice(0, 2).join(' ');
  if (lines.length > 2) template += ' ...';
  for (const [pattern, placeholder] of PARAMETER_PATTERNS) template = template.replace(pattern, placeholder);
  return template.replace(/\s+/g, ' ').trim().slice(0, MAX_TEMPLATE_LENGTH);
}

export interface FingerprintParts {
  tool: string;
  category: string;
  subtype: string | null;
  argumentPath: string | null;
  messageTemplate: string;
}

/** Stable 40-char SHA-1 hex of the grouping key; persisted as the error group's natural key. */
export function computeFingerprint(parts: FingerprintParts): string {
  // A separator that cannot occur in any part keeps ("a", "b|c") and ("a|b", "c") apart.
  const key = [parts.tool, parts.category, parts.subtype ?? '', parts.argumentPath ?? '', parts.messageTemplate].join('\u0000');
  return createHash('sha1').update(key, 'utf8').digest('hex');
}
