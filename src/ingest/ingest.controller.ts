import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { BodyJudgedPerItem } from '../infra/http/json-body-parser';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../tenancy/project.repository';
import { ACCEPTED_RESPONSE, EVENTS_BODY_SCHEMA } from './ingest.schemas';
import { IngestResult, IngestService } from './ingest.service';

@Controller('v1/events')
@UseGuards(ApiKeyGuard)
export class IngestController {
  constructor(private readonly ingest: IngestService) {}

  /** 202: every accepted event is durably queued; rejected ones are listed with the field at fault. */
  @Post()
  @HttpCode(202)
  @ApiRoute({
    summary: 'Report tool calls: one event or {events: [...]}; 202 once every accepted event is queued',
    body: EVENTS_BODY_SCHEMA,
    response: ACCEPTED_RESPONSE,
    status: 202,
  })
  @BodyJudgedPerItem()
  postEvents(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown): Promise<IngestResult> {
    return this.ingest.ingest(project.projectId, body);
  }
}
