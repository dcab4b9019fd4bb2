import { Module } from '@nestjs/common';
import { DeadLetterModule } from '../infra/queue/dead-letters/dead-letter.module';
import { RegistryModule } from '../registry/registry.module';
import { CategorizeProcessor } from './categorize.processor';
import { CategorizeRepository } from './categorize.repository';
import { CategorizeService } from './categorize.service';
import { FailedBatchesReconciler } from './failed-batches.reconciler';
import { ResultFailurePolicyRepository } from './result-failure-policy.repository';
import { ResultFailuresController } from './result-failures.controller';
import { ResultFailuresService } from './result-failures.service';
import { UnknownLaneRepository } from './unknown-lane.repository';
import { UnknownTemplatesController } from './unknown-templates.controller';
import { UnknownTemplatesService } from './unknown-templates.service';

/** The worker role: consumes the events queue and dead-letters every batch it cannot store. */
@Module({
  imports: [RegistryModule, DeadLetterModule],
  providers: [
    CategorizeProcessor,
    CategorizeService,
    CategorizeRepository,
    FailedBatchesReconciler,
    ResultFailurePolicyRepository,
    UnknownLaneRepository,
  ],
})
export class CategorizeModule {}

/**
 * The api role's routes of the worker's settings: which result-failure rules a project turned off, and the labels of
 * the unknown lane's templates.
 */
@Module({
  controllers: [ResultFailuresController, UnknownTemplatesController],
  providers: [ResultFailuresService, ResultFailurePolicyRepository, UnknownTemplatesService, UnknownLaneRepository],
})
export class CategorizeApiModule {}
