import { Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiError, notFound } from '../infra/http/api-error';
import { encodeCursor, readInstantCursor } from '../infra/http/cursor';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator, invalidQuery } from '../infra/http/query-validator';
import { EARLIEST_INSTANT, isUuid } from '../infra/http/storable-values';
import { queueUnavailableResponse, QueueUnavailableError } from '../infra/queue/queue.producer';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { JOB_RUN_RESPONSE, JOB_RUNS_RESPONSE } from './analytics.schemas';
import { formatDay, parseDay, previousDay } from './analytics-day';
import { JobRun } from './job-run.repository';
import { NightlyRunsService } from './nightly-runs.service';
import { NightlyAlreadyRunningError } from './nightly.service';
import { boundedPage } from '../infra/http/page-bytes';

const RUN_QUERY_SCHEMA = {
  properties: { date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } },
};
const LIST_QUERY_SCHEMA = {
  properties: { cursor: { type: 'string', maxLength: 200 }, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
};
const validateRunQuery = compileQueryValidator<{ date?: string }>(RUN_QUERY_SCHEMA);
const validateListQuery = compileQueryValidator<{ cursor?: string; limit: number }>(LIST_QUERY_SCHEMA);

@Controller('v1/jobs')
@UseGuards(ApiKeyGuard)
export class JobsController {
  constructor(private readonly runs: NightlyRunsService) {}

  /**
   * Queues the nightly job for one day of this project (default: yesterday, UTC) and answers the queued run at once;
   * GET /v1/jobs/{id} (the Location) follows it to its outcome.
   */
  @Post('nightly')
  @HttpCode(202)
  @ApiRoute({
    summary:
      'Queue the nightly analytics of this project for one UTC day (default: yesterday); answers the queued run, to poll at its Location',
    query: RUN_QUERY_SCHEMA,
    response: JOB_RUN_RESPONSE,
    status: 202,
  })
  async runNightly(
    @CurrentProject() project: AuthenticatedProject,
    @Query() rawQuery: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const query = validateRunQuery(rawQuery);
    const day = query.date ? parseDay(query.date) : previousDay(new Date());
    if (!day) throw invalidDate('is not a calendar day (YYYY-MM-DD)');
    if (day.getTime() < EARLIEST_INSTANT.getTime()) throw invalidDate(`must be ${formatDay(EARLIEST_INSTANT)} or later`);
    if (day.getTime() > Date.now()) throw invalidDate('is in the future');
    try {
      const run = await this.runs.requestRun(project.projectId, day);
      reply.header('location', `/v1/jobs/${run.id}`);
      return toRunView(run);
    } catch (error) {
      throw toApiError(error);
    }
  }

  /** Every run of this project, newest first. */
  @Get()
  @ApiRoute({ summary: 'Every nightly run of this project, newest first', query: LIST_QUERY_SCHEMA, response: JOB_RUNS_RESPONSE })
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateListQuery(rawQuery);
    const cursor = query.cursor ? readInstantCursor(query.cursor, 'uuid') : undefined;
    const before = cursor && { startedAt: cursor.at, id: cursor.id };
    const rows = await this.runs.listRuns(project.projectId, query.limit + 1, before);
    return boundedPage(rows, query.limit, toRunView, (last) => encodeCursor([last.startedAt.toISOString(), last.id]));
  }

  @Get(':id')
  @ApiRoute({ summary: 'One run of this project: queued, running, or its outcome', response: JOB_RUN_RESPONSE })
  async get(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    const run = isUuid(id) ? await this.runs.findRun(project.projectId, id) : null;
    if (!run) throw notFound('job run', id);
    return toRunView(run);
  }
}

function toApiError(error: unknown): unknown {
  if (error instanceof NightlyAlreadyRunningError) return new ApiError(409, 'job_running', error.message);
  if (!(error instanceof QueueUnavailableError)) return error;
  // unconfirmed: the run stays queued and asking again adds its job once
  return queueUnavailableResponse(error, {
    unavailable: 'The job queue is unavailable; no run was queued. Retry later.',
    unconfirmed: 'The job queue did not confirm in time; asking again is safe (it queues the same run).',
  });
}

function toRunView(run: JobRun) {
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
  return invalidQuery([{ path: '/query/date', message }]);
}
