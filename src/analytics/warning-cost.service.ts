import { Injectable } from '@nestjs/common';
import { countDescriptionTokens } from '../registry/serving/description-tokens';
import { renderWarningLine } from '../registry/serving/description-renderer';
import { RegistryService } from '../registry/registry.service';
import { ProjectPolicyValues, RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { CostedWarning, measuredValue, selectUnderCap } from './warning-token-cap';

const DAY_MS = 86_400_000;

/**
 * What the nightly's warnings cost (docs/description-cost.md): each applied or proposed recommendation's line in
 * tokens, the project's cap per tool enforced on the applied ones, and a budget the night's new warnings must fit in.
 * Warnings written by hand are the tool owner's: they are neither counted nor retired.
 */
@Injectable()
export class WarningCostService {
  constructor(
    private readonly recommendations: RecommendationRepository,
    private readonly registry: RegistryService,
  ) {}

  /**
   * Retires the applied warnings of each tool that do not fit under the cap, lowest value per token first. Tools in
   * `canaryTools` are left to their canary's decision (retiring one of their warnings would end it).
   */
  async enforceCap(projectId: string, day: Date, policy: ProjectPolicyValues, canaryTools: ReadonlySet<string>): Promise<number> {
    const until = new Date(day.getTime() + DAY_MS);
    const byTool = groupByTool((await this.recommendations.findAppliedRecommendations(projectId)).filter((r) => !canaryTools.has(r.tool)));
    let retired = 0;
    for (const [, applied] of [...byTool].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const { dropped, keptTokens } = selectUnderCap(applied.map(costOf), policy.warningTokenCap);
      for (const { id, tokens } of dropped) {
        const recommendation = applied.find((r) => r.id === id)!;
        const reason = `token cap: ${policy.warningTokenCap} tokens per tool; kept warnings with a better measured effect per token`;
        await this.registry.retireWarning(projectId, recommendation.warningId!, reason);
        const cost = { tokens, cap: policy.warningTokenCap, keptTokens };
        await this.recommendations.markDismissed(projectId, id, until, {
          ...(recommendation.effect ?? {}),
          retired: true,
          retiredByTokenCap: cost,
        });
        retired += 1;
      }
    }
    return retired;
  }

  /** The tokens each tool's applied warnings use, and whether a proposal still fits under the cap. */
  budgetFor(policy: ProjectPolicyValues, applied: readonly StoredRecommendation[]): TokenBudget {
    return new TokenBudget(policy.warningTokenCap, applied);
  }
}

export class TokenBudget {
  private readonly used = new Map<string, number>();

  constructor(
    private readonly cap: number,
    applied: readonly StoredRecommendation[],
  ) {
    for (const recommendation of applied) this.add(recommendation);
  }

  admits(recommendation: StoredRecommendation): boolean {
    return (this.used.get(recommendation.tool) ?? 0) + warningTokens(recommendation) <= this.cap;
  }

  add(recommendation: StoredRecommendation): void {
    this.used.set(recommendation.tool, (this.used.get(recommendation.tool) ?? 0) + warningTokens(recommendation));
  }
}

/** The o200k_base tokens of the line the recommendation's warning adds to the served description. */
export function warningTokens(recommendation: Pick<StoredRecommendation, 'kind' | 'text' | 'evidence'>): number {
  const evidence = recommendation.evidence as { count?: unknown; calls?: unknown };
  const count = typeof evidence.count === 'number' ? evidence.count : 0;
  // the line plus its newline in the block
  return countDescriptionTokens(
    `${renderWarningLine({ kind: recommendation.kind, text: recommendation.text, evidence: { count, calls: evidence.calls } })}\n`,
  );
}

function costOf(recommendation: StoredRecommendation): CostedWarning {
  return { id: recommendation.id, tokens: warningTokens(recommendation), value: measuredValue(recommendation.effect) };
}

function groupByTool(recommendations: readonly StoredRecommendation[]): Map<string, StoredRecommendation[]> {
  const byTool = new Map<string, StoredRecommendation[]>();
  for (const r of recommendations) byTool.set(r.tool, [...(byTool.get(r.tool) ?? []), r]);
  return byTool;
}
