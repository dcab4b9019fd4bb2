import { Injectable } from '@nestjs/common';
import { ApiError, notFound } from '../infra/http/api-error';
import { isUuid } from '../infra/http/storable-values';
import { RegistryService } from '../registry/registry.service';
import { ProjectPolicyValues, RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { DEFAULT_POLICY } from './nightly.service';
import { proposalOnlyReason, RecommendationApplier } from './recommendation-applier';

/** What humans do with recommendations: read them, apply or dismiss one, set the auto-apply policy. */
@Injectable()
export class RecommendationsService {
  constructor(
    private readonly recommendations: RecommendationRepository,
    private readonly applier: RecommendationApplier,
    private readonly registry: RegistryService,
  ) {}

  list(projectId: string, filter: { status?: string; tool?: string; after?: string; limit: number }) {
    return this.recommendations.listRecommendations(projectId, filter);
  }

  async apply(projectId: string, id: string): Promise<StoredRecommendation> {
    const recommendation = await this.find(projectId, id);
    if (recommendation.status === 'applied') return recommendation;
    const proposalOnly = proposalOnlyReason(recommendation);
    if (proposalOnly) throw new ApiError(409, 'not_applicable', `This recommendation is not a warning to apply: ${proposalOnly}`);
    if (recommendation.status === 'dismissed' && recommendation.warningId) {
      throw new ApiError(409, 'conflict', 'This recommendation was retired; reinstate its warning through the registry');
    }
    const isApplied = await this.applier.apply(projectId, recommendation, new Date());
    if (!isApplied)
      throw new ApiError(409, 'conflict', 'The registry refused the warning (its tool is not registered, or it was dismissed there)');
    return this.find(projectId, id);
  }

  async dismiss(projectId: string, id: string): Promise<StoredRecommendation> {
    const recommendation = await this.find(projectId, id);
    if (recommendation.warningId && recommendation.status === 'applied') {
      await this.registry.retireWarning(projectId, recommendation.warningId, 'dismissed by a human');
    }
    await this.recommendations.markDismissed(projectId, id, new Date());
    return this.find(projectId, id);
  }

  async getPolicy(projectId: string): Promise<ProjectPolicyValues> {
    return (await this.recommendations.findPolicy(projectId)) ?? DEFAULT_POLICY;
  }

  async setPolicy(projectId: string, policy: ProjectPolicyValues): Promise<ProjectPolicyValues> {
    await this.recommendations.upsertPolicy(projectId, policy);
    return policy;
  }

  private async find(projectId: string, id: string): Promise<StoredRecommendation> {
    const recommendation = isUuid(id) ? await this.recommendations.findRecommendation(projectId, id) : null;
    if (!recommendation) throw notFound('recommendation', id);
    return recommendation;
  }
}
