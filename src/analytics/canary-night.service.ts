import { Injectable } from '@nestjs/common';
import { CanaryDecisionService, CanaryNight } from '../rollout/canary-decision.service';
import { firstCountedDay } from '../rollout/canary-sides';
import { BreakdownRepository } from './breakdown.repository';
import { EffectMeasurementService } from './effect-measurement.service';
import { RecommendationRepository } from './recommendation.repository';

const DAY_MS = 86_400_000;

/** The nightly's look at a project's running canaries: each promoted, rolled back or left running, with its numbers. */
@Injectable()
export class CanaryNightService {
  constructor(
    private readonly recommendations: RecommendationRepository,
    private readonly canaryDecisions: CanaryDecisionService,
    private readonly effects: EffectMeasurementService,
    private readonly breakdowns: BreakdownRepository,
  ) {}

  /**
   * Promotes or rolls back the project's running canaries on the calls up to the end of `day`, each judged on its
   * recommendation's own mistake when it has one; a rolled-back canary's recommendation is dismissed with the numbers.
   */
  async decideCanaries(projectId: string, day: Date, asOf: Date): Promise<CanaryNight> {
    const until = new Date(day.getTime() + DAY_MS);
    const applied = await this.recommendations.findAppliedRecommendations(projectId);
    const recommendationOf = (warningId: string | null) => applied.find((each) => warningId !== null && each.warningId === warningId);
    const night = await this.canaryDecisions.decideCanaries(
      projectId,
      day,
      async (running, warningId) => {
        const recommendation = recommendationOf(warningId);
        const counts = recommendation ? await this.effects.countMatchedMistakes(projectId, recommendation, until) : null;
        if (!recommendation || !counts) return null;
        const from = firstCountedDay(running.startedAt);
        return { ...counts, breakdown: await this.effects.countMatchedBreakdown(projectId, recommendation, until, from) };
      },
      (running) => this.breakdowns.countBreakdownByVersion(projectId, running.tool, null, until, firstCountedDay(running.startedAt)),
    );
    for (const { action, rolledBackWarningIds, decision } of night.decided) {
      if (action !== 'roll_back') continue;
      for (const warningId of rolledBackWarningIds) {
        const recommendation = recommendationOf(warningId);
        if (recommendation) await this.recommendations.markDismissed(projectId, recommendation.id, asOf, { ...decision, rolledBack: true });
      }
    }
    return night;
  }
}
