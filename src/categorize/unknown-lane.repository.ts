import { Injectable } from '@nestjs/common';
import { Category, Subtype } from '../diagnosis';
import { PrismaService } from '../infra/prisma/prisma.service';
import { TemplateLabel } from './template-labels';

/** A template of a project's unknown lane as stored, with its label if a person gave one. */
export interface UnknownTemplateRow {
  id: string;
  template: string;
  count: bigint;
  firstSeen: Date;
  lastSeen: Date;
  sampleEventIds: string[];
  exampleTool: string;
  exampleErrorType: string | null;
  exampleMessage: string;
  label: (TemplateLabel & { labelledAt: Date }) | null;
}

const TEMPLATE_FIELDS = {
  id: true,
  template: true,
  count: true,
  firstSeen: true,
  lastSeen: true,
  sampleEventIds: true,
  exampleTool: true,
  exampleErrorType: true,
  exampleMessage: true,
} as const;

/**
 * unknown_templates (the worker folds `unknown` failures into them, in CategorizeRepository's transaction) and
 * template_labels (written here, for a person's label). Every read and write is scoped by the project.
 */
@Injectable()
export class UnknownLaneRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The labels of these (project, template) pairs that have one, in one query for a group of batches; keyed `project\0template`. */
  async findLabels(keys: ReadonlyArray<{ projectId: string; templateId: string }>): Promise<Map<string, TemplateLabel>> {
    if (keys.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<Array<{ project_id: string; template_id: string; category: string; subtype: string | null }>>`
      SELECT l.project_id::text, l.template_id::text, l.category, l.subtype
      FROM template_labels l
      JOIN unnest(${keys.map((key) => key.projectId)}::uuid[], ${keys.map((key) => key.templateId)}::uuid[]) AS k(project_id, template_id)
        ON l.project_id = k.project_id AND l.template_id = k.template_id`;
    return new Map(
      rows.map((row) => [
        `${row.project_id}\u0000${row.template_id}`,
        { category: row.category as Category, subtype: row.subtype as Subtype | null },
      ]),
    );
  }

  /** A page of the project's templates, most recently seen first, after the keyset `after`. */
  async listTemplates(projectId: string, page: { after?: { lastSeen: Date; id: string }; limit: number }): Promise<UnknownTemplateRow[]> {
    const { after } = page;
    const rows = await this.prisma.unknownTemplate.findMany({
      where: {
        projectId,
        ...(after && { OR: [{ lastSeen: { lt: after.lastSeen } }, { lastSeen: after.lastSeen, id: { lt: after.id } }] }),
      },
      orderBy: [{ lastSeen: 'desc' }, { id: 'desc' }],
      take: page.limit,
      select: TEMPLATE_FIELDS,
    });
    return this.withLabels(projectId, rows);
  }

  async findTemplate(projectId: string, id: string): Promise<UnknownTemplateRow | null> {
    const row = await this.prisma.unknownTemplate.findUnique({ where: { projectId_id: { projectId, id } }, select: TEMPLATE_FIELDS });
    return row && (await this.withLabels(projectId, [row]))[0];
  }

  /** The project's labelled templates, oldest label first, at most `limit` of them. */
  async listLabelledTemplates(projectId: string, limit: number): Promise<UnknownTemplateRow[]> {
    const labels = await this.prisma.templateLabel.findMany({
      where: { projectId },
      orderBy: [{ labelledAt: 'asc' }, { templateId: 'asc' }],
      take: limit,
      select: { templateId: true },
    });
    const rows = await this.prisma.unknownTemplate.findMany({
      where: { projectId, id: { in: labels.map((label) => label.templateId) } },
      select: TEMPLATE_FIELDS,
    });
    const order = new Map(labels.map((label, index) => [label.templateId, index]));
    return (await this.withLabels(projectId, rows)).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }

  countLabels(projectId: string): Promise<number> {
    return this.prisma.templateLabel.count({ where: { projectId } });
  }

  /** Sets the template's label, replacing one it had. */
  async upsertLabel(projectId: string, templateId: string, label: TemplateLabel): Promise<void> {
    await this.prisma.templateLabel.upsert({
      where: { projectId_templateId: { projectId, templateId } },
      create: { projectId, templateId, category: label.category, subtype: label.subtype },
      update: { category: label.category, subtype: label.subtype, labelledAt: new Date() },
    });
  }

  private async withLabels(projectId: string, rows: Array<Omit<UnknownTemplateRow, 'label'>>): Promise<UnknownTemplateRow[]> {
    if (rows.length === 0) return [];
    const labels = await this.prisma.templateLabel.findMany({
      where: { projectId, templateId: { in: rows.map((row) => row.id) } },
      select: { templateId: true, category: true, subtype: true, labelledAt: true },
    });
    const byId = new Map(labels.map((label) => [label.templateId, label]));
    return rows.map((row) => {
      const label = byId.get(row.id);
      return {
        ...row,
        sampleEventIds: row.sampleEventIds ?? [],
        label: label
          ? { category: label.category as Category, subtype: label.subtype as Subtype | null, labelledAt: label.labelledAt }
          : null,
      };
    });
  }
}
