import { Body, Controller, Get, Param, Patch, Query, UseGuards } from '@nestjs/common';
import { notFound } from '../infra/http/api-error';
import { encodeCursor } from '../infra/http/cursor';
import { boundedPage } from '../infra/http/page-bytes';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { ERROR_GROUP_DETAIL_RESPONSE, ERROR_GROUP_RESPONSE, ERROR_GROUPS_RESPONSE } from './dashboard-responses.schemas';
import {
  ERROR_GROUP_PATCH_SCHEMA,
  ERROR_GROUP_QUERY_SCHEMA,
  ERROR_GROUPS_QUERY_SCHEMA,
  readErrorGroupPatch,
  readErrorGroupQuery,
  readErrorGroupsQuery,
} from './dashboard.schemas';
import { ErrorGroupQueries } from './error-group.queries';
import { failedArgumentValues, toErrorGroupView, toSampleView } from './error-group-view';
import { requireToolName } from './tool-name';
import { isUuid } from '../infra/http/storable-values';

@Controller('v1')
@UseGuards(ApiKeyGuard)
export class ErrorGroupsController {
  constructor(private readonly groups: ErrorGroupQueries) {}

  @Get('tools/:name/error-groups')
  @ApiRoute({
    summary: "A tool's error groups, most recently seen first",
    query: ERROR_GROUPS_QUERY_SCHEMA,
    response: ERROR_GROUPS_RESPONSE,
  })
  async list(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string, @Query() rawQuery: unknown) {
    const query = readErrorGroupsQuery(rawQuery);
    const rows = await this.groups.listToolErrorGroups(project.projectId, requireToolName(name), { ...query, limit: query.limit + 1 });
    return boundedPage(rows, query.limit, toErrorGroupView, (last) => encodeCursor([last.lastSeen.toISOString(), last.id]));
  }

  @Get('error-groups/:id')
  @ApiRoute({
    summary: 'One error group with sample events and the argument values that failed',
    query: ERROR_GROUP_QUERY_SCHEMA,
    response: ERROR_GROUP_DETAIL_RESPONSE,
  })
  async get(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string, @Query() rawQuery: unknown) {
    const filter = readErrorGroupQuery(rawQuery);
    const group = isUuid(id) ? await this.groups.findErrorGroup(project.projectId, id.toLowerCase()) : null;
    if (!group) throw notFound('error group', id);
    const samples = await this.groups.findSampleEvents(project.projectId, group.sampleEventIds, filter);
    return {
      ...toErrorGroupView(group),
      samples: samples.map(toSampleView),
      failedArguments: failedArgumentValues(group.argumentPath, samples),
    };
  }

  @Patch('error-groups/:id')
  @ApiRoute({
    summary: "Set a group's status (open, resolved, ignored); a resolved group that recurs becomes regressed",
    body: ERROR_GROUP_PATCH_SCHEMA,
    response: ERROR_GROUP_RESPONSE,
  })
  async setStatus(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string, @Body() body: unknown) {
    const { status } = readErrorGroupPatch(body);
    const group = isUuid(id) ? await this.groups.updateStatus(project.projectId, id.toLowerCase(), status) : null;
    if (!group) throw notFound('error group', id);
    return toErrorGroupView(group);
  }
}
