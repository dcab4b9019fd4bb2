import { Module } from '@nestjs/common';
import { CanaryChangesService } from './serving/canary-changes.service';
import { CanaryRepository } from './serving/canary.repository';
import { ProjectNoteRepository } from './tools/project-note.repository';
import { RegistryChangesChannel } from './serving/registry-changes.channel';
import { RegistryService } from './registry.service';
import { RolloutPolicyRepository } from './serving/rollout-policy.repository';
import { ToolChangesService } from './tools/tool-changes.service';
import { ToolRepository } from './tools/tool.repository';
import { ToolSchemaRepository } from './tools/tool-schema.repository';

/**
 * The registry core, for every role: other features use RegistryService; the registry's own API module (api role)
 * also uses the writes, the reads and the change channel.
 */
@Module({
  providers: [
    RolloutPolicyRepository,
    CanaryRepository,
    ProjectNoteRepository,
    ToolSchemaRepository,
    ToolRepository,
    RegistryChangesChannel,
    ToolChangesService,
    RegistryService,
    CanaryChangesService,
  ],
  exports: [
    RegistryService,
    ToolChangesService,
    ToolRepository,
    RegistryChangesChannel,
    ProjectNoteRepository,
    CanaryChangesService,
    RolloutPolicyRepository,
    CanaryRepository,
  ],
})
export class RegistryModule {}
