import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { notFound } from '../infra/http/api-error';
import { encodeCursor } from '../infra/http/cursor';
import { boundedPage } from '../infra/http/page-bytes';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { VERSION_HISTORY_RESPONSE } from './dashboard-responses.schemas';
import { readVersionsQuery, VERSIONS_QUERY_SCHEMA } from './dashboard.schemas';
import { ToolVersionQueries } from './tool-version.queries';
import { requireToolName } from './tool-name';

@Controller('v1/tools/:name/version-history')
@UseGuards(ApiKeyGuard)
export class ToolVersionsController {
  constructor(private readonly versions: ToolVersionQueries) {}

  @Get()
  @ApiRoute({
    summary:
      "A tool's description versions, newest first, with the calls and errors that reported each, its tokens, and its sessions' calls, steps and repeats",
    query: VERSIONS_QUERY_SCHEMA,
    response: VERSION_HISTORY_RESPONSE,
  })
  async list(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string, @Query() rawQuery: unknown) {
    const query = readVersionsQuery(rawQuery);
    const rows = await this.versions.listVersions(project.projectId, requireToolName(name), query.beforeVersion, query.limit + 1);
    if (!rows) throw notFound('tool', name);
    const toView = ({ sessionCalls, steps, ...v }: (typeof rows)[number]) => ({
      ...v,
      errorRate: v.calls > 0 ? v.errors / v.calls : null,
      callsPerSession: perSession(sessionCalls, v.sessions),
      stepsPerSession: perSession(steps, v.sessions),
      repeatsPerSession: perSession(v.repeatedCalls, v.sessions),
    });
    return boundedPage(rows, query.limit, toView, (last) => encodeCursor(last.version));
  }
}

/** An average per session, to two decimals; null without sessions. */
function perSession(total: number, sessions: number): number | null {
  return sessions > 0 ? Math.round((total / sessions) * 100) / 100 : null;
}
