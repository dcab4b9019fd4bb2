import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { RegistryService } from '../registry/registry.service';
import { CanaryDecisionService, CanaryNight } from '../rollout/canary-decision.service';
import { RolloutService } from '../rollout/rollout.service';
import { formatDay } from './analytics-day';
import { CanaryBundles, orderForRollout } from './canary-bundles';
import { DailyStatsRepository, MisnamedTool } from './daily-stats.repository';
import { MistakeEvidenceRepository } from './mistake-evidence.repository';
import { ProjectPolicyValues, RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { JobRunRepository } from './job-run.repository';
import { RecommendationApplier } from './recommendation-applier';
import { autoApplyHold } from './auto-apply-policy';
import { computeDailyToolStat } from './daily-stats';
import { EffectMeasurementService } from './effect-measurement.service';
import { findIntendedTool } from './intended-tool';
import { deriveRecommendations, GroupEvidence, RECOMMENDATION_KINDS, RecommendationDraft } from './recommendation-rules';
import { deriveMisnamedToolRecommendation, describeUnknownTool, UNKNOWN_TOOL_NOTE, UnknownToolNote } from './unknown-tool-rules';
import { deriveLoopRecommendations, MAX_IDENTICAL_FAILURES, MAX_LOOPS_PER_DAY } from './loop-rules';
import { deriveSchemaQualityRecommendations } from './schema-quality-rules';

export const NIGHTLY_JOB = 'nightly';
const DAY_MS = 86_400_000;
/** How long a run waits for a project another run holds (a run takes seconds to minutes). */
const LOCK_WAIT_MS = 5 * 60_000;
const LOCK_RETRY_MS = 5000;
/** Called names that are no registered tool, matched per run, most frequent first: the work stays bounded. */
const MAX_UNKNOWN_TOOL_NAMES = 50;

interface ProjectFindings {
  drafts: RecommendationDraft[];
  notes: UnknownToolNote[];
  misnamed: MisnamedTool[];
  /** Every active tool judged for schema_quality; their recommendations not among `drafts` are resolved. */
  judgedTools: Set<string>;
}

export const DEFAULT_POLICY: ProjectPolicyValues = {
  autoApply: true,
  minOccurrences: 5,
  minShare: 0.05,
  // a review is for humans: it is never applied to a description automatically (nor is a loop, whatever the policy)
  autoApplyKinds: RECOMMENDATION_KINDS.filter((kind) => kind !== 'review_description' && kind !== 'loop'),
  autoRetire: true,
};

export class NightlyAlreadyRunningError extends Error {}

/** One project's nightly runs exclude each other, whatever their day or trigger. */
export function nightlyLockName(projectId: string): string {
  return `toolcoach:${NIGHTLY_JOB}:${projectId}`;
}

export interface NightlyCounts {
  tools: number;
  recommendations: number;
  applied: number;
  effectsMeasured: number;
  retired: number;
  [key: string]: number;
}

/** The nightly analytics of one project and day: stats, recommendations, auto-applied warnings, their effect. */
@Injectable()
export class NightlyService {
  private readonly logger: Logger;

  constructor(
    private readonly dailyStats: DailyStatsRepository,
    private readonly evidence: MistakeEvidenceRepository,
    private readonly recommendations: RecommendationRepository,
    private readonly jobRuns: JobRunRepository,
    private readonly applier: RecommendationApplier,
    private readonly registry: RegistryService,
    private readonly locks: AdvisoryLocks,
    private readonly rollout: RolloutService,
    private readonly canaryDecisions: CanaryDecisionService,
    private readonly effects: EffectMeasurementService,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'NightlyService' });
  }

  /**
   * Runs every project for `day` (the scheduled job). A project whose lock another run holds is tried again after the
   * others, for up to `lockWaitMs`; one that still cannot run is recorded as a skipped run and logged as an error.
   */
  async runForAllProjects(day: Date, trigger: string, lockWaitMs = LOCK_WAIT_MS): Promise<void> {
    let busy: string[] = [];
    for (const projectId of await this.dailyStats.findProjectIds()) {
      if (!(await this.runUnlessBusy(projectId, day, trigger))) busy.push(projectId);
    }
    const deadline = Date.now() + lockWaitMs;
    while (busy.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_RETRY_MS, lockWaitMs)));
      const stillBusy: string[] = [];
      for (const projectId of busy) if (!(await this.runUnlessBusy(projectId, day, trigger))) stillBusy.push(projectId);
      busy = stillBusy;
    }
    for (const projectId of busy) await this.recordSkippedRun(projectId, day, trigger, lockWaitMs);
  }

  /** False when another run holds the project's lock; any other failure is logged (and recorded by the run itself). */
  private async runUnlessBusy(projectId: string, day: Date, trigger: string): Promise<boolean> {
    try {
      await this.runForProject(projectId, day, trigger);
    } catch (error) {
      if (error instanceof NightlyAlreadyRunningError) return false;
      this.logger.error({ projectId, day: formatDay(day), err: (error as Error).message }, 'nightly run failed');
    }
    return true;
  }

  private async recordSkippedRun(projectId: string, day: Date, trigger: string, lockWaitMs: number) {
    const reason = skippedReason(lockWaitMs);
    this.logger.error({ projectId, day: formatDay(day), trigger }, `nightly run ${reason}`);
    try {
      const runId = await this.jobRuns.insertRunningRun(projectId, NIGHTLY_JOB, day, trigger);
      await this.jobRuns.finishRun(projectId, runId, 'skipped', null, reason);
    } catch (error) {
      this.logger.error({ projectId, day: formatDay(day), err: (error as Error).message }, 'could not record the skipped nightly run');
    }
  }

  /**
   * The scheduled run of one project: recorded as it starts; re-running a day replaces what that day produced.
   * Everything after the lock is taken runs inside the try whose finally frees it: a run that fails anywhere never
   * leaves the project locked.
   */
  private async runForProject(projectId: string, day: Date, trigger: string): Promise<void> {
    const lock = await this.locks.tryAcquire(nightlyLockName(projectId));
    if (!lock) throw new NightlyAlreadyRunningError('the nightly job of this project is already running');
    try {
      await this.computeRun(await this.jobRuns.insertRunningRun(projectId, NIGHTLY_JOB, day, trigger), projectId, day);
    } finally {
      await lock.release();
    }
  }

  /**
   * Runs a run the API queued (NightlyRunsService), once its project is free: it waits up to `lockWaitMs` for a run
   * holding the project's lock, then records itself skipped. A run that already has an outcome is not run again.
   */
  async runQueuedRun(runId: string, projectId: string, day: Date, lockWaitMs = LOCK_WAIT_MS): Promise<void> {
    const lock = await this.waitForLock(projectId, lockWaitMs);
    if (!lock) {
      const reason = skippedReason(lockWaitMs);
      this.logger.error({ projectId, day: formatDay(day), runId }, `nightly run ${reason}`);
      await this.jobRuns.finishRun(projectId, runId, 'skipped', null, reason);
      return;
    }
    try {
      let isStarted = false;
      try {
        isStarted = await this.jobRuns.startQueuedRun(projectId, runId);
      } catch (error) {
        await this.jobRuns.finishRun(projectId, runId, 'failed', null, (error as Error).message.slice(0, 2000));
        throw error;
      }
      if (isStarted) await this.computeRun(runId, projectId, day);
    } finally {
      await lock.release();
    }
  }

  /** Records a queued run failed when its job failed for good outside computeRun; a run with an outcome keeps it. */
  async recordGivenUpRun(projectId: string, runId: string, reason: string): Promise<void> {
    if (await this.jobRuns.failUnfinishedRun(projectId, runId, reason)) {
      this.logger.error({ projectId, runId, reason }, 'nightly run given up by the queue');
    }
  }

  private async waitForLock(projectId: string, lockWaitMs: number) {
    const deadline = Date.now() + lockWaitMs;
    let lock = await this.locks.tryAcquire(nightlyLockName(projectId));
    while (!lock && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_RETRY_MS, lockWaitMs)));
      lock = await this.locks.tryAcquire(nightlyLockName(projectId));
    }
    return lock;
  }

  /** Computes the day for a run already marked running, and records its outcome. */
  private async computeRun(runId: string, projectId: string, day: Date): Promise<void> {
    try {
      const counts = await this.computeDay(projectId, day);
      this.logger.info({ projectId, day: formatDay(day), ...counts }, 'nightly run finished');
      await this.jobRuns.finishRun(projectId, runId, 'succeeded', counts, null);
    } catch (error) {
      await this.jobRuns.finishRun(projectId, runId, 'failed', null, (error as Error).message.slice(0, 2000));
      throw error;
    }
  }

  private async computeDay(projectId: string, day: Date): Promise<NightlyCounts> {
    const stats = (await this.dailyStats.sumToolDays(projectId, day)).map(computeDailyToolStat);
    await this.dailyStats.replaceDailyToolStats(projectId, day, stats);

    const { drafts, notes, misnamed, judgedTools } = await this.deriveProjectFindings(projectId, day, stats);
    const openSchemaFindings = await this.recommendations.findOpenRecommendationsOfKind(projectId, 'schema_quality');
    keepFirstSeen(drafts, openSchemaFindings);
    await this.addCallDenominators(projectId, day, drafts);
    const recommendations = await this.recommendations.upsertRecommendations(projectId, drafts);
    const resolved = await this.resolveFixedSchemaFindings(projectId, openSchemaFindings, judgedTools, drafts, day);
    await this.registry.replaceProjectNotes(projectId, UNKNOWN_TOOL_NOTE, notes, new Date(Math.min(Date.now(), day.getTime() + DAY_MS)));
    await this.dailyStats.replaceMisnamedCalls(projectId, day, misnamed);
    const policy = (await this.recommendations.findPolicy(projectId)) ?? DEFAULT_POLICY;
    // the end of the computed day: a backfill applies warnings as of then, not as of today
    const asOf = new Date(Math.min(Date.now(), day.getTime() + DAY_MS));
    const canaries = await this.decideCanaries(projectId, day, asOf);
    // before new warnings start canaries: a warning promoted tonight is measured tonight, and retiring one changes a
    // description no canary is testing yet
    const { measured, retired } = await this.effects.measureEffects(projectId, day, policy, canaries.runningTools);
    const canary = await this.rollout.findAutoCanarySettings(projectId);
    // a tool whose canary runs keeps its description as it is until the canary is decided (docs/rollout.md)
    for (const recommendation of recommendations) {
      if (recommendation.status === 'applied' && !canaries.runningTools.has(recommendation.tool)) {
        await this.applier.refresh(projectId, recommendation);
      }
    }
    const bundles = new CanaryBundles(canaries.runningTools, await this.recommendations.findAppliedRecommendations(projectId));
    let applied = 0;
    for (const recommendation of orderForRollout(recommendations.filter((r) => r.status === 'proposed' && isEligible(r, policy)))) {
      if (!bundles.admits(recommendation, canary !== null)) continue;
      const start = canary && { ...canary, join: bundles.isStarted(recommendation.tool) };
      if (!(await this.applier.apply(projectId, recommendation, asOf, start))) continue;
      applied += 1;
      if (canary) bundles.add(recommendation);
    }
    const decided = (action: string) => canaries.decided.filter((each) => each.action === action).length;
    return {
      tools: stats.length,
      recommendations: recommendations.length,
      applied,
      effectsMeasured: measured,
      retired,
      resolved,
      canariesPromoted: decided('promote'),
      canariesRolledBack: decided('roll_back'),
    };
  }

  /**
   * Promotes or rolls back the project's running canaries on the calls up to the end of `day`, each judged on its
   * recommendation's own mistake when it has one; a rolled-back canary's recommendation is dismissed with the numbers.
   */
  private async decideCanaries(projectId: string, day: Date, asOf: Date): Promise<CanaryNight> {
    const until = new Date(day.getTime() + DAY_MS);
    const applied = await this.recommendations.findAppliedRecommendations(projectId);
    const recommendationOf = (warningId: string | null) => applied.find((each) => warningId !== null && each.warningId === warningId);
    const night = await this.canaryDecisions.decideCanaries(projectId, day, async (_running, warningId) => {
      const recommendation = recommendationOf(warningId);
      return recommendation ? this.effects.countMatchedMistakes(projectId, recommendation, until) : null;
    });
    for (const { action, rolledBackWarningIds, decision } of night.decided) {
      if (action !== 'roll_back') continue;
      for (const warningId of rolledBackWarningIds) {
        const recommendation = recommendationOf(warningId);
        if (recommendation) await this.recommendations.markDismissed(projectId, recommendation.id, asOf, { ...decision, rolledBack: true });
      }
    }
    return night;
  }

  /**
   * Recommendations per tool from its error groups; calls to names that are no registered tool (category
   * unknown_tool) become a warning on the tool the model most likely meant, or a project note when none is close.
   * A name that is not registered has no description to review or warn in.
   */
  private async deriveProjectFindings(
    projectId: string,
    day: Date,
    stats: ReturnType<typeof computeDailyToolStat>[],
  ): Promise<ProjectFindings> {
    const [groups, ranges] = await Promise.all([
      this.evidence.findRecentErrorGroups(projectId, day),
      this.evidence.findArgumentRanges(projectId),
    ]);
    const tools = new Set([...groups.map((g) => g.tool), ...stats.map((s) => s.tool)]);
    const schemas = await this.registry.findToolSchemas(projectId, [...tools]);
    const isUnknownToolCall = (g: GroupEvidence & { tool: string }) => g.category === 'unknown_tool' && !schemas.has(g.tool);
    const toolGroups = groups.filter((g) => !isUnknownToolCall(g));
    const samples = await this.evidence.findEventArguments(
      projectId,
      toolGroups.flatMap((g) => g.sampleEventIds),
    );
    const drafts: RecommendationDraft[] = [];
    for (const tool of tools) {
      const stat = schemas.has(tool) ? stats.find((s) => s.tool === tool) : undefined;
      drafts.push(
        ...deriveRecommendations({
          tool,
          schema: schemas.get(tool) ?? null,
          groups: toolGroups.filter((g) => g.tool === tool),
          argumentRanges: ranges.filter((r) => r.tool === tool),
          sampleArguments: samples,
          stats: stat ? { calls: stat.calls, successRate: stat.successRate, prev7SuccessRate: stat.prev7SuccessRate } : null,
        }),
      );
    }
    const unknown = await this.matchUnknownTools(projectId, groups.filter(isUnknownToolCall), toolGroups);
    // before the first mistake: every active tool's definition, whether or not it was called
    const quality = await this.registry.judgeActiveTools(projectId);
    const judgedTools = new Set(quality.map((report) => report.tool));
    // a name that is no registered tool has no error message of its own to fix: misnamed_tool covers it
    const loops = (await this.evidence.findRepeatedFailures(projectId, day, MAX_IDENTICAL_FAILURES, MAX_LOOPS_PER_DAY)).filter((loop) =>
      judgedTools.has(loop.tool),
    );
    return {
      drafts: [
        ...drafts,
        ...unknown.drafts,
        ...quality.flatMap((report) => deriveSchemaQualityRecommendations(report, day)),
        ...deriveLoopRecommendations(loops),
      ],
      notes: unknown.notes,
      misnamed: unknown.misnamed,
      judgedTools,
    };
  }

  /**
   * A schema_quality recommendation whose finding is gone (the definition was fixed) is dismissed, and its warning
   * retired: the description now says it, or the schema does. Tools not judged this run (archived) keep theirs.
   */
  private async resolveFixedSchemaFindings(
    projectId: string,
    openSchemaFindings: readonly StoredRecommendation[],
    judgedTools: ReadonlySet<string>,
    drafts: readonly RecommendationDraft[],
    day: Date,
  ): Promise<number> {
    const current = new Set(drafts.filter((d) => d.kind === 'schema_quality').map((d) => `${d.tool}\u0000${d.evidenceKey}`));
    const until = new Date(Math.min(Date.now(), day.getTime() + DAY_MS));
    let resolved = 0;
    for (const recommendation of openSchemaFindings) {
      if (!judgedTools.has(recommendation.tool) || current.has(`${recommendation.tool}\u0000${recommendation.evidenceKey}`)) continue;
      if (recommendation.status === 'applied' && recommendation.warningId) {
        await this.registry.retireWarning(projectId, recommendation.warningId, 'the tool definition no longer has this finding');
      }
      await this.recommendations.markDismissed(projectId, recommendation.id, until);
      resolved += 1;
    }
    return resolved;
  }

  private async matchUnknownTools(
    projectId: string,
    unknownGroups: Array<GroupEvidence & { tool: string }>,
    toolGroups: Array<GroupEvidence & { tool: string }>,
  ): Promise<Pick<ProjectFindings, 'drafts' | 'notes' | 'misnamed'>> {
    const byName = new Map<string, Array<GroupEvidence & { tool: string }>>();
    for (const group of unknownGroups) byName.set(group.tool, [...(byName.get(group.tool) ?? []), group]);
    const count = (list: GroupEvidence[]) => list.reduce((n, g) => n + g.count, 0);
    const names = [...byName.entries()]
      .sort((a, b) => count(b[1]) - count(a[1]) || a[0].localeCompare(b[0]))
      .slice(0, MAX_UNKNOWN_TOOL_NAMES);
    const findings = { drafts: [] as RecommendationDraft[], notes: [] as UnknownToolNote[], misnamed: [] as MisnamedTool[] };
    if (names.length === 0) return findings;
    const registeredTools = await this.registry.listActiveToolNames(projectId);
    const nextTools = await this.evidence.findNextToolCalls(
      projectId,
      names.flatMap(([, list]) => list.flatMap((g) => g.sampleEventIds)),
    );
    for (const [calledName, list] of names) {
      const sampleIds = list.flatMap((g) => g.sampleEventIds);
      const nextCalls = new Map<string, number>();
      for (const id of sampleIds) {
        const next = nextTools.get(id);
        if (next) nextCalls.set(next, (nextCalls.get(next) ?? 0) + 1);
      }
      const match = findIntendedTool({ calledName, registeredTools, nextCalls, sampledCalls: sampleIds.length });
      if (!match) {
        findings.notes.push(describeUnknownTool(calledName, list));
        continue;
      }
      const intendedErrors = count(toolGroups.filter((g) => g.tool === match.tool));
      findings.drafts.push(deriveMisnamedToolRecommendation(calledName, list, match, intendedErrors));
      findings.misnamed.push({ calledName, tool: match.tool });
    }
    return findings;
  }

  /**
   * Adds `calls` to each draft's evidence: the calls of its tool (and, for a misnamed tool, of the called name) from
   * the day its mistake was first seen to the end of `day`, so a warning can say "12 of 140 recent calls".
   */
  private async addCallDenominators(projectId: string, day: Date, drafts: RecommendationDraft[]): Promise<void> {
    if (drafts.length === 0) return;
    const until = new Date(day.getTime() + DAY_MS);
    const firstDay = (draft: RecommendationDraft) => startOfDay(new Date(draft.evidence.firstSeen));
    const from = new Date(Math.min(...drafts.map((d) => firstDay(d).getTime())));
    const names = new Set(drafts.flatMap((d) => [d.tool, ...(d.evidence.match.calledTool ? [d.evidence.match.calledTool] : [])]));
    const rows = await this.dailyStats.sumCallsByDay(projectId, [...names], from, until);
    for (const draft of drafts) {
      const counted = new Set([draft.tool, draft.evidence.match.calledTool]);
      const since = firstDay(draft).getTime();
      const calls = rows.filter((r) => counted.has(r.tool) && r.day.getTime() >= since).reduce((n, r) => n + r.calls, 0);
      // rollups lag the groups by at most a batch; a warning never claims more failures than calls
      draft.evidence.calls = Math.max(calls, draft.evidence.count);
    }
  }
}

/** Why a run that waited `lockWaitMs` for its project's lock in vain did not run (the scheduled and the queued alike). */
function skippedReason(lockWaitMs: number): string {
  return `skipped: another run of this project held its lock for the ${lockWaitMs} ms this run waited`;
}

function startOfDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

/** A finding still there keeps the day it was first seen (its calls are counted from then), not the day of this run. */
function keepFirstSeen(drafts: RecommendationDraft[], open: readonly StoredRecommendation[]): void {
  const firstSeen = new Map(open.map((r) => [`${r.tool}\u0000${r.evidenceKey}`, (r.evidence as { firstSeen?: unknown }).firstSeen]));
  for (const draft of drafts) {
    const known = draft.kind === 'schema_quality' ? firstSeen.get(`${draft.tool}\u0000${draft.evidenceKey}`) : undefined;
    if (typeof known === 'string' && known < draft.evidence.firstSeen) draft.evidence.firstSeen = known;
  }
}

/** Whether the nightly applies a proposed recommendation by itself: when nothing holds it (auto-apply-policy.ts). */
function isEligible(recommendation: StoredRecommendation, policy: ProjectPolicyValues): boolean {
  return autoApplyHold(recommendation, policy) === null;
}
