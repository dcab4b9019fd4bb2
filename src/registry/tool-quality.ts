/**
 * Judges a tool's description and argument schema before its first mistake: the smells that predictably make models
 * call a tool wrong (see docs/tool-quality.md for the rubric). Pure: a definition in, findings and a score out.
 *
 * Every finding names the JSON path it is about (into the definition: /description, /parameters/properties/n, ...),
 * a severity and a concrete fix. A finding whose fix is pure prose the description can carry carries that prose as
 * `addition`: such additions may be applied as warnings (they change no contract); schema changes are for the tool's
 * owner and are only proposed.
 */

import type { JsonObject } from './registry.types';
import { isObject } from './tool-definition';

export const QUALITY_FINDING_KINDS = [
  'missing_description',
  'parameter_without_description',
  'unbounded_number',
  'closed_set_without_enum',
  'date_without_format',
  'id_without_pattern',
  'email_without_format',
  'url_without_format',
  'array_without_items',
  'array_without_max_items',
  'required_not_declared',
  'name_differs_from_description',
  'near_duplicate_tool',
  'description_contradicts_schema',
  'batchable_single_value',
  'no_usage_example',
] as const;
export type QualityFindingKind = (typeof QUALITY_FINDING_KINDS)[number];

export type QualitySeverity = 'high' | 'medium' | 'low';

export interface QualityFinding {
  kind: QualityFindingKind;
  /** JSON pointer into the tool definition ({name, description, parameters}). */
  path: string;
  severity: QualitySeverity;
  /** What is wrong, in one sentence. */
  message: string;
  /** What to change. */
  fix: string;
  /** Prose the description can carry as is (a warning), when the fix needs no schema change. */
  addition?: string;
}

export interface ToolQuality {
  /** 0-100: 100 minus the findings' weights (SEVERITY_WEIGHT), never below 0. */
  score: number;
  /** Most expected impact first: severity, then the order of the rubric. */
  findings: QualityFinding[];
}

export interface JudgedTool {
  name: string;
  description: string;
  parameters: JsonObject;
}

/** The rubric: each finding costs this many points of 100. */
export const SEVERITY_WEIGHT: Record<QualitySeverity, number> = { high: 20, medium: 10, low: 4 };

/** Properties judged per tool, at most; a larger schema is judged on its first ones (the work stays bounded). */
export const MAX_JUDGED_PROPERTIES = 200;
/** Sibling tools compared for near-duplicates, at most. */
export const MAX_COMPARED_TOOLS = 500;
const MAX_TEXT_CHARS = 4096;

/** One tool's report, as GET /v1/tools and the registration answers carry it. */
export interface ToolQualityReport extends ToolQuality {
  tool: string;
}

/** Every tool judged against the others of its project, worst score first (then by name). */
export function judgeProjectTools(tools: readonly JudgedTool[]): ToolQualityReport[] {
  return tools
    .map((tool) => ({ tool: tool.name, ...judgeTool(tool, tools) }))
    .sort((a, b) => a.score - b.score || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
}

export function judgeTool(tool: JudgedTool, siblings: readonly Pick<JudgedTool, 'name' | 'description'>[] = []): ToolQuality {
  const description = tool.description.slice(0, MAX_TEXT_CHARS);
  const words = wordsOf(description);
  const properties = propertiesOf(tool.parameters);
  const contradictions = judgeContradictions(properties, words);
  const findings: QualityFinding[] = [
    ...judgeDescription(tool.name, words),
    ...properties.flatMap((property) => judgeProperty(property, words)),
    ...judgeRequired(tool.parameters, properties, description),
    ...contradictions,
    // a property the description already contradicts has its one-per-call fix there
    ...judgeBatching(
      tool,
      properties.filter((p) => !contradictions.some((c) => c.path === p.path)),
      words,
    ),
    ...judgeExample(properties, description),
    ...judgeDuplicates(tool, siblings),
  ];
  findings.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || kindRank(a.kind) - kindRank(b.kind));
  const cost = findings.reduce((sum, finding) => sum + SEVERITY_WEIGHT[finding.severity], 0);
  return { score: Math.max(0, 100 - cost), findings };
}

const SEVERITY_RANK: Record<QualitySeverity, number> = { high: 0, medium: 1, low: 2 };
const kindRank = (kind: QualityFindingKind) => QUALITY_FINDING_KINDS.indexOf(kind);

interface Property {
  name: string;
  path: string;
  schema: JsonObject;
  type: string | null;
  description: string;
  /** The name cut into lower-case words: maxResults, max_results -> ['max', 'results']. */
  tokens: string[];
}

function propertiesOf(parameters: JsonObject): Property[] {
  const properties = isObject(parameters.properties) ? parameters.properties : {};
  return Object.entries(properties)
    .slice(0, MAX_JUDGED_PROPERTIES)
    .filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
    .map(([name, schema]) => ({
      name,
      path: `/parameters/properties/${escapePointer(name)}`,
      schema,
      type: typeOf(schema),
      description: typeof schema.description === 'string' ? schema.description.slice(0, MAX_TEXT_CHARS) : '',
      tokens: nameTokens(name),
    }));
}

function typeOf(schema: JsonObject): string | null {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t): t is string => typeof t === 'string' && t !== 'null') ?? null;
  if (Array.isArray(schema.enum)) return 'enum';
  return null;
}

// --- the tool's own description ---

function judgeDescription(name: string, words: string[]): QualityFinding[] {
  if (words.length >= 3) return [];
  return [
    {
      kind: 'missing_description',
      path: '/description',
      severity: 'high',
      message:
        words.length === 0
          ? `'${name}' has no description.`
          : `'${name}' is described in ${words.length === 1 ? 'one word' : 'two words'}.`,
      fix: 'Say in a sentence what the tool does, what it returns and when to use it.',
    },
  ];
}

// --- each argument ---

// Names (as words) whose numbers have natural bounds the model cannot guess.
const BOUNDED_NUMBER_WORDS = new Set([
  'age',
  'percent',
  'percentage',
  'pct',
  'ratio',
  'limit',
  'page',
  'size',
  'count',
  'n',
  'k',
  'top',
  'num',
  'number',
  'offset',
  'hour',
  'hours',
  'minute',
  'minutes',
  'second',
  'seconds',
  'month',
  'day',
  'year',
  'rating',
  'score',
  'latitude',
  'lat',
  'longitude',
  'lon',
  'lng',
  'quantity',
  'qty',
  'index',
  'temperature',
  'probability',
  'weight',
  'max',
  'min',
  'retries',
  'timeout',
  'depth',
  'level',
  'priority',
  'port',
  'zoom',
  'volume',
]);
const BOUNDED_DESCRIPTION =
  /\b(between|up to|at most|at least|maximum|minimum|max|min|percent(age)?|factorial|fibonacci|range|no more than|less than|greater than|positive|negative)\b/i;

const CLOSED_SET_WORDS = new Set([
  'unit',
  'units',
  'status',
  'type',
  'mode',
  'format',
  'order',
  'sort',
  'direction',
  'kind',
  'category',
  'level',
  'method',
  'currency',
  'language',
  'lang',
  'locale',
  'region',
  'country',
  'operation',
  'op',
  'action',
  'gender',
  'priority',
  'severity',
  'environment',
  'env',
  'period',
  'interval',
  'granularity',
]);
// "one of", "either", "'a', 'b' or 'c'", "celsius or fahrenheit"
const CLOSED_SET_DESCRIPTION =
  /\b(one of|either|must be|can be|valid values|allowed values|possible values|options?:)\b|(['"`][^'"`]{1,30}['"`]\s*(,|or|\|)\s*){1,}['"`][^'"`]{1,30}['"`]/i;

const DATE_WORDS = new Set([
  'date',
  'time',
  'datetime',
  'timestamp',
  'day',
  'since',
  'until',
  'from',
  'to',
  'start',
  'end',
  'deadline',
  'birthday',
  'dob',
]);
const DATE_DESCRIPTION = /\b(date|yyyy|iso[ -]?8601|timestamp|rfc ?3339|datetime)\b/i;

function judgeProperty(property: Property, toolWords: readonly string[]): QualityFinding[] {
  const findings: QualityFinding[] = [];
  const { name, path, schema, type, tokens } = property;
  const said = `${property.description} ${isObject(schema.items) && typeof schema.items.description === 'string' ? schema.items.description : ''}`;
  if (wordsOf(property.description).length === 0) {
    findings.push({
      kind: 'parameter_without_description',
      path,
      severity: 'medium',
      message: `'${name}' has no description.`,
      fix: `Describe '${name}': what it is, its unit or format, and an example value.`,
    });
  }
  if ((type === 'number' || type === 'integer') && !hasBounds(schema)) {
    const impliesBounds = tokens.some((token) => BOUNDED_NUMBER_WORDS.has(token)) || BOUNDED_DESCRIPTION.test(said);
    if (impliesBounds) {
      findings.push({
        kind: 'unbounded_number',
        path,
        severity: 'medium',
        message: `'${name}' is a${type === 'integer' ? 'n integer' : ' number'} with no minimum or maximum, though its name or description implies limits.`,
        fix: `Declare "minimum" and "maximum" on '${name}' (the values the tool really accepts) and say them in its description.`,
      });
    }
  }
  if (type === 'string' && !hasStringConstraint(schema)) findings.push(...judgeString(property, said, toolWords));
  if (type === 'array') {
    if (!isObject(schema.items) && !Array.isArray(schema.prefixItems)) {
      findings.push({
        kind: 'array_without_items',
        path,
        severity: 'medium',
        message: `'${name}' is an array with no "items": the model must guess what goes in it.`,
        fix: `Declare "items" on '${name}' with the element's type.`,
      });
    }
    if (typeof schema.maxItems !== 'number') {
      findings.push({
        kind: 'array_without_max_items',
        path,
        severity: 'low',
        message: `'${name}' is an array with no "maxItems".`,
        fix: `Declare "maxItems" on '${name}' with the most elements the tool handles in one call.`,
      });
    }
  }
  return findings;
}

function judgeString(property: Property, said: string, toolWords: readonly string[]): QualityFinding[] {
  const { name, path, tokens } = property;
  const last = tokens[tokens.length - 1] ?? '';
  if (last === 'email' || tokens.includes('email')) {
    return [stringFinding('email_without_format', property, 'an email address', '"format": "email"')];
  }
  if (['url', 'uri', 'link', 'website', 'endpoint', 'href'].includes(last)) {
    return [stringFinding('url_without_format', property, 'a URL', '"format": "uri"')];
  }
  if (last === 'id' || last === 'uuid' || last === 'ids' || /Id$/.test(name)) {
    return [stringFinding('id_without_pattern', property, 'an identifier', 'a "pattern" (or "format": "uuid") matching real ids')];
  }
  if (
    tokens.some((token) => DATE_WORDS.has(token)) &&
    (DATE_DESCRIPTION.test(said) || ['date', 'time', 'datetime', 'timestamp'].includes(last))
  ) {
    return [stringFinding('date_without_format', property, 'a date or time', '"format": "date" or "date-time" (ISO 8601)')];
  }
  const hasClosedName = CLOSED_SET_WORDS.has(last);
  if (CLOSED_SET_DESCRIPTION.test(said) || (hasClosedName && toolWords.length > 0)) {
    return [
      {
        kind: 'closed_set_without_enum',
        path,
        severity: CLOSED_SET_DESCRIPTION.test(said) ? 'medium' : 'low',
        message: `'${name}' looks like a choice from a closed set but declares no "enum".`,
        fix: `Declare the accepted values of '${name}' as "enum" so the model cannot invent one.`,
      },
    ];
  }
  return [];
}

function stringFinding(kind: QualityFindingKind, property: Property, what: string, constraint: string): QualityFinding {
  return {
    kind,
    path: property.path,
    severity: 'low',
    message: `'${property.name}' takes ${what} but declares no format or pattern.`,
    fix: `Declare ${constraint} on '${property.name}'.`,
  };
}

function hasBounds(schema: JsonObject): boolean {
  return ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum', 'const'].some((key) => key in schema);
}

function hasStringConstraint(schema: JsonObject): boolean {
  return ['enum', 'const', 'format', 'pattern'].some((key) => key in schema);
}

// --- required ---

function judgeRequired(parameters: JsonObject, properties: readonly Property[], description: string): QualityFinding[] {
  if (properties.length === 0) return [];
  const required = new Set(Array.isArray(parameters.required) ? parameters.required.filter((r) => typeof r === 'string') : []);
  const text = description.toLowerCase();
  const findings: QualityFinding[] = [];
  for (const property of properties) {
    if (required.has(property.name)) continue;
    const phrase = property.tokens.join(' ');
    // "the city", "a number", "given the query": the description speaks of it as something the call always has
    const isSpokenOfAsGiven = new RegExp(
      `\\b(the|a|an|given|of)\\s+(${escapeRegExp(phrase)}|${escapeRegExp(property.name.toLowerCase())})\\b`,
    ).test(text);
    const isOnlyProperty = properties.length === 1 && !Array.isArray(parameters.required);
    if (!isSpokenOfAsGiven && !isOnlyProperty) continue;
    findings.push({
      kind: 'required_not_declared',
      path: '/parameters/required',
      severity: 'medium',
      message: `'${property.name}' is not in "required", though the tool needs it.`,
      fix: `Add '${property.name}' to "required" (or say in its description what happens without it).`,
    });
  }
  return findings;
}

// --- the description against the schema ---

function judgeContradictions(properties: readonly Property[], words: readonly string[]): QualityFinding[] {
  const findings: QualityFinding[] = [];
  const mentioned = new Set(words);
  for (const property of properties) {
    const noun = property.tokens[property.tokens.length - 1];
    if (!noun || property.tokens.length > 2) continue;
    const isArray = property.type === 'array';
    const plural = pluralOf(noun);
    const singular = singularOf(noun);
    const saysMany = !isArray && plural !== noun && mentioned.has(plural) && !mentioned.has(noun);
    const saysOne = isArray && singular !== noun && mentioned.has(singular) && !mentioned.has(noun) && !MANY.some((w) => mentioned.has(w));
    if (saysMany || saysOne) {
      const word = saysMany ? plural : singular;
      findings.push({
        kind: 'description_contradicts_schema',
        path: property.path,
        severity: 'high',
        message: saysMany
          ? `The description speaks of '${word}', but '${property.name}' takes one value: models will send a list or name the argument '${word}'.`
          : `The description speaks of one '${word}', but '${property.name}' takes a list.`,
        fix: saysMany
          ? `Say '${property.name}' and "one value per call" in the description, or make '${property.name}' an array if the tool can take several.`
          : `Say that '${property.name}' is a list (even of one ${word}).`,
        addition: saysMany
          ? `Pass one ${noun} in \`${property.name}\`; for several ${word}, call this tool once for each.`
          : `Pass \`${property.name}\` as a list, even of one ${word}.`,
      });
      continue;
    }
    const isNameUsed = mentioned.has(noun) || mentioned.has(property.name.toLowerCase());
    const synonym = synonymsOf(noun).find((candidate) => mentioned.has(candidate));
    if (!isNameUsed && synonym) {
      findings.push({
        kind: 'name_differs_from_description',
        path: property.path,
        severity: 'medium',
        message: `The description says '${synonym}' where the argument is '${property.name}': models use the description's word.`,
        fix: `Use the argument's own name '${property.name}' in the description.`,
        addition: `Pass the ${synonym} as \`${property.name}\`.`,
      });
    }
  }
  return findings;
}

// Words that say a list is meant, whatever noun follows.
const MANY = ['multiple', 'several', 'many', 'list', 'array', 'batch', 'each', 'all'];

// Words a description uses for what the schema names otherwise (small, on purpose: each pair was seen in real tools).
const SYNONYMS: Record<string, string[]> = {
  number: ['integer', 'value', 'num'],
  n: ['number', 'integer'],
  query: ['search', 'question', 'keywords', 'term'],
  q: ['query', 'search'],
  text: ['content', 'message', 'string'],
  city: ['location', 'place'],
  location: ['city', 'place', 'address'],
  path: ['file', 'filename', 'directory'],
  url: ['link', 'address', 'website'],
  limit: ['count', 'max', 'maximum'],
  symbol: ['ticker', 'stock'],
  ticker: ['symbol', 'stock'],
};

/** The words for `name` (own keys only: an argument named `constructor` or `toString` is just a name). */
function synonymsOf(name: string): readonly string[] {
  return Object.hasOwn(SYNONYMS, name) ? SYNONYMS[name] : [];
}

// Things agents naturally want several of at once.
const BATCHED_NOUNS = new Set([
  'number',
  'n',
  'id',
  'file',
  'path',
  'city',
  'url',
  'email',
  'name',
  'symbol',
  'ticker',
  'query',
  'word',
  'user',
  'item',
  'product',
  'order',
  'document',
  'location',
  'address',
  'date',
  'value',
  'integer',
  'stock',
  'country',
]);
const ONE_PER_CALL = /\b(one|single|a single|each|per call|at a time|only one|one at a time|once (for each|per))\b/i;

function judgeBatching(tool: JudgedTool, properties: readonly Property[], words: readonly string[]): QualityFinding[] {
  const scalars = properties.filter((p) => p.type !== 'array' && p.type !== 'object' && p.type !== null);
  if (scalars.length === 0 || scalars.length > 3) return [];
  const batchable = scalars.find((p) => BATCHED_NOUNS.has(p.tokens[p.tokens.length - 1] ?? ''));
  if (!batchable || ONE_PER_CALL.test(tool.description) || ONE_PER_CALL.test(batchable.description)) return [];
  const noun = nounOf(batchable, words);
  const kind = batchable.type === 'integer' ? 'integer' : batchable.type === 'number' ? 'number' : noun;
  return [
    {
      kind: 'batchable_single_value',
      path: batchable.path,
      severity: 'high',
      message: `'${tool.name}' takes one ${noun} in '${batchable.name}', and agents asked about several ${pluralOf(noun)} batch them into one call; nothing says not to.`,
      fix: `Say in the description that '${batchable.name}' takes a single ${kind} and that several ${pluralOf(noun)} need one call each.`,
      addition: `Pass a single ${kind}; call this tool once per ${noun}.`,
    },
  ];
}

/** The word the description itself uses for the value (number for `n`, when it says so). */
function nounOf(property: Property, words: readonly string[]): string {
  const own = property.tokens[property.tokens.length - 1];
  if (own.length > 2) return own;
  return synonymsOf(own).find((candidate) => words.includes(candidate)) ?? synonymsOf(own)[0] ?? own;
}

// --- an example ---

const EXAMPLE = /\b(e\.g\.|for example|for instance|example|such as|like)\b|\{\s*"/i;

function judgeExample(properties: readonly Property[], description: string): QualityFinding[] {
  if (properties.length === 0 || EXAMPLE.test(description)) return [];
  const call = exampleCall(properties);
  return [
    {
      kind: 'no_usage_example',
      path: '/description',
      severity: 'low',
      message: 'The description shows no example of a correct call.',
      fix: 'Add one example call with realistic values.',
      ...(call ? { addition: `Example call: ${call}` } : {}),
    },
  ];
}

const EVERYDAY_NUMBER = 12;

/** A call built from the schema alone (examples, defaults, enums, bounds), or null when a value cannot be known. */
function exampleCall(properties: readonly Property[]): string | null {
  const call: Record<string, unknown> = {};
  for (const property of properties.slice(0, 6)) {
    const value = exampleValue(property.schema);
    if (value === undefined) return null;
    call[property.name] = value;
  }
  return JSON.stringify(call);
}

function exampleValue(schema: JsonObject): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'integer':
    case 'number': {
      // a small everyday value inside the bounds: the middle of a wide range (2^52 for a factorial) is no example
      const step = typeOf(schema) === 'integer' ? 1 : 0.5;
      const low =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + step
            : -Infinity;
      const high =
        typeof schema.maximum === 'number'
          ? schema.maximum
          : typeof schema.exclusiveMaximum === 'number'
            ? schema.exclusiveMaximum - step
            : Infinity;
      if (low > high) return undefined;
      const value = Math.min(Math.max(EVERYDAY_NUMBER, low), high);
      return typeOf(schema) === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}

// --- the project's other tools ---

/** A tool's words for the comparison, computed once per tool object: a project's N tools are compared N^2 times. */
interface ComparedWords {
  name: string;
  nameTokens: string[];
  /** The first MAX_DISTANCE_CHARS of the name, the part whose edit distance is measured. */
  comparedName: string;
  /** Its two-character substrings counted: a cheap filter before the edit distance (the q-gram lemma). */
  nameBigrams: Map<number, number>;
  descriptionWords: Set<string>;
}

const comparedWords = new WeakMap<object, ComparedWords>();

function wordsForComparison(tool: Pick<JudgedTool, 'name' | 'description'>): ComparedWords {
  const known = comparedWords.get(tool);
  if (known) return known;
  const tokens = nameTokens(tool.name);
  const name = tokens.join(' ');
  const comparedName = name.slice(0, MAX_DISTANCE_CHARS);
  const nameBigrams = new Map<number, number>();
  for (let i = 0; i + 1 < comparedName.length; i++) {
    const bigram = comparedName.charCodeAt(i) * 65536 + comparedName.charCodeAt(i + 1);
    nameBigrams.set(bigram, (nameBigrams.get(bigram) ?? 0) + 1);
  }
  const words = {
    name,
    nameTokens: tokens,
    comparedName,
    nameBigrams,
    descriptionWords: new Set(wordsOf(tool.description.slice(0, MAX_TEXT_CHARS)).filter((w) => !STOP_WORDS.has(w))),
  };
  comparedWords.set(tool, words);
  return words;
}

function judgeDuplicates(tool: JudgedTool, siblings: readonly Pick<JudgedTool, 'name' | 'description'>[]): QualityFinding[] {
  const own = wordsForComparison(tool);
  const findings: QualityFinding[] = [];
  for (const sibling of siblings.slice(0, MAX_COMPARED_TOOLS)) {
    if (sibling.name === tool.name) continue;
    const other = wordsForComparison(sibling);
    const isNameClose = own.name.length > 3 && (areNamesClose(own, other) || sameWords(own.nameTokens, other.nameTokens));
    const isDescriptionClose = own.descriptionWords.size >= 3 && jaccard(own.descriptionWords, other.descriptionWords) >= 0.8;
    if (!isNameClose && !isDescriptionClose) continue;
    findings.push({
      kind: 'near_duplicate_tool',
      path: '/name',
      severity: 'medium',
      message: `'${tool.name}' and '${sibling.name}' have near-identical ${isNameClose ? 'names' : 'descriptions'}: models will confuse them.`,
      fix: `Say in each description when to use it rather than the other, or merge them.`,
      addition: `Use this tool, not '${sibling.name}', for what this description says.`,
    });
    if (findings.length >= 3) break;
  }
  return findings;
}

/**
 * Edit distance within 20% of the longer name (of their first MAX_DISTANCE_CHARS: the work per pair stays bounded).
 * Two strings within k edits share at least (longer length - 1 - 2k) two-character substrings, which rules out almost
 * every pair before the distance is computed.
 */
function areNamesClose(a: ComparedWords, b: ComparedWords): boolean {
  const longer = Math.max(a.comparedName.length, b.comparedName.length);
  const maxEdits = Math.floor(longer * MAX_NAME_DISTANCE);
  let shared = 0;
  for (const [bigram, count] of a.nameBigrams) shared += Math.min(count, b.nameBigrams.get(bigram) ?? 0);
  if (shared < longer - 1 - 2 * maxEdits) return false;
  return isWithinEdits(a.comparedName, b.comparedName, maxEdits);
}

const MAX_NAME_DISTANCE = 0.2;
const MAX_DISTANCE_CHARS = 64;

// --- words ---

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'for',
  'and',
  'or',
  'in',
  'on',
  'with',
  'by',
  'is',
  'it',
  'this',
  'that',
  'from',
  'as',
  'at',
  'be',
]);

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** maxResults, max_results, max-results -> ['max', 'results']. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export function pluralOf(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function singularOf(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ches|shes|xes|zes|sses)$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** search_web and web_search: the same words in another order. */
function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join(' ') === [...b].sort().join(' ');
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / (a.size + b.size - shared || 1);
}

/**
 * Whether `a` becomes `b` in at most `maxEdits` insertions, deletions or substitutions: Levenshtein on the band of
 * diagonals within `maxEdits`, stopping at the first row whose every cell is already beyond it.
 */
function isWithinEdits(a: string, b: string, maxEdits: number): boolean {
  if (Math.abs(a.length - b.length) > maxEdits) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(Number.POSITIVE_INFINITY);
    current[0] = i;
    let rowMin = i;
    for (let j = Math.max(1, i - maxEdits); j <= Math.min(b.length, i + maxEdits); j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > maxEdits) return false;
    previous = current;
  }
  return previous[b.length] <= maxEdits;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
