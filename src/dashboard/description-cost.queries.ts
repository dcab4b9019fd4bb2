import { Injectable } from '@nestjs/common';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';

export interface ToolCostRow {
  tool: string;
  version: number;
  descriptionTokens: number | null;
  warningTokens: number | null;
  warnings: number;
}

export interface ProjectCost {
  tools: number;
  descriptionTokens: number;
  warningTokens: number;
  /** Active tools whose current version was made before tokens were counted: not in the sums. */
  uncountedTools: number;
}

/**
 * What each active tool's current description version costs in tokens (tool_versions), and the project's sums, on the
 * read replica when there is one (docs/description-cost.md).
 */
@Injectable()
export class DescriptionCostQueries {
  constructor(private readonly db: ReadPrismaService) {}

  /** Active tools by name after `afterTool`, at most `limit`. */
  listToolCosts(projectId: string, afterTool: string | undefined, limit: number): Promise<ToolCostRow[]> {
    return this.db.read(
      (prisma) =>
        prisma.$queryRaw<ToolCostRow[]>`
        SELECT t.name AS tool, t.version, v.description_tokens AS "descriptionTokens", v.warning_tokens AS "warningTokens",
          coalesce(cardinality(v.warning_ids), 0)::int AS warnings
        FROM tools t
        LEFT JOIN tool_versions v ON v.project_id = t.project_id AND v.tool_id = t.id AND v.version = t.version
        WHERE t.project_id = ${projectId}::uuid AND t.archived_at IS NULL AND (${afterTool ?? null}::text IS NULL OR t.name > ${afterTool ?? null}::text)
        ORDER BY t.name
        LIMIT ${limit}`,
    );
  }

  /** One aggregate over the project's active tools (bounded by the project's tool limit). */
  async sumProjectCost(projectId: string): Promise<ProjectCost> {
    const [row] = await this.db.read(
      (prisma) =>
        prisma.$queryRaw<ProjectCost[]>`
        SELECT count(*)::int AS tools, coalesce(sum(v.description_tokens), 0)::int AS "descriptionTokens",
          coalesce(sum(v.warning_tokens), 0)::int AS "warningTokens",
          (count(*) FILTER (WHERE v.description_tokens IS NULL))::int AS "uncountedTools"
        FROM tools t
        LEFT JOIN tool_versions v ON v.project_id = t.project_id AND v.tool_id = t.id AND v.version = t.version
        WHERE t.project_id = ${projectId}::uuid AND t.archived_at IS NULL`,
    );
    return row;
  }
}
