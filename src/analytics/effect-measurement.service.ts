import { Injectable } from '@nestjs/common';
import type { WarningTest } from '../registry/serving/canary.repository';
import { RegistryService } from '../registry/registry.service';
import { breakDownEffect, ValueCounts } from '../statistics/effect-breakdown';
import { estimateEffect, splitByWarning, splitGuardOutcomes, WarningExposure } from '../statistics/effect-statistics';
import { BreakdownRepository } from './breakdown.repository';
import { DailyStatsRepository } from './daily-stats.repository';
import { ProjectPolicyValues, RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import type { MistakeMatch } from './recommendation-drafts';
import { ToolConfusionRepository } from './tool-confusion.repository';
import { SessionRollupRepository } from './session-rollup.repository';

const DAY_MS = 86_400_000;

/**
 * The nightly's measurement of applied warnings (docs/nightly.md, step 4): each warning's own mistake with and
 * without it, by description version, how it was tested before it reached everyone, and retirement by policy. A
 * warning dismissed outside the nightly ends its recommendation here too.
 */
@Injectable()
export class EffectMeasurementService {
  constructor(
    private readonly dailyStats: DailyStatsRepository,
    private readonly recommendations: RecommendationRepository,
    private readonly registry: RegistryService,
    private readonly confusions: ToolConfusionRepository,
    private readonly sessions: SessionRollupRepository,
    private readonly breakdowns: BreakdownRepository,
  ) {}

  /** The calls and the recommendation's own mistakes per version and day up to `until`; null without a match. */
  async countMatchedMistakes(projectId: string, recommendation: StoredRecommendation, until: Date) {
    const match = (recommendation.evidence as { match?: MistakeMatch }).match;
    if (!match) return null;
    if (match.confusedWith) return this.confusions.countConfusionsByVersion(projectId, recommendation.tool, match.confusedWith, until);
    // a repeated_call warning is judged on repeated calls among the tool's calls in sessions (daily_session_rollups)
    if (match.isRepeatedCall) return this.sessions.countRepeatsByVersion(projectId, recommendation.tool, until);
    return match.calledTool
      ? this.dailyStats.countMisnamedCallsByVersion(projectId, recommendation.tool, match.calledTool, until)
      : this.dailyStats.countMistakesByVersion(projectId, recommendation.tool, match, until);
  }

  /**
   * The recommendation's own mistakes per model and per framework, per version and day up to `until` (from `from`);
   * null for calls to a misnamed tool, whose events name no version of the tool to split them by, and for confusions
   * and repeated calls, whose mistakes are no category of the day's rows.
   */
  async countMatchedBreakdown(
    projectId: string,
    recommendation: StoredRecommendation,
    until: Date,
    from?: Date,
  ): Promise<ValueCounts[] | null> {
    const match = (recommendation.evidence as { match?: MistakeMatch }).match;
    if (!match || match.calledTool || match.confusedWith || match.isRepeatedCall) return null;
    return this.breakdowns.countBreakdownByVersion(projectId, recommendation.tool, match, until, from);
  }

  /** The effect per model and per framework, split like the overall one; null where there is no breakdown. */
  private async breakDown(projectId: string, recommendation: StoredRecommendation, until: Date, exposure: WarningExposure) {
    const counts = await this.countMatchedBreakdown(projectId, recommendation, until);
    return counts ? breakDownEffect(counts, (value) => splitByWarning(value.calls, value.mistakes, exposure)) : null;
  }

  /** What the SDK guard prevented and corrected of the recommendation's tool; none for a misnamed tool or a confusion. */
  private async countGuardOutcomes(projectId: string, recommendation: StoredRecommendation, until: Date) {
    const match = (recommendation.evidence as { match?: MistakeMatch }).match;
    if (!match || match.calledTool || match.confusedWith || match.isRepeatedCall) return { prevented: [], corrected: [] };
    return this.dailyStats.countGuardOutcomesByVersion(projectId, recommendation.tool, match, until);
  }

  /**
   * Measures each applied warning's effect on its own mistake up to the end of `day`, and with `autoRetire` retires
   * the ones measured `no_effect` or `worse`. Tools with a running canary are left to its decision: retiring one of
   * their warnings would end the canary.
   */
  async measureEffects(projectId: string, day: Date, policy: ProjectPolicyValues, canaryTools: ReadonlySet<string>) {
    let measured = 0;
    let retired = 0;
    const until = new Date(day.getTime() + DAY_MS);
    const applied = await this.recommendations.findAppliedRecommendations(projectId);
    // a warning dismissed outside the nightly (by a person, or its canary stopped by hand) ends its recommendation too:
    // nothing of it is served any more, so there is no effect to measure or warning to retire
    const warningIds = applied.flatMap((r) => (r.warningId ? [r.warningId] : []));
    const dismissed = await this.registry.findDismissedWarnings(projectId, warningIds);
    for (const recommendation of applied) {
      const reason = recommendation.warningId ? dismissed.get(recommendation.warningId) : undefined;
      if (reason === undefined) continue;
      const effect = { ...(recommendation.effect ?? {}), warningDismissed: reason ?? 'dismissed' };
      await this.recommendations.markDismissed(projectId, recommendation.id, until, effect);
    }
    const tests = await this.registry.findTestsOfWarnings(projectId, warningIds);
    for (const recommendation of applied) {
      if (recommendation.warningId && dismissed.has(recommendation.warningId)) continue;
      if (canaryTools.has(recommendation.tool) || !recommendation.appliedAt || recommendation.appliedAt > until) continue;
      const counts = await this.countMatchedMistakes(projectId, recommendation, until);
      if (!counts) continue;
      const exposure = { appliedVersion: recommendation.appliedVersion, appliedAt: recommendation.appliedAt };
      const split = splitByWarning(counts.calls, counts.mistakes, exposure);
      const estimate = estimateEffect(split.withWarning, split.withoutWarning);
      const guard = splitGuardOutcomes(counts.calls, split, await this.countGuardOutcomes(projectId, recommendation, until), exposure);
      const effect = {
        ...estimate,
        withWarning: { ...estimate.withWarning, ...guard.withWarning },
        withoutWarning: { ...estimate.withoutWarning, ...guard.withoutWarning },
        method: split.method,
        // beside the overall verdict, never instead of it: a warning may help one model and hurt another
        breakdown: await this.breakDown(projectId, recommendation, until, exposure),
        // how the warning was tested before it reached everyone: its canary's design and the warnings tested with it
        // (each about another mistake), or `none` (applied to everyone at once: rollout off, or before canaries)
        testedBy: testedByOf(recommendation.warningId ? tests.get(recommendation.warningId) : undefined),
        measuredFor: day.toISOString().slice(0, 10),
      };
      measured += 1;
      const isUseless = estimate.verdict === 'no_effect' || estimate.verdict === 'worse';
      if (isUseless && policy.autoRetire && recommendation.warningId) {
        await this.registry.retireWarning(projectId, recommendation.warningId, `measured effect: ${estimate.verdict}`);
        await this.recommendations.markDismissed(projectId, recommendation.id, until, { ...effect, retired: true });
        retired += 1;
      } else {
        await this.recommendations.recordEffect(projectId, recommendation.id, { ...effect, flagged: isUseless });
      }
    }
    return { measured, retired };
  }
}

function testedByOf(test: WarningTest | undefined) {
  return test ? { canaryId: test.canaryId, design: test.design, testedWith: test.testedWith } : { design: 'none' as const };
}
