import { Global, Module } from '@nestjs/common';
import { ActiveKeyIndex } from './active-key-index';
import { ApiKeyChangesChannel } from './api-key-changes.channel';
import { ApiKeyGuard } from './api-key.guard';
import { RateLimiter } from './rate-limiter';
import { ProjectRepository } from './project.repository';
import { ProjectService } from './project.service';

@Global()
@Module({
  providers: [ProjectRepository, ProjectService, ApiKeyGuard, RateLimiter, ActiveKeyIndex, ApiKeyChangesChannel],
  exports: [ProjectService, ApiKeyGuard, RateLimiter],
})
export class TenancyModule {}
