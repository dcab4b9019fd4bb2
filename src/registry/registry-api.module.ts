import { Module } from '@nestjs/common';
import { DescriptionService } from './serving/description.service';
import { GuardPolicyRepository } from './guard/guard-policy.repository';
import { GuardController } from './guard/guard.controller';
import { GuardService } from './guard/guard.service';
import { LearnedRenameRepository } from './validate/learned-rename.repository';
import { RegistryModule } from './registry.module';
import { ToolValidationService } from './validate/tool-validation.service';
import { ToolWarningsController } from './tools/tool-warnings.controller';
import { SchemaAdmissionService } from './tools/schema-admission.service';
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
  // the MCP server's tool_details answers the live description as GET /v1/tools/:name/description does
  exports: [DescriptionService],
})
export class RegistryApiModule {}
