import { Injectable } from '@nestjs/common';
import type { CanarySettings } from '../registry/registry.types';
import { RegistryService } from '../registry/registry.service';
import { RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { RecommendationDraft } from './recommendation-drafts';

/**
 * Turns recommendations into registry warnings, for the nightly (automatically, by policy) and for a human (the apply
 * route): one path, so a warning applied by hand and one applied at night are the same warning with the same record.
 */
@Injectable()
export class RecommendationApplier {
  constructor(
    private readonly recommendations: RecommendationRepository,
    private readonly registry: RegistryService,
  ) {}

  /**
   * Applies the recommendation as a warning and records it applied; false when the registry refused it. With
   * `canary` (the nightly, when the rollout policy is on), its version starts as a canary as of `at`.
   */
  async apply(
    projectId: string,
    recommendation: StoredRecommendation,
    at: Date,
    canary: (CanarySettings & { join?: boolean }) | null = null,
  ): Promise<boolean> {
    const start = canary && { ...canary, startedAt: at };
    const result = await this.registry.applyAutoWarning(projectId, recommendation.tool, toWarning(recommendation), start);
    if (result.applied && result.warningId) {
      await this.recommendations.markApplied(projectId, recommendation.id, result.warningId, result.version, at);
      return true;
    }
    if (result.reason === 'dismissed') await this.recommendations.markDismissed(projectId, recommendation.id, at);
    return false;
  }

  /**
   * Keeps an applied warning's evidence current; the registry makes a new version only when its text changes. A text
   * that now needs a human's review (new evidence brought odd names or values) does not replace the applied one.
   */
  async refresh(projectId: string, recommendation: StoredRecommendation): Promise<void> {
    if (requiresReview(recommendation)) return;
    await this.registry.applyAutoWarning(projectId, recommendation.tool, toWarning(recommendation));
  }
}

/** Text built from event data that is not plain (see @toolcoach/core, untrusted-text.ts) waits for a human: never applied automatically. */
export function requiresReview(recommendation: StoredRecommendation): boolean {
  return typeof recommendation.evidence.requiresReview === 'string';
}

/**
 * A schema change (schema_quality without prose to add) or a loop (a review of the tool's error messages) is for a
 * person to act on outside the description: never applied as a warning, by the nightly or by hand. The reason is in
 * the evidence as `proposalOnly`.
 */
export function proposalOnlyReason(recommendation: StoredRecommendation): string | null {
  const reason = recommendation.evidence.proposalOnly;
  return typeof reason === 'string' ? reason : null;
}

/**
 * The warning's evidence is what agents and validate read: the counts, `calls` (the denominator the description
 * states), a learned limit (validate applies it) and the called name of a misnamed tool, when the draft has them.
 */
function toWarning(recommendation: StoredRecommendation) {
  const evidence = recommendation.evidence as RecommendationDraft['evidence'];
  const optional = (key: 'calls' | 'learnedLimit' | 'calledTool') => (evidence[key] === undefined ? {} : { [key]: evidence[key] });
  return {
    kind: recommendation.kind,
    text: recommendation.text,
    evidenceKey: recommendation.evidenceKey,
    evidence: {
      count: evidence.count,
      firstSeen: evidence.firstSeen,
      lastSeen: evidence.lastSeen,
      exampleEventIds: evidence.exampleEventIds,
      share: evidence.share,
      ...optional('calls'),
      ...optional('learnedLimit'),
      ...optional('calledTool'),
      recommendationId: recommendation.id,
    },
  };
}
