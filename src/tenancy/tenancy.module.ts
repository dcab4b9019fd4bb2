import { Global, Module } from '@nestjs/common';
import { ApiKeyGuard } from './api-key.guard';
import { ProjectRepository } from './project.repository';
import { ProjectService } from './project.service';

@Global()
@Module({ providers: [ProjectRepository, ProjectService, ApiKeyGuard], exports: [ProjectService, ApiKeyGuard] })
export class TenancyModule {}
