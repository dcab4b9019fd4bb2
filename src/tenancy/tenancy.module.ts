import { Global, Module } from '@nestjs/common';
import { ApiKeyRevocationsChannel } from './api-key-revocations.channel';
import { ApiKeyGuard } from './api-key.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { RateLimiter } from './rate-limiter';
import { ProjectRepository } from './project.repository';
import { ProjectService } from './project.service';

@Global()
@Module({
  providers: [ProjectRepository, ProjectService, ApiKeyGuard, RateLimiter, FailedAuthLimiter, ApiKeyRevocationsChannel],
  exports: [ProjectService, ApiKeyGuard, RateLimiter, FailedAuthLimiter],
})
export class TenancyModule {}
