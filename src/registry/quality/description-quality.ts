import type { JudgedProperty } from './judged-properties';
import type { JsonObject } from '../registry.types';
import type { JudgedTool, QualityFinding } from './tool-quality.types';
import { singularOf } from '@toolcoach/core';
import { pluralOf } from './word-forms';

// The tool's description read against its schema: too short to say anything, arguments it speaks of as always given
// but not required, a plural where the schema takes one value (or the reverse), another word for an argument's name,
// one value per call left unsaid where agents batch.

export function judgeDescription(name: string, words: string[]): QualityFinding[] {
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

// --- required ---

export function judgeRequired(parameters: JsonObject, properties: readonly JudgedProperty[], description: string): QualityFinding[] {
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

export function judgeContradictions(properties: readonly JudgedProperty[], words: readonly string[]): QualityFinding[] {
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

export function judgeBatching(tool: JudgedTool, properties: readonly JudgedProperty[], words: readonly string[]): QualityFinding[] {
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
function nounOf(property: JudgedProperty, words: readonly string[]): string {
  const own = property.tokens[property.tokens.length - 1];
  if (own.length > 2) return own;
  return synonymsOf(own).find((candidate) => words.includes(candidate)) ?? synonymsOf(own)[0] ?? own;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
