import { Injectable } from '@nestjs/common';
import { encodeCursor } from '../infra/http/cursor';
import { ErrorGroupQueries } from './error-group.queries';
import { toErrorGroupView } from './error-group-view';
import { previousRange, StatsRange } from './stats-range';
import { FilteredRange } from './dashboard.schemas';
import { sortToolRows, successRateOf, sumUsage, sumUsageByTool, ToolSort, toSeries, trendOf } from './stats-series';
import { Dimension, DimensionUsageRow, StatsQueries } from './stats.queries';

const TOP_COUNT = 5;

const rangeView = (range: StatsRange) => ({ from: range.from.toISOString(), to: range.to.toISOString(), bucket: range.bucket });

/** Dashboard figures summed from rollups: per project, per tool, per tool over time. */
@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsQueries,
    private readonly errorGroups: ErrorGroupQueries,
  ) {}

  /** With an agent or model filter, the calls' figures are theirs; error groups are per tool, not per agent or model. */
  async overview(projectId: string, { range, only }: FilteredRange) {
    const previous = previousRange(range);
    const [rows, previousRows, groups] = await Promise.all([
      this.stats.findUsage(projectId, range, undefined, only),
      this.stats.findUsage(projectId, previous, undefined, only),
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
  async tools(projectId: string, query: FilteredRange & { sort: ToolSort; offset: number; limit: number }) {
    const rows = sortToolRows(sumUsageByTool(await this.stats.findUsage(projectId, query.range, undefined, query.only)), query.sort);
    const end = query.offset + query.limit;
    return {
      ...rangeView(query.range),
      sort: query.sort,
      items: rows.slice(query.offset, end),
      nextCursor: rows.length > end ? encodeCursor([query.sort, end]) : null,
    };
  }

  async toolStats(projectId: string, tool: string, { range, only }: FilteredRange) {
    const rows = await this.stats.findUsage(projectId, range, tool, only);
    return { tool, ...rangeView(range), totals: sumUsage(rows), series: toSeries(rows, range) };
  }

  /** Success rate and error mix per agent (or model), most calls first, one page at a time (computed whole, like tools). */
  async byDimension(projectId: string, dimension: Dimension, query: { range: StatsRange; tool?: string; offset: number; limit: number }) {
    const rows = sortByCalls(await this.stats.findDimensionBreakdown(projectId, dimension, query.range, query.tool));
    const end = query.offset + query.limit;
    return {
      from: query.range.from.toISOString(),
      to: query.range.to.toISOString(),
      tool: query.tool ?? null,
      items: rows.slice(query.offset, end).map((row) => ({ ...row, successRate: successRateOf(row.calls, row.errors) })),
      nextCursor: rows.length > end ? encodeCursor(['calls', end]) : null,
    };
  }
}

/** Most calls first; ties by name, calls that named none last, so the order is total and offset cursors are stable. */
function sortByCalls(rows: DimensionUsageRow[]): DimensionUsageRow[] {
  return [...rows].sort((a, b) => {
    if (a.calls !== b.calls) return b.calls - a.calls;
    if (a.name === null || b.name === null) return a.name === null ? (b.name === null ? 0 : 1) : -1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}
