import type { ProjectPolicyValues, StoredRecommendation } from './recommendation.repository';
import { proposalOnlyReason, requiresReview } from './recommendation-applier';
import { RECOMMENDATION_KINDS } from './recommendation-drafts';
import { DEFAULT_WARNING_TOKEN_CAP } from './warning-token-cap';

// Whether the nightly applies a proposed recommendation by itself, and if not, what holds it: one rule for the nightly
// (which applies what nothing holds) and for GET /v1/recommendations (which says what a proposal waits for). Pure.

/** The policy of a project that has not set its own. */
export const DEFAULT_POLICY: ProjectPolicyValues = {
  autoApply: true,
  minOccurrences: 5,
  minShare: 0.05,
  // a review is for humans: it is never applied to a description automatically (nor is a loop, whatever the policy)
  autoApplyKinds: RECOMMENDATION_KINDS.filter((kind) => kind !== 'review_description' && kind !== 'loop'),
  autoRetire: true,
  warningTokenCap: DEFAULT_WARNING_TOKEN_CAP,
  reviewMode: false,
};

/** What keeps the nightly from applying a proposed recommendation by itself; the first that applies, in this order. */
export type AutoApplyHold =
  /** a schema change or a loop review: for a person to act on outside the description, never applied as a warning */
  | { reason: 'proposal_only'; detail: string }
  /** its text quotes event data that is not plain: a person reviews it and applies it by hand */
  | { reason: 'review'; reviewReason: string }
  | { reason: 'auto_apply_off' }
  | { reason: 'kind_not_auto_applied'; kind: string }
  | { reason: 'below_thresholds'; count: number; minOccurrences: number; share: number; minShare: number }
  /** review mode: everything else lets the nightly apply it, and a person has not approved it yet */
  | { reason: 'awaiting_approval' };

/**
 * A schema_quality addition has no occurrences (it comes from the definition, not from mistakes), so minOccurrences
 * and minShare do not apply to it: the policy's autoApply and autoApplyKinds decide alone. Review mode holds last, only
 * what the nightly would otherwise apply: an approval is asked for exactly those, and lets one go the normal way.
 */
export function autoApplyHold(recommendation: StoredRecommendation, policy: ProjectPolicyValues): AutoApplyHold | null {
  const proposalOnly = proposalOnlyReason(recommendation);
  if (proposalOnly !== null) return { reason: 'proposal_only', detail: proposalOnly };
  if (requiresReview(recommendation)) return { reason: 'review', reviewReason: String(recommendation.evidence.requiresReview) };
  if (!policy.autoApply) return { reason: 'auto_apply_off' };
  if (!policy.autoApplyKinds.includes(recommendation.kind)) return { reason: 'kind_not_auto_applied', kind: recommendation.kind };
  if (recommendation.kind !== 'schema_quality') {
    const evidence = recommendation.evidence as { count?: number; share?: number };
    const count = evidence.count ?? 0;
    const share = evidence.share ?? 0;
    if (count < policy.minOccurrences || share < policy.minShare) {
      return { reason: 'below_thresholds', count, minOccurrences: policy.minOccurrences, share, minShare: policy.minShare };
    }
  }
  if (policy.reviewMode && recommendation.approvedAt === null) return { reason: 'awaiting_approval' };
  return null;
}
