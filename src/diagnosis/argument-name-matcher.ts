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

export function matchArgumentName(wrong: string, candidates: readonly string[]): string | null {
  if (typeof wrong !== 'string' || wrong.length === 0 || wrong.length > 200) return null;
  const pool = candidates.filter((candidate) => typeof candidate === 'string' && candidate !== wrong);
  if (pool.length === 0) return null;
  const wrongKey = normalizeName(wrong);

  const tiers: ((candidateKey: string) => boolean)[] = [
    (candidateKey) => candidateKey === wrongKey,
    (candidateKey) => singularOf(candidateKey) === singularOf(wrongKey),
    (candidateKey) => areSynonyms(wrongKey, candidateKey),
  ];
  for (const isMatch of tiers) {
    const found = uniqueMatch(pool, isMatch);
    if (found !== undefined) return found;
  }

  const byDistance = closestByEditDistance(wrongKey, pool);
  if (byDistance !== undefined) return byDistance;

  const found = uniqueMatch(pool, (candidateKey) => haveWordSubset(wrong, candidateKey, wrongKey));
  return found ?? null;
}

/** Lower case without separators, so numberOfItems, number_of_items and number-of-items compare equal. */
function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[\s_\-.]+/g, '');
}

function singularOf(key: string): string {
  if (key.length > 4 && key.endsWith('ies')) return `${key.slice(0, -3)}y`;
  if (key.length > 4 && /(?:ss|sh|ch|x|z)es$/.test(key)) return key.slice(0, -2);
  if (key.length > 3 && key.endsWith('s') && !key.endsWith('ss')) return key.slice(0, -1);
  return key;
}

function areSynonyms(a: string, b: string): boolean {
  const aForms = [a, singularOf(a)];
  const bForms = new Set([b, singularOf(b)]);
  return aForms.some((form) => {
    const group = SYNONYMS.get(form);
    return group !== undefined && [...bForms].some((other) => group.has(other));
  });
}

/** Returns the single candidate whose normalized key satisfies the predicate; undefined for none or a tie. */
function uniqueMatch(pool: readonly string[], isMatch: (candidateKey: string) => boolean): string | undefined {
  const matches = pool.filter((candidate) => isMatch(normalizeName(candidate)));
  const distinctKeys = new Set(matches.map(normalizeName));
  return distinctKeys.size === 1 ? matches[0] : undefined;
}

function closestByEditDistance(wrongKey: string, pool: readonly string[]): string | undefined {
  const allowed = allowedEditDistance(wrongKey.length);
  if (allowed === 0) return undefined;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let isTie = false;
  for (const candidate of pool) {
    const candidateKey = normalizeName(candidate);
    const limit = Math.min(allowed, allowedEditDistance(candidateKey.length));
    if (limit === 0 || Math.abs(candidateKey.length - wrongKey.length) > limit) continue;
    const distance = damerauLevenshtein(wrongKey, candidateKey);
    if (distance > limit) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      isTie = false;
    } else if (distance === bestDistance && normalizeName(best ?? '') !== candidateKey) {
      isTie = true;
    }
  }
  return isTie ? undefined : best;
}

/** Short names tolerate fewer edits: "id" vs "ip" is a different argument, "quantty" vs "quantity" is a typo. */
function allowedEditDistance(length: number): number {
  if (length <= 3) return 0;
  if (length <= 6) return 1;
  return 2;
}

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). */
export function damerauLevenshtein(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) table[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, table[i - 2][j - 2] + 1);
      }
      table[i][j] = value;
    }
  }
  return table[rows - 1][cols - 1];
}

/** "city" vs "city_name": every word of the shorter name appears in the longer one. */
function haveWordSubset(wrong: string, candidateKey: string, wrongKey: string): boolean {
  const wrongWords = splitWords(wrong);
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
