import { Injectable, OnModuleInit } from '@nestjs/common';
import { ArgumentSchema, compileArgumentSchema, MAX_CACHED_PATTERN_BYTES } from '../../diagnosis/index';
import { SharedTimeSlice } from '../../infra/event-loop/shared-time-slice';
import { notFound } from '../../infra/http/api-error';
import { ArgumentCheck, checkArgumentsInSteps, hasUndeclaredArguments, readArguments, ValidationChecks } from './argument-check';
import { LearnedLimit, learnedLimitsOf } from '../guard/learned-limits';
import { LearnedRenameRepository } from './learned-rename.repository';
import { RegistryChange, RegistryChangeListener, RegistryChangesChannel } from '../serving/registry-changes.channel';
import { cacheKey, ServedResponseCache } from '../serving/served-response.cache';
import { ToolRepository } from '../tools/tool.repository';

const MAX_CACHED_SCHEMAS = 5000;
const MAX_CACHED_RENAMES = 5000;
// Learned renames only add suggestions; a few minutes of lag is harmless and keeps events out of the hot path.
const LEARNED_RENAMES_TTL_MS = 5 * 60_000;
const LEARNING_WINDOW_DAYS = 30;

interface CompiledTool {
  version: number;
  schema: ArgumentSchema;
  /** From the active learned_limit warnings of this version: they change only with a new version. */
  learnedLimits: LearnedLimit[];
}

/**
 * POST /v1/tools/:name/validate runs before every tool call of the agents that use it: schemas are compiled once per
 * version and kept in memory (dropped on change, like descriptions); learned renames are read only for arguments the
 * schema does not declare, and cached for a few minutes.
 */
@Injectable()
export class ToolValidationService implements OnModuleInit, RegistryChangeListener {
  // each schema keeps its compiled patterns: bounded by their memory as well as by count
  private readonly schemas = new ServedResponseCache<CompiledTool>(MAX_CACHED_SCHEMAS, {
    maxWeight: MAX_CACHED_PATTERN_BYTES,
    weigh: (tool) => tool.schema.patternBytes ?? 0,
  });
  private readonly renames = new Map<string, { expiresAtMs: number; renames: Map<string, string> }>();

  constructor(
    private readonly tools: ToolRepository,
    private readonly learned: LearnedRenameRepository,
    private readonly changes: RegistryChangesChannel,
    private readonly timeSlice: SharedTimeSlice,
  ) {}

  onModuleInit(): Promise<void> {
    return this.changes.listen(this);
  }

  onRegistryChange(change: RegistryChange): void {
    this.schemas.invalidateTool(change.projectId, change.tool);
  }

  onRegistryChangesMissed(): void {
    this.schemas.clear();
  }

  async validate(
    projectId: string,
    name: string,
    rawArguments: unknown,
    checks: ValidationChecks = 'all',
    nowMs: number = Date.now(),
  ): Promise<ArgumentCheck> {
    const tool = await this.compiledTool(projectId, name);
    const args = readArguments(rawArguments);
    const learnedRenames = hasUndeclaredArguments(args, tool.schema)
      ? await this.learnedRenames(projectId, name, nowMs)
      : new Map<string, string>();
    // a check may take its whole budget: whenever the process's slice is spent, requests already waiting go first
    await this.timeSlice.yieldIfDue();
    const steps = checkArgumentsInSteps({
      tool: name,
      // arguments sent as a JSON string are parsed once, here: an object reads as itself
      arguments: typeof args === 'object' && args !== null ? args : rawArguments,
      schema: tool.schema,
      learnedRenames,
      learnedLimits: tool.learnedLimits,
      checks,
    });
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value;
      await this.timeSlice.yieldIfDue();
    }
  }

  private async compiledTool(projectId: string, name: string): Promise<CompiledTool> {
    const key = cacheKey(projectId, name, 'latest', 'schema');
    const cached = this.schemas.get(key);
    if (cached) return cached;
    const generation = this.schemas.currentGeneration;
    const served = await this.tools.findServedTool(projectId, name, null);
    if (!served) throw notFound('tool', name);
    const compiled = {
      version: served.view.version,
      schema: compileArgumentSchema(served.view.parameters),
      learnedLimits: learnedLimitsOf(served.view.warnings),
    };
    this.schemas.set(key, compiled, generation);
    return compiled;
  }

  private async learnedRenames(projectId: string, name: string, nowMs: number): Promise<Map<string, string>> {
    const key = `${projectId}\u0000${name}`;
    const cached = this.renames.get(key);
    if (cached && cached.expiresAtMs > nowMs) return cached.renames;
    const since = new Date(nowMs - LEARNING_WINDOW_DAYS * 86_400_000);
    const rows = await this.learned.findLearnedRenames(projectId, name, since);
    const renames = new Map<string, string>();
    // Rows come most frequent first: each wrong name maps to the name it was most often meant as.
    for (const row of rows) if (!renames.has(row.wrongArgument)) renames.set(row.wrongArgument, row.intendedArgument);
    this.renames.delete(key);
    this.renames.set(key, { expiresAtMs: nowMs + LEARNED_RENAMES_TTL_MS, renames });
    if (this.renames.size > MAX_CACHED_RENAMES) this.renames.delete(this.renames.keys().next().value!);
    return renames;
  }
}
