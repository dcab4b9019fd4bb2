import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { ApiKeyGuard } from '../../../tenancy/api-key.guard';
import { CurrentProject } from '../../../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../../../tenancy/project.repository';
import { ApiError, notFound } from '../../http/api-error';
import { encodeCursor, readCursor } from '../../http/cursor';
import { ApiRoute } from '../../http/openapi/api-route.decorator';
import { compileQueryValidator } from '../../http/query-validator';
import { DEAD_LETTERS_RESPONSE, REPLAY_RESPONSE } from './dead-letter-responses.schemas';
import { DeadLettersUnavailableError, DeadLetterService } from './dead-letter.service';

const LIST_QUERY_SCHEMA = {
  properties: { cursor: { type: 'string', maxLength: 200 }, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
};
const validateListQuery = compileQueryValidator<{ cursor?: string; limit: number }>(LIST_QUERY_SCHEMA);

// ids the store hands out: job ids (UUIDs, `replay-...`, BullMQ's numbers) and suffixes of ours
const DEAD_LETTER_ID = /^[A-Za-z0-9._:-]{1,200}$/;
const RETRY_AFTER_SECONDS = '5';

@Controller('v1/admin/dead-letters')
@UseGuards(ApiKeyGuard)
export class DeadLetterController {
  constructor(
    private readonly deadLetters: DeadLetterService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** This project's dead letters, newest first, with how many the caps dropped and retention removed. */
  @Get()
  @ApiRoute({ summary: "This project's dead letters, newest first", query: LIST_QUERY_SCHEMA, response: DEAD_LETTERS_RESPONSE })
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateListQuery(rawQuery);
    const before = query.cursor === undefined ? null : readCursor(query.cursor, beforeOf);
    const page = await answerUnavailable(() => this.deadLetters.list(project.projectId, query.limit, before));
    return {
      items: page.items,
      nextCursor: page.nextBefore === null ? null : encodeCursor(page.nextBefore),
      total: page.total,
      dropped: page.dropped,
      expired: page.expired,
      limits: {
        maxEntries: this.config.deadLetterMaxPerProject,
        maxBytes: this.config.deadLetterMaxBytesPerProject,
        retentionDays: this.config.deadLetterRetentionDays,
      },
    };
  }

  @Post(':id/replay')
  @HttpCode(202)
  @ApiRoute({
    summary: 'Put a dead letter back on the events queue (409 when it is or was already replayed)',
    status: 202,
    response: REPLAY_RESPONSE,
  })
  async replay(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    if (!DEAD_LETTER_ID.test(id)) throw notFound('dead letter', id);
    const result = await answerUnavailable(() => this.deadLetters.replay(project.projectId, id));
    if (result.outcome === 'replayed') return { replayedAs: result.replayedAs };
    if (result.outcome === 'missing') throw notFound('dead letter', id);
    if (result.outcome === 'in-progress')
      throw new ApiError(409, 'replay_in_progress', `Dead letter ${id} is being replayed by another request`);
    throw new ApiError(409, 'already_replayed', `Dead letter ${id} was already replayed as ${result.replayedAs}`, {
      body: { replayedAs: result.replayedAs },
    });
  }
}

/** The store's position to continue before: a decimal score, as the list handed it out. */
function beforeOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^[0-9]{1,20}$/.test(value) ? value : undefined;
}

async function answerUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof DeadLettersUnavailableError)) throw error;
    throw new ApiError(503, 'dead_letters_unavailable', 'The dead-letter store did not answer; retry later', {
      headers: { 'retry-after': RETRY_AFTER_SECONDS },
    });
  }
}
