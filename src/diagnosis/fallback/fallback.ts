import { CATEGORIES, type Category, type DiagnosisInput, SUBTYPES, type Subtype } from '../diagnosis.types';
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

/** The model's category and subtype for a call, or null when it is not confident enough or proposes `unknown`. */
export function decideByModel(
  input: DiagnosisInput,
  model: FallbackModel,
  threshold = FALLBACK_CONFIDENCE_THRESHOLD,
): FallbackDecision | null {
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
