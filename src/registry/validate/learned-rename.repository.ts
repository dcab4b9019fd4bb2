import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../infra/prisma/prisma.service';

export interface LearnedRename {
  wrongArgument: string;
  intendedArgument: string;
  count: number;
}

export interface ToolLearnedRename extends LearnedRename {
  tool: string;
}

/**
 * Which wrong argument names this project's agents used for which intended ones, per tool. Read from the error groups
 * the worker keeps (one row per mistake and message wording), never by scanning events.
 */
@Injectable()
export class LearnedRenameRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Uses the (project_id, tool) index of error_groups; a top-level argument's path is "/<name>".
  async findLearnedRenames(projectId: string, tool: string, since: Date): Promise<LearnedRename[]> {
    const rows = await this.prisma.$queryRaw<{ wrong_argument: string; intended_argument: string; count: number }[]>`
      SELECT substr(argument_path, 2) AS wrong_argument, intended_argument, sum(count)::int AS count
      FROM error_groups
      WHERE project_id = ${projectId}::uuid AND tool = ${tool} AND last_seen >= ${since}
        AND subtype = 'unknown_argument' AND intended_argument IS NOT NULL
        AND argument_path LIKE '/%' AND position('/' IN substr(argument_path, 2)) = 0
      GROUP BY 1, 2
      ORDER BY count DESC
      LIMIT 500`;
    return rows.map((row) => ({ wrongArgument: row.wrong_argument, intendedArgument: row.intended_argument, count: row.count }));
  }

  /** Every tool's renames at once, at most `perTool` each, most frequent first: one query for a whole tool list. */
  async findProjectLearnedRenames(projectId: string, since: Date, perTool: number): Promise<ToolLearnedRename[]> {
    const rows = await this.prisma.$queryRaw<{ tool: string; wrong_argument: string; intended_argument: string; count: number }[]>`
      SELECT tool, wrong_argument, intended_argument, count FROM (
        SELECT tool, substr(argument_path, 2) AS wrong_argument, intended_argument, sum(count)::int AS count,
          row_number() OVER (PARTITION BY tool ORDER BY sum(count) DESC, substr(argument_path, 2)) AS rank
        FROM error_groups
        WHERE project_id = ${projectId}::uuid AND last_seen >= ${since}
          AND subtype = 'unknown_argument' AND intended_argument IS NOT NULL
          AND argument_path LIKE '/%' AND position('/' IN substr(argument_path, 2)) = 0
        GROUP BY 1, 2, 3
      ) ranked
      WHERE rank <= ${perTool}
      ORDER BY tool, count DESC, wrong_argument`;
    return rows.map((row) => ({
      tool: row.tool,
      wrongArgument: row.wrong_argument,
      intendedArgument: row.intended_argument,
      count: row.count,
    }));
  }
}
