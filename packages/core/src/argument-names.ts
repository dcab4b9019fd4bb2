// Finds the declared argument a model most likely meant when it used a name the tool does not accept.
// Tiers, strongest first: same name modulo case and separators; singular/plural; known abbreviation; small typo;
// one name's words a subset of the other's. Within a tier a tie between two candidates is ambiguous and yields null,
// because a wrong "intended argument" would teach the model the wrong fix.

/** Groups of names that mean the same argument; compared after normalization (lower case, no separators). */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['n', 'num', 'number', 'no'],
  ['qty', 'quantity', 'count', 'cnt'],
  ['q', 'query', 'search', 'searchquery', 'querystring', 'term', 'searchterm'],
  ['msg', 'message', 'text', 'content'],
  ['id', 'identifier', 'key'],
  ['desc', 'description'],
  ['loc', 'location', 'place'],
  ['addr', 'address'],
  ['dir', 'directory', 'folder'],
  ['val', 'value'],
  ['idx', 'index', 'position', 'pos'],
  ['len', 'length', 'size'],
  ['max', 'maximum', 'limit'],
  ['min', 'minimum'],
  ['lat', 'latitude'],
  ['lon', 'lng', 'long', 'longitude'],
  ['temp', 'temperature'],
  ['dt', 'date', 'day'],
  ['img', 'image', 'picture'],
  ['src', 'source', 'from'],
  ['dst', 'dest', 'destination', 'target', 'to'],
  ['pwd', 'password', 'pass'],
  ['usr', 'user', 'username', 'login'],
  ['amt', 'amount', 'sum'],
  ['url', 'uri', 'link', 'href'],
  ['lang', 'language', 'locale'],
  ['filename', 'file', 'path', 'filepath'],
  ['city', 'town', 'cityname'],
  ['email', 'mail', 'emailaddress'],
];

const SYNONYMS: ReadonlyMap<string, ReadonlySet<string>> = buildSynonymIndex(SYNONYM_GROUPS);

// The matcher's work per call is bounded whatever the call or the schema holds (issue 33: 300 unknown names of 200
// characters against 280 declared ones took 57 s with a full edit-distance table per pair):
/** Longer names are never matched: real argument names are far shorter, and each comparison costs their length. */
export const MAX_MATCHED_NAME_CHARS = 64;
/** Past this many candidates no match is proposed: a tie with a candidate left unexamined could not be ruled out. */
export const MAX_MATCHED_CANDIDATES = 256;
/**
 * Unknown names of one call (or one event) looked up at most: models misname one or two arguments, not dozens; the
 * rest are reported as unknown without an intended name. With the two bounds above, a call's matching is at most
 * 16 x 256 banded comparisons of 64 characters (a few ms).
 */
export const MAX_MATCHED_UNKNOWN_NAMES = 16;

interface Candidate {
  name: string;
  key: string;
}

/**
 * The declared name `wrong` most likely stands for, or null. At most MAX_MATCHED_CANDIDATES candidates of at most
 * MAX_MATCHED_NAME_CHARS characters each are examined, each normalized once and compared by edit distance only within
 * a band of the allowed distance: a call costs O(candidates x name length).
 */
export function matchArgumentName(wrong: string, candidates: readonly string[]): string | null {
  if (typeof wrong !== 'string' || wrong.length === 0 || wrong.length > MAX_MATCHED_NAME_CHARS) return null;
  if (candidates.length > MAX_MATCHED_CANDIDATES) return null;
  const pool: Candidate[] = [];
  for (const name of candidates) {
    if (typeof name === 'string' && name !== wrong && name.length <= MAX_MATCHED_NAME_CHARS) pool.push({ name, key: normalizeName(name) });
  }
  if (pool.length === 0) return null;
  const wrongKey = normalizeName(wrong);
  const wrongSingular = singularOf(wrongKey);

  const tiers: ((candidateKey: string) => boolean)[] = [
    (candidateKey) => candidateKey === wrongKey,
    (candidateKey) => singularOf(candidateKey) === wrongSingular,
    (candidateKey) => areSynonyms(wrongKey, candidateKey),
  ];
  for (const isMatch of tiers) {
    const found = uniqueMatch(pool, isMatch);
    if (found !== undefined) return found;
  }

  const byDistance = closestByEditDistance(wrongKey, pool);
  if (byDistance !== undefined) return byDistance;

  const wrongWords = splitWords(wrong);
  const found = uniqueMatch(pool, (candidateKey) => haveWordSubset(wrongWords, candidateKey, wrongKey));
  return found ?? null;
}

/** Lower case without separators, so numberOfItems, number_of_items and number-of-items compare equal. */
function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[\s_\-.]+/g, '');
}

/** English singular of a plural name or word: queries -> query, boxes -> box, items -> item; bus and class stay. */
export function singularOf(key: string): string {
  if (key.length > 4 && key.endsWith('ies')) return `${key.slice(0, -3)}y`;
  if (key.length > 4 && /(?:ss|sh|ch|x|z)es$/.test(key)) return key.slice(0, -2);
  if (key.length > 3 && key.endsWith('s') && !key.endsWith('ss')) return key.slice(0, -1);
  return key;
}

function areSynonyms(a: string, b: string): boolean {
  const aForms = [a, singularOf(a)];
  const bForms = [b, singularOf(b)];
  return aForms.some((form) => {
    const group = SYNONYMS.get(form);
    return group !== undefined && bForms.some((other) => group.has(other));
  });
}

/** Returns the single candidate whose normalized key satisfies the predicate; undefined for none or a tie. */
function uniqueMatch(pool: readonly Candidate[], isMatch: (candidateKey: string) => boolean): string | undefined {
  let found: Candidate | undefined;
  for (const candidate of pool) {
    if (!isMatch(candidate.key)) continue;
    if (found !== undefined && found.key !== candidate.key) return undefined;
    found ??= candidate;
  }
  return found?.name;
}

function closestByEditDistance(wrongKey: string, pool: readonly Candidate[]): string | undefined {
  const allowed = allowedEditDistance(wrongKey.length);
  if (allowed === 0) return undefined;
  let best: Candidate | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let isTie = false;
  for (const candidate of pool) {
    const limit = Math.min(allowed, allowedEditDistance(candidate.key.length));
    // the cheap prefilter: names whose lengths differ by more than the limit cannot be within it
    if (limit === 0 || Math.abs(candidate.key.length - wrongKey.length) > limit) continue;
    const distance = damerauLevenshtein(wrongKey, candidate.key, limit);
    if (distance > limit) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      isTie = false;
    } else if (distance === bestDistance && best?.key !== candidate.key) {
      isTie = true;
    }
  }
  return isTie ? undefined : best?.name;
}

/** Short names tolerate fewer edits: "id" vs "ip" is a different argument, "quantty" vs "quantity" is a typo. */
function allowedEditDistance(length: number): number {
  if (length <= 3) return 0;
  if (length <= 6) return 1;
  return 2;
}

/**
 * Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). With `limit`, only the band
 * of cells within `limit` of the diagonal is computed and the walk stops as soon as a row exceeds it: O(length x
 * limit) instead of O(length^2); any distance above `limit` is answered as `limit + 1`.
 */
export function damerauLevenshtein(a: string, b: string, limit: number = Math.max(a.length, b.length)): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const beyond = limit + 1;
  // three rows, reused: row i - 2 (for transpositions), row i - 1 and row i; cells outside the band read as `beyond`
  let before = new Int32Array(b.length + 2).fill(beyond);
  let previous = new Int32Array(b.length + 2).fill(beyond);
  let current = new Int32Array(b.length + 2).fill(beyond);
  for (let j = 0; j <= b.length && j <= limit; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    current[from - 1] = from === 1 && i <= limit ? i : beyond;
    current[to + 1] = beyond;
    let rowMinimum = current[from - 1];
    for (let j = from; j <= to; j++) {
      let value = previous[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
      if (previous[j] + 1 < value) value = previous[j] + 1;
      if (current[j - 1] + 1 < value) value = current[j - 1] + 1;
      const isTransposed = i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1);
      if (isTransposed && before[j - 2] + 1 < value) value = before[j - 2] + 1;
      if (value > beyond) value = beyond;
      current[j] = value;
      if (value < rowMinimum) rowMinimum = value;
    }
    if (rowMinimum > limit) return beyond;
    const recycled = before;
    before = previous;
    previous = current;
    current = recycled;
  }
  return previous[b.length] < beyond ? previous[b.length] : beyond;
}

/** "city" vs "city_name": every word of the shorter name appears in the longer one. */
function haveWordSubset(wrongWords: readonly string[], candidateKey: string, wrongKey: string): boolean {
  if (wrongKey.length < 3 || candidateKey.length < 3) return false;
  // Only the normalized candidate key is available here, so compare words against it as substrings.
  if (candidateKey.startsWith(wrongKey) || candidateKey.endsWith(wrongKey)) return true;
  if (wrongWords.length > 1 && wrongWords.every((word) => word.length >= 3 && candidateKey.includes(word))) {
    return true;
  }
  return wrongKey.startsWith(candidateKey) || wrongKey.endsWith(candidateKey);
}

function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_\-.]+/)
    .filter((word) => word.length > 0);
}

function buildSynonymIndex(groups: readonly (readonly string[])[]): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  for (const group of groups) {
    for (const name of group) {
      const related = index.get(name) ?? new Set<string>();
      for (const other of group) if (other !== name) related.add(other);
      index.set(name, related);
    }
  }
  return index;
}

/** What else a call says about a stray name: the required names it lacks at the top level, and how many strays it has. */
export interface StrayContext {
  missing: readonly string[];
  strayCount: number;
}

/**
 * The declared argument an undeclared `wrong` stands for among the `free` ones (declared, not sent): a rename learned
 * from the tool's calls first, then the name itself (matchArgumentName), then, beside missing required names, the one
 * of those it matches, or the only one when it is the call's only stray (a rename, whatever the names).
 */
export function intendedArgumentOf(
  wrong: string,
  free: readonly string[],
  learned?: ReadonlyMap<string, string>,
  context?: StrayContext,
): string | null {
  const fromCalls = learned?.get(wrong);
  if (fromCalls !== undefined && free.includes(fromCalls)) return fromCalls;
  const byName = matchArgumentName(wrong, free);
  if (byName !== null || !context) return byName;
  const missing = context.missing.filter((name) => free.includes(name));
  const beside = matchArgumentName(wrong, missing);
  if (beside !== null) return beside;
  return context.strayCount === 1 && context.missing.length === 1 && missing.length === 1 ? missing[0] : null;
}
