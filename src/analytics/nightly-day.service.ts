import { Injectable } from '@nestjs/common';
import { DEFAULT_POLICY } from './auto-apply-policy';
import { AutoApplyService } from './auto-apply.service';
import { BreakdownRepository } from './breakdown.repository';
import { CanaryNightService } from './canary-night.service';
import { computeDailyToolStat } from './daily-stats';
import { DailyStatsRepository } from './daily-stats.repository';
import { EffectMeasurementService } from './effect-measurement.service';
import { RecommendationRepository } from './recommendation.repository';
import { RecommendationFindingsService } from './recommendation-findings.service';
import { RepeatedCallsService } from './repeated-calls.service';
import { WarningCostService } from './warning-cost.service';
import { SourceFixService } from './source-fix.service';

const DAY_MS = 86_400_000;

export interface NightlyCounts {
  tools: number;
  recommendations: number;
  applied: number;
  effectsMeasured: number;
  retired: number;
  [key: string]: number;
}

/**
 * One project's day, in the order the steps depend on each other: the day's tool stats and counts per model and
 * framework, the findings and recommendations, the running canaries' decisions, the measured effect of applied
 * warnings, then new warnings.
 * Re-computing a day replaces what that day produced.
 */
@Injectable()
export class NightlyDayService {
  constructor(
    private readonly dailyStats: DailyStatsRepository,
    private readonly recommendations: RecommendationRepository,
    private readonly findings: RecommendationFindingsService,
    private readonly canaries: CanaryNightService,
    private readonly effects: EffectMeasurementService,
    private readonly autoApply: AutoApplyService,
    private readonly repeats: RepeatedCallsService,
    private readonly warningCost: WarningCostService,
    private readonly sourceFixes: SourceFixService,
    private readonly breakdowns: BreakdownRepository,
  ) {}

  async computeDay(projectId: string, day: Date): Promise<NightlyCounts> {
    const stats = (await this.dailyStats.sumToolDays(projectId, day)).map(computeDailyToolStat);
    await this.dailyStats.replaceDailyToolStats(projectId, day, stats);
    // the repeated_call findings read the day's session rollups
    await this.repeats.rollUpSessions(projectId, day);
    // the day's counts per model and framework, before the canaries and the effects that break down on them
    await this.breakdowns.replaceDayBreakdown(projectId, day);
    const { recommendations, resolved } = await this.findings.recordFindings(projectId, day, stats);
    const policy = (await this.recommendations.findPolicy(projectId)) ?? DEFAULT_POLICY;
    // the end of the computed day: a backfill applies warnings as of then, not as of today
    const asOf = new Date(Math.min(Date.now(), day.getTime() + DAY_MS));
    const canaries = await this.canaries.decideCanaries(projectId, day, asOf);
    // before new warnings start canaries: a warning promoted tonight is measured tonight, and retiring one changes a
    // description no canary is testing yet
    const { measured, retired } = await this.effects.measureEffects(projectId, day, policy, canaries.runningTools);
    // before new warnings: a lowered cap frees its tokens for nothing new tonight, and what is kept is what was measured
    const cappedOut = await this.warningCost.enforceCap(projectId, day, policy, canaries.runningTools);
    // after the measurement, so a warning the tool's own definition now carries keeps its measured effect in the history
    const ids = recommendations.map((recommendation) => recommendation.id);
    const fixedUpstream = await this.sourceFixes.retireFixedUpstream(projectId, ids, asOf);
    const stillOpen = fixedUpstream === 0 ? recommendations : await this.recommendations.findRecommendationsByIds(projectId, ids);
    const applied = await this.autoApply.applyEligible(projectId, stillOpen, policy, canaries.runningTools, asOf);
    const decided = (action: string) => canaries.decided.filter((each) => each.action === action).length;
    return {
      tools: stats.length,
      recommendations: recommendations.length,
      applied,
      effectsMeasured: measured,
      retired,
      cappedOut,
      resolved,
      fixedUpstream,
      canariesPromoted: decided('promote'),
      canariesRolledBack: decided('roll_back'),
    };
  }
}
