import { Module } from '@nestjs/common';
import { DescriptionService } from './description.service';
import { GuardPolicyRepository } from './guard-policy.repository';
import { GuardController } from './guard.controller';
import { GuardService } from './guard.service';
import { LearnedRenameRepository } from './learned-rename.repository';
import { RegistryModule } from './registry.module';
import { ToolValidationService } from './tool-validation.service';
import { ToolWarningsController } from './tool-warnings.controller';
import { SchemaAdmissionService } from './schema-admission.service';
import { ToolsController } from './tools.controller';

/** The api role's registry routes: register, serve (cached in memory), validate, manage warnings and the guard policy. */
@Module({
  imports: [RegistryModule],
  controllers: [ToolsController, ToolWarningsController, GuardController],
  providers: [
    DescriptionService,
    ToolValidationService,
    SchemaAdmissionService,
    LearnedRenameRepository,
    GuardPolicyRepository,
    GuardService,
  ],
})
export class RegistryApiModule {}
