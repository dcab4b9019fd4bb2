import { Injectable } from '@nestjs/common';
import { RolloutService } from '../rollout/rollout.service';
import { autoApplyHold } from './auto-apply-policy';
import { CanaryBundles, orderForRollout } from './canary-bundles';
import { ProjectPolicyValues, RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { RecommendationApplier } from './recommendation-applier';
import { WarningCostService } from './warning-cost.service';

/**
 * The nightly's writes to descriptions: refreshes the warnings of applied recommendations, and applies the proposed
 * ones the project's policy lets it apply by itself, as canaries when the project runs them (docs/rollout.md).
 */
@Injectable()
export class AutoApplyService {
  constructor(
    private readonly recommendations: RecommendationRepository,
    private readonly applier: RecommendationApplier,
    private readonly rollout: RolloutService,
    private readonly warningCost: WarningCostService,
  ) {}

  /** How many of `recommendations` it applied, as of `asOf`; tools in `runningTools` have a canary being decided. */
  async applyEligible(
    projectId: string,
    recommendations: readonly StoredRecommendation[],
    policy: ProjectPolicyValues,
    runningTools: ReadonlySet<string>,
    asOf: Date,
  ): Promise<number> {
    const canary = await this.rollout.findAutoCanarySettings(projectId);
    // a tool whose canary runs keeps its description as it is until the canary is decided (docs/rollout.md)
    for (const recommendation of recommendations) {
      if (recommendation.status === 'applied' && !runningTools.has(recommendation.tool)) {
        await this.applier.refresh(projectId, recommendation);
      }
    }
    const alreadyApplied = await this.recommendations.findAppliedRecommendations(projectId);
    const bundles = new CanaryBundles(runningTools, alreadyApplied);
    // a warning that would take its tool over the project's token cap is not applied (docs/description-cost.md)
    const eligible = orderForRollout(recommendations.filter((r) => r.status === 'proposed' && isEligible(r, policy)));
    const budget = await this.warningCost.budgetFor(policy, alreadyApplied, eligible);
    let applied = 0;
    for (const recommendation of eligible) {
      if (!bundles.admits(recommendation, canary !== null) || !budget.admits(recommendation)) continue;
      const start = canary && { ...canary, join: bundles.isStarted(recommendation.tool) };
      if (!(await this.applier.apply(projectId, recommendation, asOf, start))) continue;
      applied += 1;
      budget.add(recommendation);
      if (canary) bundles.add(recommendation);
    }
    return applied;
  }
}

/** Whether the nightly applies a proposed recommendation by itself: when nothing holds it (auto-apply-policy.ts). */
function isEligible(recommendation: StoredRecommendation, policy: ProjectPolicyValues): boolean {
  return autoApplyHold(recommendation, policy) === null;
}
