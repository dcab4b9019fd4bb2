import { Injectable } from '@nestjs/common';
import { countTokens } from '../registry/serving/description-tokens';
import { renderWarningLine } from '../registry/serving/description-renderer';
import { RegistryService } from '../registry/registry.service';
import { ProjectPolicyValues, RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { measuredValue, selectUnderCap } from './warning-token-cap';

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
    const capped = (await this.recommendations.findAppliedRecommendations(projectId)).filter((r) => !canaryTools.has(r.tool));
    const tokens = await countWarningLines(capped);
    let retired = 0;
    for (const [, applied] of [...groupByTool(capped)].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const costs = applied.map((r) => ({ id: r.id, tokens: tokens.get(r.id)!, value: measuredValue(r.effect) }));
      const { dropped, keptTokens } = selectUnderCap(costs, policy.warningTokenCap);
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

  /**
   * The tokens each tool's applied warnings use, and whether one of the `proposals` still fits under the cap (their
   * lines counted up front, so the budget answers at once).
   */
  async budgetFor(
    policy: ProjectPolicyValues,
    applied: readonly StoredRecommendation[],
    proposals: readonly StoredRecommendation[],
  ): Promise<TokenBudget> {
    return new TokenBudget(policy.warningTokenCap, applied, await countWarningLines([...applied, ...proposals]));
  }
}

export class TokenBudget {
  private readonly used = new Map<string, number>();

  constructor(
    private readonly cap: number,
    applied: readonly StoredRecommendation[],
    private readonly tokens: ReadonlyMap<string, number>,
  ) {
    for (const recommendation of applied) this.add(recommendation);
  }

  admits(recommendation: StoredRecommendation): boolean {
    return (this.used.get(recommendation.tool) ?? 0) + this.tokensOf(recommendation) <= this.cap;
  }

  add(recommendation: StoredRecommendation): void {
    this.used.set(recommendation.tool, (this.used.get(recommendation.tool) ?? 0) + this.tokensOf(recommendation));
  }

  private tokensOf(recommendation: StoredRecommendation): number {
    const tokens = this.tokens.get(recommendation.id);
    if (tokens === undefined) throw new Error(`recommendation ${recommendation.id} was not counted for the token budget`);
    return tokens;
  }
}

/** The line the recommendation's warning adds to the served description, with its newline in the block. */
export function warningLine(recommendation: Pick<StoredRecommendation, 'kind' | 'text' | 'evidence'>): string {
  const evidence = recommendation.evidence as { count?: unknown; calls?: unknown };
  const count = typeof evidence.count === 'number' ? evidence.count : 0;
  return `${renderWarningLine({ kind: recommendation.kind, text: recommendation.text, evidence: { count, calls: evidence.calls } })}\n`;
}

/** The o200k_base tokens of each recommendation's warning line, by recommendation id. */
async function countWarningLines(recommendations: readonly StoredRecommendation[]): Promise<Map<string, number>> {
  const counts = await countTokens(recommendations.map(warningLine));
  return new Map(recommendations.map((r, i) => [r.id, counts[i]]));
}

function groupByTool(recommendations: readonly StoredRecommendation[]): Map<string, StoredRecommendation[]> {
  const byTool = new Map<string, StoredRecommendation[]>();
  for (const r of recommendations) byTool.set(r.tool, [...(byTool.get(r.tool) ?? []), r]);
  return byTool;
}
