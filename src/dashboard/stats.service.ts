import { Injectable } from '@nestjs/common';
import { encodeCursor } from '../infra/http/cursor';
import { ErrorGroupQueries } from './error-group.queries';
import { toErrorGroupView } from './error-group-view';
import { previousRange, StatsRange } from './stats-range';
import { sortToolRows, sumUsage, sumUsageByTool, ToolSort, toSeries, trendOf } from './stats-series';
import { StatsQueries } from './stats.queries';

const TOP_COUNT = 5;

const rangeView = (range: StatsRange) => ({ from: range.from.toISOString(), to: range.to.toISOString(), bucket: range.bucket });

/** Dashboard figures summed from rollups: per project, per tool, per tool over time. */
@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsQueries,
    private readonly errorGroups: ErrorGroupQueries,
  ) {}

  async overview(projectId: string, range: StatsRange) {
    const previous = previousRange(range);
    const [rows, previousRows, groups] = await Promise.all([
      this.stats.findUsage(projectId, range),
      this.stats.findUsage(projectId, previous),
      this.errorGroups.findTopErrorGroups(projectId, range.from, range.to, TOP_COUNT),
    ]);
    const totals = sumUsage(rows);
    const previousTotals = sumUsage(previousRows);
    const failing = sumUsageByTool(rows).filter((tool) => tool.errors > 0);
    return {
      ...rangeView(range),
      totals,
      previous: { ...rangeView(previous), ...previousTotals },
      trend: trendOf(totals, previousTotals),
      topFailingTools: sortToolRows(failing, 'errors').slice(0, TOP_COUNT),
      topErrorGroups: groups.map(toErrorGroupView),
      series: toSeries(rows, range),
    };
  }

  /** Every tool with calls in the range, sorted, one page at a time (the list is tools-long, computed whole). */
  async tools(projectId: string, query: { range: StatsRange; sort: ToolSort; offset: number; limit: number }) {
    const rows = sortToolRows(sumUsageByTool(await this.stats.findUsage(projectId, query.range)), query.sort);
    const end = query.offset + query.limit;
    return {
      ...rangeView(query.range),
      sort: query.sort,
      items: rows.slice(query.offset, end),
      nextCursor: rows.length > end ? encodeCursor([query.sort, end]) : null,
    };
  }

  async toolStats(projectId: string, tool: string, range: StatsRange) {
    const rows = await this.stats.findUsage(projectId, range, tool);
    return { tool, ...rangeView(range), totals: sumUsage(rows), series: toSeries(rows, range) };
  }
}
