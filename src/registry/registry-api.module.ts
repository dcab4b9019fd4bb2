import { Module } from '@nestjs/common';
import { DescriptionService } from './description.service';
import { LearnedRenameRepository } from './learned-rename.repository';
import { RegistryModule } from './registry.module';
import { ToolValidationService } from './tool-validation.service';
import { ToolWarningsController } from './tool-warnings.controller';
import { ToolsController } from './tools.controller';

/** The api role's registry routes: register, serve (cached in memory), validate, and manage warnings. */
@Module({
  imports: [RegistryModule],
  controllers: [ToolsController, ToolWarningsController],
  providers: [DescriptionService, ToolValidationService, LearnedRenameRepository],
})
export class RegistryApiModule {}
