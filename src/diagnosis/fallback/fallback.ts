import { CATEGORIES, type Category, type DiagnosisInput, SUBTYPES, type Subtype } from '../diagnosis.types';
import { messageWords, typeNameWords } from './features';
import { type FallbackModel, type FallbackWeights, loadFallbackModel } from './linear-model';
import shippedWeights from './weights.v1.json';

// The learned fallback (docs/categorization.md): consulted only for a failure the rules leave `unknown`; it decides
// when its calibrated confidence reaches FALLBACK_CONFIDENCE_THRESHOLD, and otherwise the failure stays `unknown`.

/**
 * Chosen on the held-out split (docs/categorization.md): the lowest confidence at which `unknown` keeps a precision of
 * at least 0.90 there without lowering another category's precision, and the hand corpus keeps its score.
 */
export const FALLBACK_CONFIDENCE_THRESHOLD = 0.6;

export interface FallbackDecision {
  category: Exclude<Category, 'unknown'>;
  subtype: Subtype | null;
  confidence: number;
}

export const SHIPPED_FALLBACK_MODEL: FallbackModel = loadFallbackModel(shippedWeights as unknown as FallbackWeights);

/**
 * The model's category and subtype for a call, or null when it is not confident enough, proposes `unknown`, or the
 * failure says nothing (isMessageless).
 */
export function decideByModel(
  input: DiagnosisInput,
  model: FallbackModel,
  threshold = FALLBACK_CONFIDENCE_THRESHOLD,
): FallbackDecision | null {
  if (isMessageless(input?.error?.message, input?.error?.type)) return null;
  const proposal = model.propose({
    message: input?.error?.message,
    type: input?.error?.type,
    arguments: input?.arguments,
    hasSchema: typeof input?.schema?.json === 'object' && input.schema.json !== null,
  });
  if (proposal.confidence < threshold) return null;
  const [category, subtype] = proposal.label.split('/');
  if (category === 'unknown' || !isCategory(category)) return null;
  return { category, subtype: isSubtype(subtype) ? subtype : null, confidence: proposal.confidence };
}

function isCategory(value: string): value is Exclude<Category, 'unknown'> {
  return (CATEGORIES as readonly string[]).includes(value);
}

function isSubtype(value: string | undefined): value is Subtype {
  return (SUBTYPES as readonly string[]).includes(value ?? '');
}

// What runtimes print in place of a message they do not have: "" (new Error()), "Error", "null", "None", "undefined",
// "[object Object]", "{}", "unknown error" (the AI SDK for a thrown undefined), "Exception(None)".
const PLACEHOLDER_WORDS = new Set(['error', 'exception', 'null', 'none', 'nil', 'undefined', 'object', 'unknown']);
// Words of exception type names that name no cause (Error, Exception, RuntimeError, System.Exception, AggregateError).
const GENERIC_TYPE_WORDS = new Set(['error', 'exception', 'runtime', 'system', 'aggregate', 'base', 'standard', 'application', 'none']);

/**
 * A failure whose message is empty or a placeholder, raised as a generic type: nothing in it tells a category, so the
 * model would decide from the call's shape alone (its argument kinds, which every call of the tool shares) and take a
 * true `unknown` for a missing argument. Such a failure stays `unknown` (docs/categorization.md).
 */
export function isMessageless(message: unknown, type: unknown): boolean {
  const isGenericType = typeNameWords(type).every((word) => GENERIC_TYPE_WORDS.has(word));
  return isGenericType && messageWords(message).every((word) => PLACEHOLDER_WORDS.has(word) || isGenericTypeName(word));
}

/** "runtimeerror", "aggregateerror", "systemexception": a generic type name printed as the message (repr, traceback). */
function isGenericTypeName(word: string): boolean {
  const stem = /^([a-z]{1,20}?)(?:error|exception)$/.exec(word)?.[1];
  return stem !== undefined && GENERIC_TYPE_WORDS.has(stem);
}
