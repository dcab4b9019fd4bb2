import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../infra/prisma/prisma.service';
import { RecommendationDraft } from './recommendation-drafts';

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
  /** When a person approved it under review mode; null: not approved. */
  approvedAt: Date | null;
}

export interface ProjectPolicyValues {
  autoApply: boolean;
  minOccurrences: number;
  minShare: number;
  autoApplyKinds: string[];
  autoRetire: boolean;
  /** The most o200k_base tokens the nightly's warnings may add to one tool (docs/description-cost.md). */
  warningTokenCap: number;
  /** Review mode: what the nightly would apply waits for a person's approval first. */
  reviewMode: boolean;
}

const POLICY_SELECT = {
  autoApply: true,
  minOccurrences: true,
  minShare: true,
  autoApplyKinds: true,
  autoRetire: true,
  warningTokenCap: true,
  reviewMode: true,
} as const;

/** Recommendations, their status and measured effect, and the project's policy for applying them. */
@Injectable()
export class RecommendationRepository {
  constructor(private readonly prisma: PrismaService) {}

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

  async findRecommendationsByIds(projectId: string, ids: readonly string[]): Promise<StoredRecommendation[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.recommendation.findMany({ where: { projectId, id: { in: [...ids] } } });
    return rows.map(toStored);
  }

  async findAppliedRecommendations(projectId: string): Promise<StoredRecommendation[]> {
    const rows = await this.prisma.recommendation.findMany({ where: { projectId, status: 'applied', warningId: { not: null } } });
    return rows.map(toStored);
  }

  /** The project's recommendations of `kind` that are proposed or applied. */
  async findOpenRecommendationsOfKind(projectId: string, kind: string): Promise<StoredRecommendation[]> {
    const rows = await this.prisma.recommendation.findMany({ where: { projectId, kind, status: { in: ['proposed', 'applied'] } } });
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

  async markApplied(projectId: string, id: string, warningId: string, version: number | null, at: Date): Promise<void> {
    await this.prisma.recommendation.update({
      where: { projectId_id: { projectId, id } },
      data: { status: 'applied', warningId, appliedVersion: version, appliedAt: at, updatedAt: at },
    });
  }

  async markDismissed(projectId: string, id: string, at: Date, effect?: Record<string, unknown>): Promise<void> {
    await this.prisma.recommendation.update({
      where: { projectId_id: { projectId, id } },
      data: { status: 'dismissed', updatedAt: at, ...(effect ? { effect: effect as Prisma.InputJsonValue } : {}) },
    });
  }

  /** Records a person's approval of a proposed recommendation; false when it is no longer proposed. */
  async markApproved(projectId: string, id: string, at: Date): Promise<boolean> {
    const { count } = await this.prisma.recommendation.updateMany({
      where: { projectId, id, status: 'proposed', approvedAt: null },
      data: { approvedAt: at, updatedAt: at },
    });
    return count === 1;
  }

  async recordEffect(projectId: string, id: string, effect: Record<string, unknown>): Promise<void> {
    await this.prisma.recommendation.update({
      where: { projectId_id: { projectId, id } },
      data: { effect: effect as Prisma.InputJsonValue },
    });
  }

  async findPolicy(projectId: string): Promise<ProjectPolicyValues | null> {
    return this.prisma.projectPolicy.findUnique({
      where: { projectId },
      select: POLICY_SELECT,
    });
  }

  /**
   * Writes the fields `patch` has (a new row takes `defaults` for the rest) and answers the whole resulting policy. One
   * INSERT ... ON CONFLICT DO UPDATE that sets only those columns: two partial updates of different fields both stay.
   */
  async updatePolicy(projectId: string, patch: Partial<ProjectPolicyValues>, defaults: ProjectPolicyValues): Promise<ProjectPolicyValues> {
    return this.prisma.projectPolicy.upsert({
      where: { projectId },
      create: { projectId, ...defaults, ...patch },
      update: { ...patch, updatedAt: new Date() },
      select: POLICY_SELECT,
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
  approvedAt: Date | null;
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
    approvedAt: row.approvedAt,
  };
}
