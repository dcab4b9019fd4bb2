/**
 * Refuses `pattern`s that could backtrack catastrophically. JavaScript's regex engine backtracks, and Ajv runs user
 * patterns on every argument the worker and the validate endpoint check, so `^(a+)+$` against "aaaa…b" could stall
 * the process for minutes. Rule: no unbounded repetition of a group that itself repeats without bound or alternates
 * (star height above one, or a repeated alternation), no backreferences, and a length cap. This refuses a few safe
 * patterns too; a schema can always state the same constraint more simply.
 */

export const MAX_PATTERN_LENGTH = 1000;

export function unsafePatternReason(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'is not a valid regular expression';
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'uses a backreference, which can backtrack exponentially';

  // a stack of open groups: does the group contain unbounded repetition, or alternation?
  const groups: Array<{ repeats: boolean; alternates: boolean }> = [{ repeats: false, alternates: false }];
  let lastGroup: { repeats: boolean; alternates: boolean } | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i += 1;
      lastGroup = null;
      continue;
    }
    if (char === '[') {
      i = endOfClass(pattern, i);
      lastGroup = null;
      continue;
    }
    if (char === '(') {
      groups.push({ repeats: false, alternates: false });
      lastGroup = null;
      continue;
    }
    if (char === ')') {
      lastGroup = groups.length > 1 ? groups.pop()! : null;
      continue;
    }
    if (char === '|') {
      groups[groups.length - 1].alternates = true;
      lastGroup = null;
      continue;
    }
    const unbounded = isUnboundedQuantifier(pattern, i);
    if (unbounded) {
      if (lastGroup && (lastGroup.repeats || lastGroup.alternates)) {
        return 'repeats a group that itself repeats or alternates (like (a+)+ or (a|aa)*), which can backtrack exponentially';
      }
      groups[groups.length - 1].repeats = true;
      // a repeated group makes its parent repeat, too
      if (lastGroup) groups[groups.length - 1].repeats = true;
    }
    lastGroup = null;
  }
  return null;
}

/** `*`, `+` or `{n,}` at position i (a bounded `{n,m}` is fine). */
function isUnboundedQuantifier(pattern: string, i: number): boolean {
  const char = pattern[i];
  if (char === '*' || char === '+') return true;
  if (char !== '{') return false;
  return /^\{\d+,\}/.test(pattern.slice(i, i + 12));
}

function endOfClass(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i += 1;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}
