import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Category, Subtype } from '../diagnosis';
import { ApiError, notFound } from '../infra/http/api-error';
import { readInstantCursor } from '../infra/http/cursor';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator } from '../infra/http/query-validator';
import { isUuid } from '../infra/http/storable-values';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import {
  TEMPLATE_FIXTURE_LINE_RESPONSE,
  TEMPLATE_LABEL_SCHEMA,
  UNKNOWN_TEMPLATE_RESPONSE,
  UNKNOWN_TEMPLATES_QUERY_SCHEMA,
  UNKNOWN_TEMPLATES_RESPONSE,
} from './unknown-templates.schemas';
import { UnknownTemplatesService } from './unknown-templates.service';

const JSON_LINES = 'application/x-ndjson';
const validateQuery = compileQueryValidator<{ cursor?: string; limit: number }>(UNKNOWN_TEMPLATES_QUERY_SCHEMA);
const validateLabel = ajvFor('body').compile<{ category: Category; subtype?: Subtype | null }>(TEMPLATE_LABEL_SCHEMA);

@Controller('v1/unknown-templates')
@UseGuards(ApiKeyGuard)
export class UnknownTemplatesController {
  constructor(private readonly lane: UnknownTemplatesService) {}

  @Get()
  @ApiRoute({
    summary: "The unknown lane: templates of the project's failures left unknown, most recently seen first",
    query: UNKNOWN_TEMPLATES_QUERY_SCHEMA,
    response: UNKNOWN_TEMPLATES_RESPONSE,
  })
  list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateQuery(rawQuery);
    const cursor = query.cursor === undefined ? undefined : readInstantCursor(query.cursor, 'uuid');
    return this.lane.listTemplates(project.projectId, { after: cursor && { lastSeen: cursor.at, id: cursor.id }, limit: query.limit });
  }

  @Get('fixtures')
  @ApiRoute({
    summary: 'The labelled templates as categorizer fixtures, one JSON line each (test/fixtures/categorizer/parts)',
    response: TEMPLATE_FIXTURE_LINE_RESPONSE,
    linesContentType: JSON_LINES,
  })
  async fixtures(@CurrentProject() project: AuthenticatedProject, @Res() reply: FastifyReply) {
    const lines = await this.lane.fixtureLines(project.projectId);
    reply
      .status(200)
      .header('content-type', `${JSON_LINES}; charset=utf-8`)
      .header('content-disposition', 'attachment; filename="labelled-templates.jsonl"')
      .header('cache-control', 'private, no-store')
      .send(lines.join(''));
  }

  @Post(':id/label')
  @HttpCode(200)
  @ApiRoute({
    summary: "Label a template: its failures categorized from now on get the label's category, with evidence label",
    body: TEMPLATE_LABEL_SCHEMA,
    response: UNKNOWN_TEMPLATE_RESPONSE,
  })
  label(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string, @Body() body: unknown) {
    if (!validateLabel(body)) {
      throw new ApiError(400, 'invalid_label', 'Invalid label', { details: toFieldErrors(validateLabel.errors, '') });
    }
    if (!isUuid(id)) throw notFound('unknown template', id);
    return this.lane.labelTemplate(project.projectId, id.toLowerCase(), body);
  }
}
