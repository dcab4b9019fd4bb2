import { Prisma } from '../generated/prisma/client';

/** A confused pair summed over days and versions, as confusedPairsQuery answers it. */
export interface ConfusedPairRow {
  tool: string;
  confused_with: string;
  confusions: number;
  confused_sessions: number;
  sessions: number;
  first_day: Date;
  last_day: Date;
  example_session_ids: string[] | null;
}

/**
 * The pairs confused in [from, until) (daily_tool_confusions), summed over days and versions, most confused sessions
 * first, at most `limit`; with `tool`, only the pairs it is on either side of. One query for the nightly's proposals and
 * the dashboard's list, so both count a pair alike.
 */
export function confusedPairsQuery(projectId: string, from: Date, until: Date, limit: number, tool?: string): Prisma.Sql {
  const ofTool = tool === undefined ? Prisma.empty : Prisma.sql`AND (tool = ${tool} OR confused_with = ${tool})`;
  return Prisma.sql`
    SELECT tool, confused_with, sum(confusions)::int AS confusions, sum(confused_sessions)::int AS confused_sessions,
      sum(sessions)::int AS sessions,
      (min(day) FILTER (WHERE confusions > 0))::timestamptz AS first_day,
      (max(day) FILTER (WHERE confusions > 0))::timestamptz AS last_day,
      -- the latest day's examples (jsonb: array_agg of arrays would make one two-dimensional array)
      (jsonb_agg(to_jsonb(example_session_ids) ORDER BY day DESC, description_version) FILTER (WHERE confusions > 0))->0 AS example_session_ids
    FROM daily_tool_confusions
    WHERE project_id = ${projectId}::uuid AND day >= ${from}::date AND day < ${until}::date ${ofTool}
    GROUP BY tool, confused_with
    HAVING sum(confusions) > 0
    ORDER BY sum(confused_sessions) DESC, tool, confused_with
    LIMIT ${limit}`;
}
