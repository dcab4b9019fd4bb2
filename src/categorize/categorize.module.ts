import { Module } from '@nestjs/common';
import { DeadLetterWorkerModule } from '../infra/queue/dead-letters/dead-letter.module';
import { RegistryModule } from '../registry/registry.module';
import { CategorizeProcessor } from './categorize.processor';
import { CategorizeRepository } from './categorize.repository';
import { CategorizeService } from './categorize.service';

/** The worker role: consumes the events queue. */
@Module({
  imports: [RegistryModule, DeadLetterWorkerModule],
  providers: [CategorizeProcessor, CategorizeService, CategorizeRepository],
})
export class CategorizeModule {}
