import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { PROTOBUF_CONTENT_TYPE } from '../infra/http/protobuf-body-parser';
import { WithRouteFlags } from '../infra/http/route-flags';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../tenancy/project.repository';
import { TRACES_BODY_SCHEMA, TRACES_RESPONSE } from './ingest.schemas';
import { OtlpProtobufCodec } from './otlp-protobuf-codec';
import { ExportTraceResult } from './otlp-spans';
import { TracesService } from './traces.service';

/** OTLP/HTTP with JSON or binary protobuf bodies, gzip or not, so an OpenTelemetry exporter can point at us directly. */
@Controller('v1/traces')
@UseGuards(ApiKeyGuard)
export class TracesController {
  constructor(
    private readonly traces: TracesService,
    private readonly protobuf: OtlpProtobufCodec,
  ) {}

  /**
   * 200 as OTLP wants, in the encoding of the request; tool spans are queued, other spans are ignored and counted in a
   * response header. Errors keep our JSON error body in both encodings (see docs/integrations/opentelemetry.md).
   */
  @Post()
  @HttpCode(200)
  @ApiRoute({
    summary: 'OTLP/HTTP traces (JSON or protobuf, gzip or not): tool spans become events, other spans are counted and ignored',
    body: TRACES_BODY_SCHEMA,
    response: TRACES_RESPONSE,
    binaryContentType: PROTOBUF_CONTENT_TYPE,
  })
  @WithRouteFlags({ judgesItemsItself: true, takesProtobuf: true, logsRefusals: true })
  async postTraces(
    @CurrentProject() project: AuthenticatedProject,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ExportTraceResult | Buffer> {
    const outcome = await this.traces.ingestTraces(project.projectId, body);
    reply.header('toolcoach-tool-spans', String(outcome.toolSpans)).header('toolcoach-ignored-spans', String(outcome.ignoredSpans));
    if (!Buffer.isBuffer(body)) return outcome.response;
    reply.type(PROTOBUF_CONTENT_TYPE);
    return this.protobuf.encodeResponse(outcome.response);
  }
}
