import { Module } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { CategorizeProcessor } from './categorize.processor';
import { CategorizeRepository } from './categorize.repository';
import { CategorizeService } from './categorize.service';
import { DeadLetterModule } from './dead-letter.module';

/** The worker role: consumes the events queue. */
@Module({
  imports: [RegistryModule, DeadLetterModule],
  providers: [CategorizeProcessor, CategorizeService, CategorizeRepository],
})
export class CategorizeModule {}
