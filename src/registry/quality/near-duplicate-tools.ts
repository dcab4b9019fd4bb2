import { MAX_TEXT_CHARS } from './judged-properties';
import type { JudgedTool, QualityFinding } from './tool-quality.types';
import { nameTokens, wordsOf } from './word-forms';

// The project's other tools: a name a few edits away, the same words in another order, or a description of nearly
// the same words makes models confuse two tools.

/** Sibling tools compared for near-duplicates, at most. */
export const MAX_COMPARED_TOOLS = 500;

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

export function judgeDuplicates(tool: JudgedTool, siblings: readonly Pick<JudgedTool, 'name' | 'description'>[]): QualityFinding[] {
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
