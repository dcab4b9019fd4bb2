import { Injectable } from '@nestjs/common';
import { RegistryService } from '../registry/registry.service';
import { computeDailyToolStat } from './daily-stats';
import { DailyStatsRepository, MisnamedTool } from './daily-stats.repository';
import { findIntendedTool } from './intended-tool';
import { deriveLoopRecommendations, MAX_IDENTICAL_FAILURES, MAX_LOOPS_PER_DAY } from './loop-rules';
import { MistakeEvidenceRepository } from './mistake-evidence.repository';
import { RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { RepeatedCallsService } from './repeated-calls.service';
import { deriveRecommendations } from './recommendation-rules';
import type { GroupEvidence, RecommendationDraft } from './recommendation-drafts';
import { deriveSchemaQualityRecommendations } from './schema-quality-rules';
import { ToolConfusionService } from './tool-confusion.service';
import { deriveMisnamedToolRecommendation, describeUnknownTool, UNKNOWN_TOOL_NOTE, UnknownToolNote } from './unknown-tool-rules';

const DAY_MS = 86_400_000;
/** Called names that are no registered tool, matched per run, most frequent first: the work stays bounded. */
const MAX_UNKNOWN_TOOL_NAMES = 50;

type DailyToolStat = ReturnType<typeof computeDailyToolStat>;

interface ProjectFindings {
  drafts: RecommendationDraft[];
  notes: UnknownToolNote[];
  misnamed: MisnamedTool[];
  /** Every active tool judged for schema_quality; their recommendations not among `drafts` are resolved. */
  judgedTools: Set<string>;
}

export interface RecordedFindings {
  /** The day's recommendations as stored (new ones proposed, known ones with their status). */
  recommendations: StoredRecommendation[];
  /** schema_quality findings that are gone, dismissed tonight. */
  resolved: number;
}

/**
 * What one project's day says should change in its tool descriptions: recommendations from its error groups, from its
 * tools' definitions, from its failure loops and from the tools its sessions confused (tool-confusion), and the tools its unknown names most likely meant. Stores them
 * (recommendations, the project's unknown-tool notes, the day's misnamed calls) and resolves the findings that are gone.
 */
@Injectable()
export class RecommendationFindingsService {
  constructor(
    private readonly evidence: MistakeEvidenceRepository,
    private readonly dailyStats: DailyStatsRepository,
    private readonly recommendations: RecommendationRepository,
    private readonly registry: RegistryService,
    private readonly confusions: ToolConfusionService,
    private readonly repeats: RepeatedCallsService,
  ) {}

  async recordFindings(projectId: string, day: Date, stats: DailyToolStat[]): Promise<RecordedFindings> {
    const { drafts, notes, misnamed, judgedTools } = await this.deriveProjectFindings(projectId, day, stats);
    const openSchemaFindings = await this.recommendations.findOpenRecommendationsOfKind(projectId, 'schema_quality');
    keepFirstSeen(drafts, openSchemaFindings);
    await this.addCallDenominators(projectId, day, drafts);
    const recommendations = await this.recommendations.upsertRecommendations(projectId, drafts);
    const resolved = await this.resolveFixedSchemaFindings(projectId, openSchemaFindings, judgedTools, drafts, day);
    await this.registry.replaceProjectNotes(projectId, UNKNOWN_TOOL_NOTE, notes, new Date(Math.min(Date.now(), day.getTime() + DAY_MS)));
    await this.dailyStats.replaceMisnamedCalls(projectId, day, misnamed);
    return { recommendations, resolved };
  }

  /**
   * Recommendations per tool from its error groups; calls to names that are no registered tool (category
   * unknown_tool) become a warning on the tool the model most likely meant, or a project note when none is close.
   * A name that is not registered has no description to review or warn in.
   */
  private async deriveProjectFindings(projectId: string, day: Date, stats: DailyToolStat[]): Promise<ProjectFindings> {
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
    const loops = (await this.evidence.findRepeatedCalls(projectId, day, MAX_IDENTICAL_FAILURES, MAX_LOOPS_PER_DAY)).filter((loop) =>
      judgedTools.has(loop.tool),
    );
    return {
      drafts: [
        ...drafts,
        ...unknown.drafts,
        ...quality.flatMap((report) => deriveSchemaQualityRecommendations(report, day)),
        ...deriveLoopRecommendations(loops),
        ...(await this.confusions.findConfusionDrafts(projectId, day)),
        ...(await this.repeats.deriveRepeatDrafts(projectId, day, judgedTools)),
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
