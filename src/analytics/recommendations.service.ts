import { Injectable } from '@nestjs/common';
import { ApiError, notFound } from '../infra/http/api-error';
import { isUuid } from '../infra/http/storable-values';
import { RegistryService } from '../registry/registry.service';
import type { RunningCanary } from '../registry/registry.types';
import { RolloutService } from '../rollout/rollout.service';
import { AutoApplyHold, autoApplyHold, DEFAULT_POLICY } from './auto-apply-policy';
import { AutoApplyService } from './auto-apply.service';
import { restatedWarning } from './canary-bundles';
import { ProjectPolicyValues, RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { proposalOnlyReason, RecommendationApplier } from './recommendation-applier';

/** What a proposed recommendation waits for (GET /v1/recommendations `waitingFor`); null unless it is proposed. */
export type WaitingFor =
  | AutoApplyHold
  /** a definition line saying what an applied warning already says about the same mistakes (canary-bundles.ts) */
  | { reason: 'restates_applied'; recommendationId: string }
  | { reason: 'canary'; canaryId: string; tool: string; since: Date }
  | { reason: 'nightly' };

export type RecommendationView = StoredRecommendation & { waitingFor: WaitingFor | null };

/** What humans do with recommendations: read them, approve, apply or dismiss one, set the auto-apply policy. */
@Injectable()
export class RecommendationsService {
  constructor(
    private readonly recommendations: RecommendationRepository,
    private readonly applier: RecommendationApplier,
    private readonly registry: RegistryService,
    private readonly rollout: RolloutService,
    private readonly autoApply: AutoApplyService,
  ) {}

  async list(projectId: string, filter: { status?: string; tool?: string; after?: string; limit: number }): Promise<RecommendationView[]> {
    return this.describeWaits(projectId, await this.recommendations.listRecommendations(projectId, filter));
  }

  async apply(projectId: string, id: string): Promise<RecommendationView> {
    const recommendation = await this.find(projectId, id);
    if (recommendation.status === 'applied') return this.view(projectId, recommendation);
    const proposalOnly = proposalOnlyReason(recommendation);
    if (proposalOnly) throw new ApiError(409, 'not_applicable', `This recommendation is not a warning to apply: ${proposalOnly}`);
    if (recommendation.status === 'dismissed' && recommendation.warningId) {
      throw new ApiError(409, 'conflict', 'This recommendation was retired; reinstate its warning through the registry');
    }
    const isApplied = await this.applier.apply(projectId, recommendation, new Date());
    if (!isApplied)
      throw new ApiError(409, 'conflict', 'The registry refused the warning (its tool is not registered, or it was dismissed there)');
    return this.view(projectId, await this.find(projectId, id));
  }

  /**
   * A person's approval under review mode (the REST route, the dashboard's button, the MCP tool: all call this). It is
   * recorded, then the recommendation goes the way the nightly applies it (a canary while the rollout policy is on) at
   * once; while its tool's canary is being decided, or a bundle holds it, the next nightly does. Approving again
   * answers the same; a recommendation that does not wait for approval is refused with its hold.
   */
  async approve(projectId: string, id: string, now: Date = new Date()): Promise<RecommendationView> {
    const recommendation = await this.find(projectId, id);
    const policy = await this.getPolicy(projectId);
    if (recommendation.approvedAt === null) {
      const hold = recommendation.status === 'proposed' ? autoApplyHold(recommendation, policy) : null;
      if (hold?.reason !== 'awaiting_approval') {
        const why =
          recommendation.status !== 'proposed' ? `it is ${recommendation.status}` : `it waits for ${hold?.reason ?? 'the nightly'}`;
        throw new ApiError(409, 'not_awaiting_approval', `This recommendation does not wait for an approval: ${why}`, {
          body: { waitingFor: (await this.view(projectId, recommendation)).waitingFor },
        });
      }
      await this.recommendations.markApproved(projectId, id, now);
    }
    const approved = await this.find(projectId, id);
    if (approved.status === 'proposed') {
      const running = new Set((await this.rollout.findRunningCanaries(projectId)).map((canary) => canary.tool));
      await this.autoApply.applyEligible(projectId, [approved], policy, running, now);
    }
    return this.view(projectId, await this.find(projectId, id));
  }

  async dismiss(projectId: string, id: string): Promise<RecommendationView> {
    const recommendation = await this.find(projectId, id);
    if (recommendation.warningId && recommendation.status === 'applied') {
      await this.registry.retireWarning(projectId, recommendation.warningId, 'dismissed by a human');
    }
    await this.recommendations.markDismissed(projectId, id, new Date());
    return this.view(projectId, await this.find(projectId, id));
  }

  async getPolicy(projectId: string): Promise<ProjectPolicyValues> {
    return (await this.recommendations.findPolicy(projectId)) ?? DEFAULT_POLICY;
  }

  /** Changes the fields `patch` has ({} nothing); the others keep their values (the defaults for a project without a row). */
  async setPolicy(projectId: string, patch: Partial<ProjectPolicyValues>): Promise<ProjectPolicyValues> {
    if (Object.keys(patch).length === 0) return this.getPolicy(projectId);
    return this.recommendations.updatePolicy(projectId, patch, DEFAULT_POLICY);
  }

  private async view(projectId: string, recommendation: StoredRecommendation): Promise<RecommendationView> {
    return (await this.describeWaits(projectId, [recommendation]))[0];
  }

  /**
   * Says what each proposed recommendation waits for, in the nightly's order: what holds it from being applied by
   * itself (auto-apply-policy.ts), else the applied warning a definition line restates, else its tool's running canary
   * (decided before the tool's description changes again), else the next nightly run. The policy, the running canaries
   * and the applied recommendations are read once for the whole page.
   */
  private async describeWaits(projectId: string, rows: readonly StoredRecommendation[]): Promise<RecommendationView[]> {
    if (!rows.some((row) => row.status === 'proposed')) return rows.map((row) => ({ ...row, waitingFor: null }));
    const [policy, canaries, applied] = await Promise.all([
      this.getPolicy(projectId),
      this.rollout.findRunningCanaries(projectId),
      rows.some((row) => row.status === 'proposed' && row.kind === 'schema_quality')
        ? this.recommendations.findAppliedRecommendations(projectId)
        : [],
    ]);
    const canaryOf = new Map<string, RunningCanary>(canaries.map((canary) => [canary.tool, canary]));
    return rows.map((row) => ({
      ...row,
      waitingFor: row.status === 'proposed' ? waitingFor(row, policy, applied, canaryOf.get(row.tool)) : null,
    }));
  }

  private async find(projectId: string, id: string): Promise<StoredRecommendation> {
    const recommendation = isUuid(id) ? await this.recommendations.findRecommendation(projectId, id) : null;
    if (!recommendation) throw notFound('recommendation', id);
    return recommendation;
  }
}

function waitingFor(
  recommendation: StoredRecommendation,
  policy: ProjectPolicyValues,
  applied: readonly StoredRecommendation[],
  canary: RunningCanary | undefined,
): WaitingFor {
  const hold = autoApplyHold(recommendation, policy);
  if (hold) return hold;
  const restated = restatedWarning(recommendation, applied);
  if (restated) return { reason: 'restates_applied', recommendationId: restated.id };
  if (canary) return { reason: 'canary', canaryId: canary.id, tool: canary.tool, since: canary.startedAt };
  return { reason: 'nightly' };
}
