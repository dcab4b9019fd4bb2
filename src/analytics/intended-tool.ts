/**
 * Which registered tool a model meant when it called a name that is not one: `prime_factorise` for
 * `prime_factorization`. Scores each registered name by closeness of the whole name (edit distance on the name without
 * case or separators), by shared words (split on `_ - .`, camelCase and digits; plural, British spelling and
 * abbreviations count as the same word), and by how often the same session called that tool next. Below
 * MATCH_THRESHOLD, or when two tools score within AMBIGUITY_MARGIN of each other, there is no match. Pure.
 */

/** A score at or above this names the intended tool; below it the called name is unlike every registered one. */
export const MATCH_THRESHOLD = 0.65;
/** The best tool must beat the second by this much; otherwise the name is ambiguous and nothing is claimed. */
export const AMBIGUITY_MARGIN = 0.05;
/** Names longer than this are compared on their first MAX_COMPARED_CHARS characters: the distance is quadratic. */
const MAX_COMPARED_CHARS = 100;
/** Verbs and fillers that start many tool names: sharing one says little, missing one says little. */
const FILLER_WORDS = new Set([
  'get',
  'fetch',
  'list',
  'find',
  'do',
  'run',
  'call',
  'tool',
  'func',
  'fn',
  'the',
  'a',
  'an',
  'to',
  'of',
  'for',
  'by',
]);
const FILLER_WEIGHT = 0.3;
/** A shorter name inside a longer one says something only from this length on (`user` is in too many names). */
const MIN_CONTAINED_CHARS = 5;

export interface IntendedToolInput {
  calledName: string;
  registeredTools: readonly string[];
  /** How many sampled failed calls were followed, in their session, by a call to each tool. */
  nextCalls: ReadonlyMap<string, number>;
  /** How many failed calls were sampled for `nextCalls` (the denominator of its shares). */
  sampledCalls: number;
}

export interface IntendedToolMatch {
  tool: string;
  score: number;
  nameSimilarity: number;
  sharedWords: number;
  /** Share of sampled failed calls after which the same session called this tool. */
  nextCallShare: number;
}

export function findIntendedTool(input: IntendedToolInput): IntendedToolMatch | null {
  const candidates = input.registeredTools
    .filter((tool) => tool !== input.calledName)
    .map((tool) => scoreCandidate(input, tool))
    .sort((a, b) => b.score - a.score || a.tool.localeCompare(b.tool));
  const [best, second] = candidates;
  if (!best || best.score < MATCH_THRESHOLD) return null;
  if (second && best.score - second.score < AMBIGUITY_MARGIN) return null;
  return best;
}

function scoreCandidate(input: IntendedToolInput, tool: string): IntendedToolMatch {
  const nameSimilarity = compactSimilarity(input.calledName, tool);
  const sharedWords = wordOverlap(wordsOf(input.calledName), wordsOf(tool));
  const nextCallShare = input.sampledCalls > 0 ? Math.min(1, (input.nextCalls.get(tool) ?? 0) / input.sampledCalls) : 0;
  // the same words in another order (`currency_convert`) are as telling as the same characters
  const base = Math.max((nameSimilarity + sharedWords) / 2, sharedWords * 0.8);
  // what the session did next can lift a close name over the line, never an unrelated one on its own
  const score = base + (1 - base) * 0.5 * nextCallShare;
  return {
    tool,
    score: round(score),
    nameSimilarity: round(nameSimilarity),
    sharedWords: round(sharedWords),
    nextCallShare: round(nextCallShare),
  };
}

/**
 * 1 - edit distance / longer length, on the names lowercased without separators: `getWeather` = `get_weather`. A name
 * that starts or ends the other (`translate` in `translate_text`) counts at least half plus half its share of it.
 */
export function compactSimilarity(a: string, b: string): number {
  const left = compact(a);
  const right = compact(b);
  const [shorter, longer] = left.length <= right.length ? [left, right] : [right, left];
  if (longer.length === 0) return 1;
  const similarity = 1 - editDistance(left, right) / longer.length;
  const isContained = shorter.length >= MIN_CONTAINED_CHARS && (longer.startsWith(shorter) || longer.endsWith(shorter));
  return isContained ? Math.max(similarity, 0.5 + (0.5 * shorter.length) / longer.length) : similarity;
}

/** `getWeatherForecast2` -> ['get', 'weather', 'forecast', '2']; words are stemmed (plural, -ise/-ize). */
export function wordsOf(name: string): string[] {
  return name
    .slice(0, MAX_COMPARED_CHARS)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])|([0-9])([a-zA-Z])/g, '$1$3 $2$4')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
    .map(stem);
}

function stem(word: string): string {
  let stemmed = word.replace(/is(ation|e|ed|ing)$/, 'iz$1');
  if (stemmed.length > 3 && /[^s]s$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/** Weighted share of words the two names have in common, one to one; fillers weigh less. */
function wordOverlap(called: string[], registered: string[]): number {
  const weightOf = (word: string) => (FILLER_WORDS.has(word) ? FILLER_WEIGHT : 1);
  const total = Math.max(
    called.reduce((sum, word) => sum + weightOf(word), 0),
    registered.reduce((sum, word) => sum + weightOf(word), 0),
  );
  if (total === 0) return 0;
  const free = [...registered];
  let shared = 0;
  for (const word of called) {
    const index = free.findIndex((other) => isSameWord(word, other));
    if (index < 0) continue;
    shared += (weightOf(word) + weightOf(free[index])) / 2;
    free.splice(index, 1);
  }
  return Math.min(1, shared / total);
}

/** Equal, an abbreviation (`calc` of `calculate`), a typo (`wether`), or one stem (`factorise`, `factorization`). */
function isSameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  if (/^[0-9]+$/.test(shorter) || /^[0-9]+$/.test(longer)) return false;
  if (shorter.length >= 3 && longer.startsWith(shorter)) return true;
  if (shorter.length >= 4 && 1 - editDistance(a, b) / longer.length >= 0.75) return true;
  const common = commonPrefixLength(a, b);
  return common >= 5 && common / shorter.length >= 0.7;
}

function commonPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function compact(name: string): string {
  return name
    .slice(0, MAX_COMPARED_CHARS)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** Levenshtein distance, two rows. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
