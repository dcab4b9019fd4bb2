import { Module } from '@nestjs/common';
import { CanaryChangesService } from './canary-changes.service';
import { CanaryRepository } from './canary.repository';
import { ProjectNoteRepository } from './project-note.repository';
import { RegistryChangesChannel } from './registry-changes.channel';
import { RegistryService } from './registry.service';
import { RolloutPolicyRepository } from './rollout-policy.repository';
import { ToolChangesService } from './tool-changes.service';
import { ToolRepository } from './tool.repository';
import { ToolSchemaRepository } from './tool-schema.repository';

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
