import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { notFound } from '../infra/http/api-error';
import { BodyKeysAreData } from '../infra/http/json-body-parser';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { stickyIdOf } from './serving/canary-assignment';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../tenancy/project.repository';
import { DescriptionService } from './serving/description.service';
import { matchesIfNoneMatch } from './serving/etag';
import {
  BULK_REGISTRATION_RESPONSE,
  DESCRIPTION_RESPONSE,
  REGISTRATION_RESPONSE,
  TOOL_LIST_RESPONSE,
  VALIDATION_RESPONSE,
} from './registry-responses.schemas';
import {
  BULK_BODY_SCHEMA,
  DESCRIPTION_QUERY_SCHEMA,
  LIST_QUERY_SCHEMA,
  readBulkBody,
  readDescriptionQuery,
  readListQuery,
  readToolBody,
  readValidateBody,
  readValidateQuery,
  requireToolName,
  StickyIdQuery,
  TOOL_BODY_SCHEMA,
  VALIDATE_BODY_SCHEMA,
  VALIDATE_QUERY_SCHEMA,
} from './registry.schemas';
import { CachedResponse } from './serving/served-response.cache';
import { SchemaAdmissionService } from './tools/schema-admission.service';
import { RegistrationResult, ToolChangesService } from './tools/tool-changes.service';
import { ToolValidationService } from './validate/tool-validation.service';

// Clients may reuse an answer for a minute and keep serving it while they revalidate in the background (ETag); it is
// the project's own, so no shared cache may keep it.
const CACHE_CONTROL = 'private, max-age=60, stale-while-revalidate=300';
/** While a tool has a canary, the answer depends on these (docs/rollout.md); a shared cache must key on them. */
const VARY = 'X-Toolcoach-Session, X-Toolcoach-Agent';

interface StickyHeaders {
  'x-toolcoach-session'?: string | string[];
  'x-toolcoach-agent'?: string | string[];
}

@Controller('v1')
@UseGuards(ApiKeyGuard)
export class ToolsController {
  constructor(
    private readonly toolChanges: ToolChangesService,
    private readonly descriptions: DescriptionService,
    private readonly validation: ToolValidationService,
    private readonly admission: SchemaAdmissionService,
  ) {}

  @Put('tools/:name')
  @ApiRoute({
    summary: 'Register or update a tool (201 when created)',
    body: TOOL_BODY_SCHEMA,
    response: REGISTRATION_RESPONSE,
    status: [201, 200],
  })
  async register(
    @CurrentProject() project: AuthenticatedProject,
    @Param('name') name: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationResult> {
    const candidate = readToolBody(name, body);
    await this.admission.admit(project.projectId, [candidate]);
    const result = await this.toolChanges.registerTool(project.projectId, candidate.definition);
    reply.status(result.status === 'created' ? 201 : 200);
    return result;
  }

  // `::` is Fastify's escape for a literal colon: the route is POST /v1/tools:bulk.
  @Post('tools::bulk')
  @HttpCode(200)
  @ApiRoute({ summary: 'Register many tools, all or nothing', body: BULK_BODY_SCHEMA, response: BULK_REGISTRATION_RESPONSE })
  async registerMany(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    const candidates = readBulkBody(body);
    await this.admission.admit(project.projectId, candidates);
    return {
      tools: await this.toolChanges.registerTools(
        project.projectId,
        candidates.map(({ definition }) => definition),
      ),
    };
  }

  @Get('tools')
  @ApiRoute({
    summary:
      "The active tools with their augmented descriptions, in a framework's shape, by name in pages of at most `limit` tools and 1 MB " +
      '(follow nextCursor); every page has the ETag of the whole list (304 on If-None-Match)',
    query: LIST_QUERY_SCHEMA,
    response: TOOL_LIST_RESPONSE,
  })
  async list(
    @CurrentProject() project: AuthenticatedProject,
    @Query() query: unknown,
    @Headers() headers: StickyHeaders,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const listQuery = readListQuery(query);
    const stickyId = readStickyId(headers, listQuery);
    sendCacheable(reply, await this.descriptions.listTools(project.projectId, listQuery.format, stickyId, listQuery.page), ifNoneMatch);
  }

  @Get('tools/:name/description')
  @ApiRoute({
    summary: 'The live description with its warnings, or a pinned version (ETag; 304 on If-None-Match)',
    query: DESCRIPTION_QUERY_SCHEMA,
    response: DESCRIPTION_RESPONSE,
  })
  async description(
    @CurrentProject() project: AuthenticatedProject,
    @Param('name') name: string,
    @Query() query: unknown,
    @Headers() headers: StickyHeaders,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    requireToolName(name);
    const descriptionQuery = readDescriptionQuery(query);
    const stickyId = readStickyId(headers, descriptionQuery);
    sendCacheable(
      reply,
      await this.descriptions.getDescription(project.projectId, name, descriptionQuery.version ?? null, stickyId),
      ifNoneMatch,
    );
  }

  @Delete('tools/:name')
  @HttpCode(204)
  @ApiRoute({
    summary: 'Archive a tool: no longer served or validated; its events, versions and warnings stay',
    response: null,
    status: 204,
  })
  async archive(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string): Promise<void> {
    requireToolName(name);
    if (!(await this.toolChanges.archiveTool(project.projectId, name))) throw notFound('tool', name);
  }

  @Post('tools/:name/validate')
  @HttpCode(200)
  // an argument named __proto__ is a name a model produced: checked like any other, never a 400 that lets it through
  @BodyKeysAreData()
  @ApiRoute({
    summary: 'Check arguments against the tool schema and its learned limits before calling it; a safe correction when there is one',
    query: VALIDATE_QUERY_SCHEMA,
    body: VALIDATE_BODY_SCHEMA,
    response: VALIDATION_RESPONSE,
  })
  async validate(
    @CurrentProject() project: AuthenticatedProject,
    @Param('name') name: string,
    @Query() query: unknown,
    @Body() body: unknown,
  ) {
    requireToolName(name);
    const { checks } = readValidateQuery(query);
    return this.validation.validate(project.projectId, name, readValidateBody(body).arguments, checks);
  }
}

/** The id a canary assignment sticks to: the session, else the agent; the header wins over the query parameter. */
function readStickyId(headers: StickyHeaders, query: StickyIdQuery): string | null {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  return stickyIdOf({
    session: first(headers['x-toolcoach-session']) ?? query.session,
    agent: first(headers['x-toolcoach-agent']) ?? query.agent,
  });
}

function sendCacheable(reply: FastifyReply, response: CachedResponse, ifNoneMatch: string | undefined): void {
  reply.header('etag', response.etag).header('cache-control', CACHE_CONTROL).header('vary', VARY);
  if (matchesIfNoneMatch(ifNoneMatch, response.etag)) {
    reply.status(304).send();
    return;
  }
  reply.status(200).header('content-type', 'application/json; charset=utf-8').send(response.body);
}
