import { Injectable } from '@nestjs/common';
import { ArgumentSchema, compileArgumentSchema, MAX_CACHED_PATTERN_BYTES } from '../diagnosis';
import { SharedTimeSlice } from '../infra/event-loop/shared-time-slice';
import { CanaryRepository, WarningTest } from './serving/canary.repository';
import { ProjectNote, ProjectNoteRepository } from './tools/project-note.repository';
import { RegistryChangesChannel } from './serving/registry-changes.channel';
import type { JsonObject, WarningRecord } from './registry.types';
import { NOTES_CHANGE } from './serving/served-response.cache';
import { AutoWarning, AutoWarningResult, CanaryStart, ToolChangesService } from './tools/tool-changes.service';
import { judgeProjectTools } from './quality/tool-quality';
import type { ToolQualityReport } from './quality/tool-quality.types';
import { ToolRepository } from './tools/tool.repository';
import { RegisteredDefinitionRow, ToolSchemaRepository } from './tools/tool-schema.repository';

const MAX_CACHED_SCHEMAS = 2000;
/** Tools judged per project by judgeActiveTools (the nightly), by name: the work stays bounded. */
export const MAX_JUDGED_TOOLS = 1000;

/**
 * What other features may ask of the registry. The worker validates arguments against registered schemas; the
 * nightly analytics add, refresh and retire automatic warnings.
 */
@Injectable()
export class RegistryService {
  // Compiling a schema costs far more than validating with it; recompile only when the tool's version changes.
  // Each schema keeps its compiled patterns: bounded by their memory as well as by count.
  private readonly compiled = new Map<string, { version: number; schema: ArgumentSchema | null }>();
  private compiledPatternBytes = 0;

  constructor(
    private readonly schemas: ToolSchemaRepository,
    private readonly tools: ToolRepository,
    private readonly toolChanges: ToolChangesService,
    private readonly timeSlice: SharedTimeSlice,
    private readonly notes: ProjectNoteRepository,
    private readonly changes: RegistryChangesChannel,
    private readonly canaries: CanaryRepository,
  ) {}

  /** Of `warningIds`, those dismissed (by a person, a canary stopped by hand or rolled back), with their reason. */
  findDismissedWarnings(projectId: string, warningIds: readonly string[]): Promise<Map<string, string | null>> {
    return this.tools.findDismissedWarnings(projectId, warningIds);
  }

  /** The decided canary that tested each of `warningIds`, if one did: how each warning's effect was established. */
  findTestsOfWarnings(projectId: string, warningIds: readonly string[]): Promise<Map<string, WarningTest>> {
    return this.canaries.findTestsOfWarnings(projectId, warningIds);
  }

  async findArgumentSchemas(projectId: string, toolNames: readonly string[]): Promise<Map<string, ArgumentSchema>> {
    const rows = await this.schemas.findActiveToolSchemas(projectId, toolNames);
    const schemas = new Map<string, ArgumentSchema>();
    for (const row of rows) {
      const key = `${projectId}\u0000${row.name}`;
      let entry = this.compiled.get(key);
      if (!entry || entry.version !== row.version) {
        entry = { version: row.version, schema: row.parameters ? this.compileOrNull(row.parameters) : null };
        this.keepCompiled(key, entry);
        // a compile may take up to SCHEMA_COMPILE_BUDGET_MS: let requests through between two of them
        await this.timeSlice.yieldIfDue();
      }
      if (entry.schema) schemas.set(row.name, entry.schema);
    }
    return schemas;
  }

  /** The registered argument schemas of the active tools among `toolNames`, by name, in one query; unknown or archived tools are absent. */
  async findToolSchemas(projectId: string, toolNames: readonly string[]): Promise<Map<string, JsonObject>> {
    if (toolNames.length === 0) return new Map();
    const rows = await this.schemas.findActiveToolSchemas(projectId, toolNames);
    return new Map(rows.map((row) => [row.name, row.parameters ?? {}]));
  }

  /** The registered descriptions (without warnings) of the active tools among `toolNames`, by name, in one query. */
  async findToolDescriptions(projectId: string, toolNames: readonly string[]): Promise<Map<string, string>> {
    if (toolNames.length === 0) return new Map();
    const rows = await this.schemas.findActiveToolDescriptions(projectId, toolNames);
    return new Map(rows.map((row) => [row.name, row.description]));
  }

  /** The active tools among `toolNames` as registered (their own description, schema and version), by name, in one query. */
  async findRegisteredDefinitions(projectId: string, toolNames: readonly string[]): Promise<Map<string, RegisteredDefinitionRow>> {
    const rows = await this.schemas.findActiveDefinitionsByName(projectId, toolNames);
    return new Map(rows.map((row) => [row.name, row]));
  }

  /** The names of every active tool of the project (what a model could have meant by a name that is not one). */
  listActiveToolNames(projectId: string): Promise<string[]> {
    return this.schemas.findActiveToolNames(projectId);
  }

  /** Replaces the project's notes of `kind` (listed beside the tools on GET /v1/tools); served lists drop on change. */
  async replaceProjectNotes(projectId: string, kind: string, notes: readonly Omit<ProjectNote, 'kind'>[], at: Date): Promise<void> {
    if (await this.notes.replaceNotes(projectId, kind, notes, at)) await this.changes.publish({ projectId, tool: NOTES_CHANGE });
  }

  /** The quality report of every active tool (at most MAX_JUDGED_TOOLS), on its own description and schema. */
  async judgeActiveTools(projectId: string): Promise<ToolQualityReport[]> {
    return judgeProjectTools(await this.schemas.findActiveToolDefinitions(projectId, MAX_JUDGED_TOOLS));
  }

  listActiveWarnings(projectId: string, toolName: string): Promise<WarningRecord[]> {
    return this.tools.findActiveWarnings(projectId, toolName);
  }

  /**
   * Adds or refreshes the active automatic warning for `evidenceKey`. New evidence alone keeps the version; a new
   * warning or a changed text makes a new one. Refused when a warning for the same evidence was dismissed. With
   * `canary`, a new warning's version starts as a canary (docs/rollout.md).
   */
  applyAutoWarning(
    projectId: string,
    toolName: string,
    warning: AutoWarning,
    canary: CanaryStart | null = null,
  ): Promise<AutoWarningResult> {
    return this.toolChanges.applyAutoWarning(projectId, toolName, warning, new Date(), canary);
  }

  /** Dismisses a warning (a new version without it); it is never re-added automatically for the same evidence. */
  retireWarning(projectId: string, warningId: string, reason: string): Promise<void> {
    return this.toolChanges.retireWarning(projectId, warningId, reason);
  }

  private keepCompiled(key: string, entry: { version: number; schema: ArgumentSchema | null }): void {
    const bytesOf = (schema: ArgumentSchema | null) => schema?.patternBytes ?? 0;
    const previous = this.compiled.get(key);
    if (previous) this.compiledPatternBytes -= bytesOf(previous.schema);
    this.compiled.delete(key);
    this.compiled.set(key, entry);
    this.compiledPatternBytes += bytesOf(entry.schema);
    while (this.compiled.size > MAX_CACHED_SCHEMAS || (this.compiledPatternBytes > MAX_CACHED_PATTERN_BYTES && this.compiled.size > 1)) {
      const oldest = this.compiled.keys().next().value!;
      this.compiledPatternBytes -= bytesOf(this.compiled.get(oldest)!.schema);
      this.compiled.delete(oldest);
    }
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
