import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';

export interface LearnedRename {
  wrongArgument: string;
  intendedArgument: string;
  count: number;
}

/** Which wrong argument names this project's agents used for which intended ones, per tool (read from events). */
@Injectable()
export class LearnedRenameRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Uses the (project_id, tool, occurred_at) index; the window keeps the scan bounded on busy tools.
  async findLearnedRenames(projectId: string, tool: string, since: Date): Promise<LearnedRename[]> {
    const rows = await this.prisma.$queryRaw<{ wrong_argument: string; intended_argument: string; count: number }[]>`
      SELECT wrong_argument, intended_argument, count(*)::int AS count
      FROM events
      WHERE project_id = ${projectId}::uuid AND tool = ${tool} AND occurred_at >= ${since}
        AND wrong_argument IS NOT NULL AND intended_argument IS NOT NULL
      GROUP BY wrong_argument, intended_argument
      ORDER BY count DESC
      LIMIT 500`;
    return rows.map((row) => ({ wrongArgument: row.wrong_argument, intendedArgument: row.intended_argument, count: row.count }));
  }
}
