import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { RuleKind } from './alert-conditions';
import type { RuleInput } from './alerts.schemas';

export interface StoredRule extends RuleInput {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

@Injectable()
export class AlertRuleRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insertRule(projectId: string, input: RuleInput): Promise<StoredRule> {
    return toRule(await this.prisma.alertRule.create({ data: { projectId, ...input } }));
  }

  async countRules(projectId: string): Promise<number> {
    return this.prisma.alertRule.count({ where: { projectId } });
  }

  async findRules(projectId: string): Promise<StoredRule[]> {
    const rows = await this.prisma.alertRule.findMany({ where: { projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toRule);
  }

  async findEnabledRules(projectId: string): Promise<StoredRule[]> {
    const rows = await this.prisma.alertRule.findMany({
      where: { projectId, isEnabled: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toRule);
  }

  async findRule(projectId: string, id: string): Promise<StoredRule | null> {
    const row = await this.prisma.alertRule.findFirst({ where: { projectId, id } });
    return row ? toRule(row) : null;
  }

  /** The projects with an enabled rule, in id order: what one evaluation covers. */
  async findProjectsWithEnabledRules(): Promise<string[]> {
    const rows = await this.prisma.alertRule.findMany({
      where: { isEnabled: true },
      distinct: ['projectId'],
      select: { projectId: true },
      orderBy: { projectId: 'asc' },
    });
    return rows.map((row) => row.projectId);
  }

  async updateRule(projectId: string, id: string, patch: Partial<RuleInput>): Promise<StoredRule | null> {
    const { count } = await this.prisma.alertRule.updateMany({ where: { projectId, id }, data: { ...patch, updatedAt: new Date() } });
    return count === 0 ? null : this.findRule(projectId, id);
  }

  async deleteRule(projectId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.alertRule.deleteMany({ where: { projectId, id } });
    return count > 0;
  }
}

/** Explicit fields: the row also holds projectId, which no answer repeats. */
function toRule(row: {
  id: string;
  name: string;
  kind: string;
  tools: string[];
  threshold: number | null;
  minCalls: number;
  windowHours: number;
  cooldownMinutes: number;
  isEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}): StoredRule {
  const { id, name, kind, tools, threshold, minCalls, windowHours, cooldownMinutes, isEnabled, createdAt, updatedAt } = row;
  return { id, name, kind: kind as RuleKind, tools, threshold, minCalls, windowHours, cooldownMinutes, isEnabled, createdAt, updatedAt };
}
