import { Module } from '@nestjs/common';
import { DeadLetterModule } from '../infra/queue/dead-letters/dead-letter.module';
import { RegistryModule } from '../registry/registry.module';
import { CategorizeProcessor } from './categorize.processor';
import { CategorizeRepository } from './categorize.repository';
import { CategorizeService } from './categorize.service';
import { FailedBatchesReconciler } from './failed-batches.reconciler';

/** The worker role: consumes the events queue and dead-letters every batch it cannot store. */
@Module({
  imports: [RegistryModule, DeadLetterModule],
  providers: [CategorizeProcessor, CategorizeService, CategorizeRepository, FailedBatchesReconciler],
})
export class CategorizeModule {}
