import { Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiError } from '../infra/http/api-error';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../tenancy/project.repository';
import { DeadLetterService } from './dead-letter.service';

@Controller('v1/admin/dead-letters')
@UseGuards(ApiKeyGuard)
export class DeadLetterController {
  constructor(private readonly deadLetters: DeadLetterService) {}

  @Get()
  async list(@CurrentProject() project: AuthenticatedProject) {
    return { items: await this.deadLetters.list(project.projectId) };
  }

  @Post(':id/replay')
  @HttpCode(202)
  async replay(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    const replayed = await this.deadLetters.replay(project.projectId, id);
    if (!replayed) throw new ApiError(404, 'not_found', `No dead letter ${id} in this project`);
    return replayed;
  }
}
