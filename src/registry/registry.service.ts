import { Injectable } from '@nestjs/common';
import { ArgumentSchema, compileArgumentSchema } from '../diagnosis';
import { ToolSchemaRepository } from './tool-schema.repository';

const MAX_CACHED_SCHEMAS = 2000;

/** What other features may ask of the registry. The worker uses it to validate arguments against registered schemas. */
@Injectable()
export class RegistryService {
  // Compiling a schema costs far more than validating with it; recompile only when the tool's version changes.
  private readonly compiled = new Map<string, { version: number; schema: ArgumentSchema | null }>();

  constructor(private readonly tools: ToolSchemaRepository) {}

  async findArgumentSchemas(projectId: string, toolNames: readonly string[]): Promise<Map<string, ArgumentSchema>> {
    const rows = await this.tools.findActiveToolSchemas(projectId, toolNames);
    const schemas = new Map<string, ArgumentSchema>();
    for (const row of rows) {
      const key = `${projectId}\u0000${row.name}`;
      let entry = this.compiled.get(key);
      if (!entry || entry.version !== row.version) {
        entry = { version: row.version, schema: row.parameters ? this.compileOrNull(row.parameters) : null };
        if (this.compiled.size >= MAX_CACHED_SCHEMAS) this.compiled.delete(this.compiled.keys().next().value!);
        this.compiled.set(key, entry);
      }
      if (entry.schema) schemas.set(row.name, entry.schema);
    }
    return schemas;
  }

  private compileOrNull(parameters: Record<string, unknown>): ArgumentSchema | null {
    try {
      return compileArgumentSchema(parameters);
    } catch {
      // A schema Ajv cannot compile gives no evidence; the message still does.
      return null;
    }
  }
}
