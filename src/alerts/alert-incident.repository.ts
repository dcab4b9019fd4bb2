import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { Firing, RuleKind } from './alert-conditions';

export interface StoredIncident {
  id: string;
  ruleId: string;
  ruleName: string;
  ruleKind: RuleKind;
  subject: string;
  tool: string | null;
  status: 'open' | 'resolved';
  summary: string;
  details: Record<string, unknown>;
  isNotified: boolean;
  openedAt: Date;
  resolvedAt: Date | null;
}

const INCIDENT_SELECT = {
  id: true,
  ruleId: true,
  subject: true,
  tool: true,
  status: true,
  summary: true,
  details: true,
  isNotified: true,
  openedAt: true,
  resolvedAt: true,
  rule: { select: { name: true, kind: true } },
} satisfies Prisma.AlertIncidentSelect;

/** Incidents, and the evaluation windows that make each window's evaluation happen once across workers. */
@Injectable()
export class AlertIncidentRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Claims the window for this worker; false when another worker already evaluated (or is evaluating) it. */
  async claimWindow(windowStart: Date): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<unknown[]>`
      INSERT INTO alert_evaluations (window_start) VALUES (${windowStart}) ON CONFLICT DO NOTHING RETURNING window_start`;
    return rows.length === 1;
  }

  async finishWindow(windowStart: Date, counts: Record<string, number>): Promise<void> {
    await this.prisma.alertEvaluation.update({ where: { windowStart }, data: { finishedAt: new Date(), counts } });
  }

  async findOpenIncidents(projectId: string, ruleId: string): Promise<StoredIncident[]> {
    const rows = await this.prisma.alertIncident.findMany({ where: { projectId, ruleId, status: 'open' }, select: INCIDENT_SELECT });
    return rows.map(toIncident);
  }

  /** Whether the rule sent a notification for `subject` at or after `since` (the cool-down). */
  async wasNotifiedSince(projectId: string, ruleId: string, subject: string, since: Date): Promise<boolean> {
    const found = await this.prisma.alertIncident.findFirst({
      where: {
        projectId,
        ruleId,
        subject,
        isNotified: true,
        OR: [{ openedAt: { gte: since } }, { resolvedAt: { gte: since } }, { status: 'open' }],
      },
      select: { id: true },
    });
    return found !== null;
  }

  async openIncident(projectId: string, ruleId: string, firing: Firing, isNotified: boolean, at: Date): Promise<StoredIncident> {
    const row = await this.prisma.alertIncident.create({
      data: {
        projectId,
        ruleId,
        subject: firing.subject,
        tool: firing.tool,
        status: 'open',
        summary: firing.summary,
        details: firing.details as Prisma.InputJsonObject,
        isNotified,
        openedAt: at,
      },
      select: INCIDENT_SELECT,
    });
    return toIncident(row);
  }

  /** Keeps an open incident's numbers current. */
  async refreshIncident(projectId: string, id: string, firing: Firing): Promise<void> {
    await this.prisma.alertIncident.update({
      where: { projectId_id: { projectId, id } },
      data: { summary: firing.summary, details: firing.details as Prisma.InputJsonObject },
    });
  }

  async resolveIncident(projectId: string, id: string, at: Date): Promise<StoredIncident> {
    return toIncident(
      await this.prisma.alertIncident.update({
        where: { projectId_id: { projectId, id } },
        data: { status: 'resolved', resolvedAt: at },
        select: INCIDENT_SELECT,
      }),
    );
  }

  /** Resolves a rule's open incidents without notifying (the rule was disabled). */
  async resolveRuleIncidents(projectId: string, ruleId: string, at: Date): Promise<void> {
    await this.prisma.alertIncident.updateMany({
      where: { projectId, ruleId, status: 'open' },
      data: { status: 'resolved', resolvedAt: at },
    });
  }

  async findIncidents(projectId: string, filter: { status?: 'open' | 'resolved'; limit: number }): Promise<StoredIncident[]> {
    const rows = await this.prisma.alertIncident.findMany({
      where: { projectId, status: filter.status },
      select: INCIDENT_SELECT,
      orderBy: [{ openedAt: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
    return rows.map(toIncident);
  }
}

function toIncident(row: Prisma.AlertIncidentGetPayload<{ select: typeof INCIDENT_SELECT }>): StoredIncident {
  const { rule, ...incident } = row;
  return {
    ...incident,
    ruleName: rule.name,
    ruleKind: rule.kind as RuleKind,
    status: incident.status as StoredIncident['status'],
    details: incident.details as Record<string, unknown>,
  };
}
