import { Controller, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { ApiError } from '../infra/http/api-error';
import { decodeInstantCursor, encodeCursor } from '../infra/http/cursor';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator } from '../infra/http/query-validator';
import { EARLIEST_INSTANT } from '../infra/http/storable-values';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { AnalyticsRepository } from './analytics.repository';
import { JOB_RUN_RESPONSE, JOB_RUNS_RESPONSE } from './analytics.schemas';
import { formatDay, parseDay, previousDay } from './analytics-day';
import { NightlyAlreadyRunningError, NightlyService } from './nightly.service';

const RUN_QUERY_SCHEMA = {
  properties: { date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } },
};
const LIST_QUERY_SCHEMA = {
  properties: { cursor: { type: 'string', maxLength: 200 }, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
};
const validateRunQuery = compileQueryValidator<{ date?: string }>(RUN_QUERY_SCHEMA);
const validateListQuery = compileQueryValidator<{ cursor?: string; limit: number }>(LIST_QUERY_SCHEMA);

type JobRunRow = Awaited<ReturnType<AnalyticsRepository['listJobRuns']>>[number];

@Controller('v1/jobs')
@UseGuards(ApiKeyGuard)
export class JobsController {
  constructor(
    private readonly nightly: NightlyService,
    private readonly analytics: AnalyticsRepository,
  ) {}

  /** Runs the nightly job for one day of this project now (default: yesterday, UTC) and answers with the run. */
  @Post('nightly')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Run the nightly analytics of this project for one UTC day now (default: yesterday)',
    query: RUN_QUERY_SCHEMA,
    response: JOB_RUN_RESPONSE,
  })
  async runNightly(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateRunQuery(rawQuery);
    const day = query.date ? parseDay(query.date) : previousDay(new Date());
    if (!day) throw invalidDate('is not a calendar day (YYYY-MM-DD)');
    if (day.getTime() < EARLIEST_INSTANT.getTime()) throw invalidDate(`must be ${formatDay(EARLIEST_INSTANT)} or later`);
    if (day.getTime() > Date.now()) throw invalidDate('is in the future');
    try {
      return toRunView(await this.nightly.runForProject(project.projectId, day, 'api'));
    } catch (error) {
      if (error instanceof NightlyAlreadyRunningError) throw new ApiError(409, 'job_running', error.message);
      throw error;
    }
  }

  /** Every run of this project, newest first. */
  @Get()
  @ApiRoute({ summary: 'Every nightly run of this project, newest first', query: LIST_QUERY_SCHEMA, response: JOB_RUNS_RESPONSE })
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateListQuery(rawQuery);
    const before = query.cursor ? decodeRunCursor(query.cursor) : undefined;
    const rows = await this.analytics.listJobRuns(project.projectId, query.limit + 1, before);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toRunView),
      nextCursor: rows.length > query.limit && last ? encodeCursor([last.startedAt.toISOString(), last.id]) : null,
    };
  }
}

function toRunView(run: JobRunRow) {
  return {
    id: run.id,
    job: run.job,
    date: formatDay(run.day),
    trigger: run.trigger,
    status: run.status,
    counts: run.counts,
    error: run.error,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  };
}

function invalidDate(message: string) {
  return new ApiError(400, 'invalid_query', `Invalid query parameter date`, { details: [{ path: '/query/date', message }] });
}

function decodeRunCursor(cursor: string) {
  const decoded = decodeInstantCursor(cursor);
  if (decoded) return { startedAt: decoded.at, id: decoded.id };
  throw new ApiError(400, 'invalid_query', 'Invalid query parameter cursor', {
    details: [{ path: '/query/cursor', message: 'is not a cursor this API issued' }],
  });
}
