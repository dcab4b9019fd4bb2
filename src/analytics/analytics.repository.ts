import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { Prisma } from '../generated/prisma/client';
import { DailyToolStatRow, ToolDayTotals } from './daily-stats';
import { ArgumentRange, GroupEvidence, MistakeMatch, RecommendationDraft } from './recommendation-rules';

const DAY_MS = 86_400_000;
/** Error groups not seen for this long no longer shape recommendations. */
export const RECOMMENDATION_WINDOW_DAYS = 30;

export interface StoredRecommendation {
  id: string;
  tool: string;
  kind: string;
  evidenceKey: string;
  text: string;
  evidence: Record<string, unknown>;
  confidence: number;
  status: string;
  warningId: string | null;
  appliedVersion: number | null;
  appliedAt: Date | null;
  effect: Record<string, unknown> | null;
}

export interface ProjectPolicyValues {
  autoApply: boolean;
  minOccurrences: number;
  minShare: number;
  autoApplyKinds: string[];
  autoRetire: boolean;
}

/** Reads the worker's rollups and writes what the nightly job derives; every read is bounded by tools x days. */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findProjectIds(): Promise<string[]> {
    return this.prisma.project.findMany({ select: { id: true } }).then((rows) => rows.map((r) => r.id));
  }

  /** Sums one UTC day of hourly rollups per tool, with the 7 days before it. */
  async sumToolDays(projectId: string, day: Date): Promise<ToolDayTotals[]> {
    const next = new Date(day.getTime() + DAY_MS);
    const weekBefore = new Date(day.getTime() - 7 * DAY_MS);
    const [hours, errors, previous] = await Promise.all([
      this.prisma.hourlyRollup.findMany({
        where: { projectId, hour: { gte: day, lt: next } },
        select: { tool: true, calls: true, errors: true, latencyCount: true, latencyBuckets: true },
      }),
      this.prisma.hourlyErrorRollup.groupBy({
        by: ['tool', 'category', 'subtype'],
        where: { projectId, hour: { gte: day, lt: next } },
        _sum: { count: true },
      }),
      this.prisma.hourlyRollup.groupBy({
        by: ['tool'],
        where: { projectId, hour: { gte: weekBefore, lt: day } },
        _sum: { calls: true, errors: true },
      }),
    ]);
    const totals = new Map<string, ToolDayTotals>();
    for (const hour of hours) {
      const total = totals.get(hour.tool) ?? {
        tool: hour.tool,
        calls: 0,
        errors: 0,
        latencyCount: 0,
        latencyBuckets: [],
        errorsByCategory: [],
        prev7Calls: 0,
        prev7Errors: 0,
      };
      total.calls += hour.calls;
      total.errors += hour.errors;
      total.latencyCount += hour.latencyCount;
      hour.latencyBuckets.forEach((count, i) => (total.latencyBuckets[i] = (total.latencyBuckets[i] ?? 0) + count));
      totals.set(hour.tool, total);
    }
    for (const row of errors) {
      totals.get(row.tool)?.errorsByCategory.push({ category: row.category, subtype: row.subtype, count: row._sum.count ?? 0 });
    }
    for (const row of previous) {
      const total = totals.get(row.tool);
      if (!total) continue;
      total.prev7Calls = row._sum.calls ?? 0;
      total.prev7Errors = row._sum.errors ?? 0;
    }
    return [...totals.values()];
  }

  /** Replaces the day's stats, so re-running a day gives the same rows. */
  async replaceDailyToolStats(projectId: string, day: Date, rows: readonly DailyToolStatRow[]): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.dailyToolStat.deleteMany({ where: { projectId, day } }),
      this.prisma.dailyToolStat.createMany({
        data: rows.map((row) => ({
          projectId,
          day,
          tool: row.tool,
          calls: row.calls,
          successes: row.successes,
          errors: row.errors,
          successRate: row.successRate,
          errorsByCategory: row.errorsByCategory,
          errorsBySubtype: row.errorsBySubtype,
          latencyCount: row.latencyCount,
          latencyBuckets: row.latencyBuckets,
          latencyP50Ms: row.latencyP50Ms,
          latencyP95Ms: row.latencyP95Ms,
          prev7Calls: row.prev7Calls,
          prev7SuccessRate: row.prev7SuccessRate,
          successRateChange: row.successRateChange,
        })),
      }),
    ]);
  }

  findDailyToolStats(projectId: string, day: Date) {
    return this.prisma.dailyToolStat.findMany({ where: { projectId, day } });
  }

  /** Error groups seen in the window ending with `day`, not ignored by a human. */
  async findRecentErrorGroups(projectId: string, day: Date): Promise<Array<GroupEvidence & { tool: string }>> {
    const rows = await this.prisma.errorGroup.findMany({
      where: {
        projectId,
        status: { not: 'ignored' },
        lastSeen: { gte: new Date(day.getTime() - RECOMMENDATION_WINDOW_DAYS * DAY_MS) },
        firstSeen: { lt: new Date(day.getTime() + DAY_MS) },
      },
    });
    return rows.map((row) => ({
      id: row.id,
      tool: row.tool,
      category: row.category,
      subtype: row.subtype,
      argumentPath: row.argumentPath,
      messageTemplate: row.messageTemplate,
      count: Number(row.count),
      firstSeen: row.firstSeen,
      lastSeen: row.lastSeen,
      sampleEventIds: row.sampleEventIds,
      intendedArgument: row.intendedArgument,
      arrayForScalarCount: Number(row.arrayForScalarCount),
      minOffendingValue: row.minOffendingValue,
      maxOffendingValue: row.maxOffendingValue,
    }));
  }

  async findArgumentRanges(projectId: string): Promise<Array<ArgumentRange & { tool: string }>> {
    const rows = await this.prisma.argumentValueRange.findMany({ where: { projectId } });
    return rows.map((r) => ({ ...r, successCount: Number(r.successCount) }));
  }

  /** The arguments of a few sample events, by primary key. */
  async findEventArguments(projectId: string, ids: readonly string[]): Promise<Map<string, unknown>> {
    if (ids.length === 0) return new Map();
    const rows = await this.prisma.event.findMany({
      where: { projectId, id: { in: [...ids] } },
      select: { id: true, arguments: true },
    });
    return new Map(rows.map((r) => [r.id, r.arguments]));
  }

  /** Inserts new recommendations and refreshes the text and evidence of known ones; a human's decision is kept. */
  async upsertRecommendations(projectId: string, drafts: readonly RecommendationDraft[]): Promise<StoredRecommendation[]> {
    const stored: StoredRecommendation[] = [];
    for (const draft of drafts) {
      const data = {
        kind: draft.kind,
        text: draft.text,
        evidence: draft.evidence as unknown as Prisma.InputJsonValue,
        confidence: draft.confidence,
      };
      const row = await this.prisma.recommendation.upsert({
        where: { projectId_tool_evidenceKey: { projectId, tool: draft.tool, evidenceKey: draft.evidenceKey } },
        create: { projectId, tool: draft.tool, evidenceKey: draft.evidenceKey, ...data },
        update: { ...data, updatedAt: new Date() },
      });
      stored.push(toStored(row));
    }
    return stored;
  }

  async findRecommendation(projectId: string, id: string): Promise<StoredRecommendation | null> {
    const row = await this.prisma.recommendation.findFirst({ where: { projectId, id } });
    return row ? toStored(row) : null;
  }

  async findAppliedRecommendations(projectId: string): Promise<StoredRecommendation[]> {
    const rows = await this.prisma.recommendation.findMany({ where: { projectId, status: 'applied', warningId: { not: null } } });
    return rows.map(toStored);
  }

  async listRecommendations(
    projectId: string,
    filter: { status?: string; tool?: string; after?: string; limit: number },
  ): Promise<StoredRecommendation[]> {
    const rows = await this.prisma.recommendation.findMany({
      where: { projectId, status: filter.status, tool: filter.tool, ...(filter.after ? { id: { gt: filter.after } } : {}) },
      orderBy: { id: 'asc' },
      take: filter.limit,
    });
    return rows.map(toStored);
  }

  async markApplied(id: string, warningId: string, version: number | null, at: Date): Promise<void> {
    await this.prisma.recommendation.update({
      where: { id },
      data: { status: 'applied', warningId, appliedVersion: version, appliedAt: at, updatedAt: at },
    });
  }

  async markDismissed(id: string, at: Date, effect?: Record<string, unknown>): Promise<void> {
    await this.prisma.recommendation.update({
      where: { id },
      data: { status: 'dismissed', updatedAt: at, ...(effect ? { effect: effect as Prisma.InputJsonValue } : {}) },
    });
  }

  async recordEffect(id: string, effect: Record<string, unknown>): Promise<void> {
    await this.prisma.recommendation.update({ where: { id }, data: { effect: effect as Prisma.InputJsonValue } });
  }

  /** Calls and matching mistakes per description version (0: not reported) and day, for one tool, up to `until`. */
  async countMistakesByVersion(projectId: string, tool: string, match: MistakeMatch, until: Date) {
    const [calls, mistakes] = await Promise.all([
      this.prisma.dailyVersionRollup.findMany({
        where: { projectId, tool, day: { lt: until } },
        select: { day: true, descriptionVersion: true, calls: true },
      }),
      this.prisma.dailyMistakeRollup.groupBy({
        by: ['day', 'descriptionVersion'],
        where: {
          projectId,
          tool,
          day: { lt: until },
          category: { in: match.categories },
          subtype: { in: match.subtypes },
          argumentPath: { in: match.argumentPaths },
        },
        _sum: { count: true },
      }),
    ]);
    return {
      calls: calls.map((c) => ({ day: c.day, version: c.descriptionVersion, count: c.calls })),
      mistakes: mistakes.map((m) => ({ day: m.day, version: m.descriptionVersion, count: m._sum.count ?? 0 })),
    };
  }

  async findPolicy(projectId: string): Promise<ProjectPolicyValues | null> {
    return this.prisma.projectPolicy.findUnique({
      where: { projectId },
      select: { autoApply: true, minOccurrences: true, minShare: true, autoApplyKinds: true, autoRetire: true },
    });
  }

  async upsertPolicy(projectId: string, policy: ProjectPolicyValues): Promise<void> {
    await this.prisma.projectPolicy.upsert({
      where: { projectId },
      create: { projectId, ...policy },
      update: { ...policy, updatedAt: new Date() },
    });
  }
}

function toStored(row: {
  id: string;
  tool: string;
  kind: string;
  evidenceKey: string;
  text: string;
  evidence: unknown;
  confidence: number;
  status: string;
  warningId: string | null;
  appliedVersion: number | null;
  appliedAt: Date | null;
  effect: unknown;
}): StoredRecommendation {
  return {
    id: row.id,
    tool: row.tool,
    kind: row.kind,
    evidenceKey: row.evidenceKey,
    text: row.text,
    evidence: row.evidence as Record<string, unknown>,
    confidence: row.confidence,
    status: row.status,
    warningId: row.warningId,
    appliedVersion: row.appliedVersion,
    appliedAt: row.appliedAt,
    effect: (row.effect as Record<string, unknown> | null) ?? null,
  };
}
