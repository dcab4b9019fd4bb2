import { Module } from '@nestjs/common';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { RetentionController } from './retention.controller';
import { RetentionRepository } from './retention.repository';
import { RetentionProcessor } from './retention.processor';
import { RetentionService } from './retention.service';

@Module({ providers: [RetentionRepository, RetentionService, AdvisoryLocks], exports: [RetentionService] })
export class RetentionCoreModule {}

/** api role: read and set a project's raw event retention. */
@Module({ imports: [RetentionCoreModule], controllers: [RetentionController] })
export class RetentionApiModule {}

/** scheduler role: works the maintenance queue (partitions ahead of the clock and retention, at RETENTION_CRON). */
@Module({ imports: [RetentionCoreModule], providers: [RetentionProcessor] })
export class RetentionSchedulerModule {}
