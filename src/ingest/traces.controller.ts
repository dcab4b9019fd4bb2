import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { BodyJudgedPerItem } from '../infra/http/json-body-parser';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../tenancy/project.repository';
import { TRACES_BODY_SCHEMA, TRACES_RESPONSE } from './ingest.schemas';
import { ExportTraceResult, TracesService } from './traces.service';

/** OTLP/HTTP with JSON bodies, so an OpenTelemetry exporter can point at us directly. */
@Controller('v1/traces')
@UseGuards(ApiKeyGuard)
export class TracesController {
  constructor(private readonly traces: TracesService) {}

  /** 200 as OTLP wants; tool spans are queued, other spans are ignored and counted in a response header. */
  @Post()
  @HttpCode(200)
  @ApiRoute({
    summary: 'OTLP/HTTP JSON traces: tool spans become events, other spans are counted and ignored',
    body: TRACES_BODY_SCHEMA,
    response: TRACES_RESPONSE,
  })
  @BodyJudgedPerItem()
  async postTraces(
    @CurrentProject() project: AuthenticatedProject,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExportTraceResult> {
    const outcome = await this.traces.ingestTraces(project.projectId, body);
    reply.header('toolcoach-tool-spans', String(outcome.toolSpans)).header('toolcoach-ignored-spans', String(outcome.ignoredSpans));
    return outcome.response;
  }
}
