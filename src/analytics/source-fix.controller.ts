import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator } from '../infra/http/query-validator';
import { requireToolName } from '../registry/registry.schemas';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { SOURCE_FIX_QUERY_SCHEMA, SOURCE_FIX_RESPONSE } from './source-fix.schemas';
import { SourceFixService } from './source-fix.service';
import type { SnippetFormat } from './tool-snippet';

const validateQuery = compileQueryValidator<{ format: SnippetFormat }>(SOURCE_FIX_QUERY_SCHEMA);

/** Fixes in the tool's own source: what to change in its definition so it no longer needs the warnings. */
@Controller('v1')
@UseGuards(ApiKeyGuard)
export class SourceFixController {
  constructor(private readonly sourceFixes: SourceFixService) {}

  @Get('recommendations/:id/source-fix')
  @ApiRoute({
    summary: "One recommendation as a change to the tool's own definition: description, JSON Patch of the schema, snippet",
    query: SOURCE_FIX_QUERY_SCHEMA,
    response: SOURCE_FIX_RESPONSE,
  })
  exportRecommendation(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string, @Query() query: unknown) {
    return this.sourceFixes.exportRecommendation(project.projectId, id, validateQuery(query).format);
  }

  @Get('tools/:name/source-fix')
  @ApiRoute({
    summary: "A tool's active warnings as a change to its own definition: description, JSON Patch of the schema, snippet",
    query: SOURCE_FIX_QUERY_SCHEMA,
    response: SOURCE_FIX_RESPONSE,
  })
  exportToolWarnings(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string, @Query() query: unknown) {
    requireToolName(name);
    return this.sourceFixes.exportToolWarnings(project.projectId, name, validateQuery(query).format);
  }
}
