import { autoApplyHold } from './auto-apply-policy';
import type { ProjectPolicyValues, StoredRecommendation } from './recommendation.repository';

const POLICY: ProjectPolicyValues = {
  autoApply: true,
  minOccurrences: 5,
  minShare: 0.05,
  autoApplyKinds: ['wrong_argument_name', 'schema_quality'],
  autoRetire: true,
  warningTokenCap: 120,
  reviewMode: false,
};

const recommendation = (kind: string, evidence: Record<string, unknown>): StoredRecommendation => ({
  id: '00000000-0000-4000-8000-000000000001',
  tool: 'calc',
  kind,
  evidenceKey: `${kind}:x`,
  text: 'Pass one number.',
  evidence,
  confidence: 0.9,
  status: 'proposed',
  warningId: null,
  appliedVersion: null,
  appliedAt: null,
  effect: null,
  approvedAt: null,
});

describe('autoApplyHold', () => {
  it.each([
    ['nothing: frequent enough, of a kind the policy applies', 'wrong_argument_name', { count: 5, share: 0.05 }, POLICY, null],
    [
      'proposal_only before anything else',
      'schema_quality',
      { proposalOnly: 'a schema change', requiresReview: 'odd name' },
      { ...POLICY, autoApply: false },
      { reason: 'proposal_only', detail: 'a schema change' },
    ],
    [
      'review before the policy',
      'wrong_argument_name',
      { count: 50, share: 1, requiresReview: 'argument name "" is not a plain identifier' },
      { ...POLICY, autoApply: false },
      { reason: 'review', reviewReason: 'argument name "" is not a plain identifier' },
    ],
    ['auto_apply_off', 'wrong_argument_name', { count: 50, share: 1 }, { ...POLICY, autoApply: false }, { reason: 'auto_apply_off' }],
    ['kind_not_auto_applied', 'learned_limit', { count: 50, share: 1 }, POLICY, { reason: 'kind_not_auto_applied', kind: 'learned_limit' }],
    [
      'below_thresholds on the count',
      'wrong_argument_name',
      { count: 4, share: 1 },
      POLICY,
      { reason: 'below_thresholds', count: 4, minOccurrences: 5, share: 1, minShare: 0.05 },
    ],
    [
      'below_thresholds on the share, a missing count read as 0',
      'wrong_argument_name',
      { share: 0.01 },
      POLICY,
      { reason: 'below_thresholds', count: 0, minOccurrences: 5, share: 0.01, minShare: 0.05 },
    ],
    ['nothing for a schema_quality addition without occurrences', 'schema_quality', {}, POLICY, null],
    [
      'awaiting_approval in review mode when nothing else holds it',
      'wrong_argument_name',
      { count: 5, share: 0.05 },
      { ...POLICY, reviewMode: true },
      { reason: 'awaiting_approval' },
    ],
    [
      'below_thresholds before awaiting_approval: review mode asks only about what would be applied',
      'wrong_argument_name',
      { count: 4, share: 1 },
      { ...POLICY, reviewMode: true },
      { reason: 'below_thresholds', count: 4, minOccurrences: 5, share: 1, minShare: 0.05 },
    ],
  ])('holds %s', (_case, kind, evidence, policy, hold) => {
    expect(autoApplyHold(recommendation(kind, evidence), policy)).toEqual(hold);
  });

  it('holds nothing in review mode once a person approved it', () => {
    const approved = { ...recommendation('wrong_argument_name', { count: 5, share: 0.05 }), approvedAt: new Date('2026-11-28T00:00:00Z') };
    expect(autoApplyHold(approved, { ...POLICY, reviewMode: true })).toBeNull();
  });
});
