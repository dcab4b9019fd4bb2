import { Module } from '@nestjs/common';
import { RegistryService } from './registry.service';
import { ToolSchemaRepository } from './tool-schema.repository';

@Module({ providers: [ToolSchemaRepository, RegistryService], exports: [RegistryService] })
export class RegistryModule {}
