import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { randomUUID } from 'node:crypto';
import { ApiError, notFound } from '../../infra/http/api-error';
import { RolloutPolicyRepository } from '../serving/rollout-policy.repository';
import { RegistryChangesChannel } from '../serving/registry-changes.channel';
import type {
  CanarySettings,
  JsonObject,
  ToolDefinition,
  ToolState,
  WarningEvidence,
  WarningRecord,
  WarningStatus,
} from '../registry.types';
import type { ManualWarningInput } from '../registry.schemas';
import { chooseParameters, SchemaChoice } from './schema-equivalence';
import { MAX_COMPARED_TOOLS } from '../quality/near-duplicate-tools';
import { judgeTool } from '../quality/tool-quality';
import type { ToolQuality } from '../quality/tool-quality.types';
import { ToolDecision, ToolLimitReachedError, ToolRepository } from './tool.repository';
import { ToolSchemaRepository } from './tool-schema.repository';
import { DesiredTool, planToolChange } from './tool-versioning';

export interface RegistrationResult {
  name: string;
  version: number;
  /** created: new; restored: back from the archive; updated: a new version; unchanged: nothing an agent reads changed. */
  status: 'created' | 'restored' | 'updated' | 'unchanged';
  /** Which parameters schema the tool keeps: an equivalent one never replaces the current (docs/registration.md). */
  schema: SchemaChoice;
  /** The registered definition judged against the project's other tools (docs/tool-quality.md). */
  quality: ToolQuality;
}

type Registration = Omit<RegistrationResult, 'quality'>;

export interface AutoWarning {
  kind: string;
  text: string;
  evidence: { count: number; firstSeen: string; lastSeen: string; exampleEventIds: string[]; [key: string]: unknown };
  evidenceKey: string;
}

export interface AutoWarningResult {
  applied: boolean;
  warningId: string | null;
  version: number | null;
  reason?: 'dismissed' | 'unchanged' | 'unknown_tool';
}

/**
 * A canary's settings and when it starts (a backfilled nightly starts it as of the end of its day); `join`: the new
 * version joins the tool's canary that started at the same time, if one has not been looked at yet.
 */
export type CanaryStart = CanarySettings & { startedAt: Date; join?: boolean };

export interface WarningChangeResult {
  warning: WarningRecord;
  version: number;
}

/**
 * Every write to the registry: plans it with the pure versioning rules under the tool's row lock, then tells every
 * instance (Redis pub/sub) when what a GET answers has changed.
 */
@Injectable()
export class ToolChangesService {
  constructor(
    private readonly tools: ToolRepository,
    private readonly changes: RegistryChangesChannel,
    private readonly definitions: ToolSchemaRepository,
    private readonly rolloutPolicies: RolloutPolicyRepository,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'maxToolsPerProject'>,
  ) {
    this.maxToolsPerProject = config.maxToolsPerProject;
  }

  private readonly maxToolsPerProject: number;

  async registerTool(projectId: string, definition: ToolDefinition): Promise<RegistrationResult> {
    const registration = await this.register(projectId, definition);
    const [quality] = await this.judgeRegistered(projectId, [definition]);
    return { ...registration, quality };
  }

  /** One tool after another, each in its own transaction: a re-registration of 100 unchanged tools writes nothing. */
  async registerTools(projectId: string, definitions: readonly ToolDefinition[]): Promise<RegistrationResult[]> {
    // refused before any is written when the new ones cannot all fit (a race with another request is still caught per tool)
    const { newNames, tools } = await this.tools.countNewTools(
      projectId,
      definitions.map((definition) => definition.name),
    );
    if (tools + newNames > this.maxToolsPerProject) throw toolLimitReached(this.maxToolsPerProject, '/tools', tools, newNames);
    const registrations: Registration[] = [];
    for (const definition of definitions) registrations.push(await this.register(projectId, definition));
    const qualities = await this.judgeRegistered(projectId, definitions);
    return registrations.map((registration, i) => ({ ...registration, quality: qualities[i] }));
  }

  /** Each definition as registered, against the project's other active tools as they are now (one query). */
  private async judgeRegistered(projectId: string, definitions: readonly ToolDefinition[]): Promise<ToolQuality[]> {
    const siblings = await this.definitions.findActiveToolDefinitions(projectId, MAX_COMPARED_TOOLS);
    return definitions.map((definition) => judgeTool(definition, siblings));
  }

  private async register(projectId: string, definition: ToolDefinition): Promise<Registration> {
    const desiredFrom = (state: ToolState | null, parameters: JsonObject): DesiredTool => ({
      description: definition.description,
      parameters,
      metadata: definition.metadata === undefined ? (state?.tool.metadata ?? null) : definition.metadata,
      archivedAt: null,
      warnings: state?.warnings ?? [],
    });
    // Agents re-register their whole tool list at every start-up: answer the unchanged case without a transaction.
    const current = await this.tools.findToolState(projectId, definition.name);
    if (current) {
      const { parameters, choice } = chooseParameters(current.tool.parameters, definition.parameters);
      if (!isWrite(planToolChange(current, desiredFrom(current, parameters)))) {
        return { name: definition.name, version: current.tool.version, status: 'unchanged', schema: choice };
      }
    }
    try {
      return await this.change(projectId, definition.name, (state) => {
        const { parameters, choice } = chooseParameters(state?.tool.parameters ?? null, definition.parameters);
        const plan = planToolChange(state, desiredFrom(state, parameters));
        const status = state === null ? 'created' : state.tool.archivedAt !== null ? 'restored' : plan.snapshot ? 'updated' : 'unchanged';
        return { plan: isWrite(plan) ? plan : null, result: { name: definition.name, version: plan.version, status, schema: choice } };
      });
    } catch (error) {
      if (error instanceof ToolLimitReachedError) throw toolLimitReached(error.maxTools, '/name', error.maxTools, 1);
      throw error;
    }
  }

  /** Archives a tool: it is no longer served or validated; its events, versions and warnings stay. False if unknown. */
  async archiveTool(projectId: string, name: string, now: Date = new Date()): Promise<boolean> {
    return this.change(projectId, name, (state) => {
      if (!state) return { plan: null, result: false };
      if (state.tool.archivedAt) return { plan: null, result: true };
      return { plan: planToolChange(state, { ...desiredOf(state), archivedAt: now }), result: true };
    });
  }

  async listWarnings(projectId: string, name: string): Promise<WarningRecord[]> {
    const state = await this.tools.findToolState(projectId, name);
    if (!state || state.tool.archivedAt) throw notFound('tool', name);
    return state.warnings;
  }

  /** With `input.canary`, the new version starts as a canary with the project's rollout share and minimum calls. */
  async addManualWarning(projectId: string, name: string, input: ManualWarningInput, now: Date = new Date()): Promise<WarningChangeResult> {
    const canary = input.canary ? await this.rolloutPolicies.findPolicy(projectId) : null;
    return this.change(projectId, name, (state) => {
      if (!state || state.tool.archivedAt) throw notFound('tool', name);
      const clash = input.evidenceKey === null ? undefined : state.warnings.find((w) => w.evidenceKey === input.evidenceKey);
      if (clash) {
        throw new ApiError(409, 'warning_exists', `Warning ${clash.id} already covers evidence key ${JSON.stringify(input.evidenceKey)}`, {
          details: [{ path: '/evidenceKey', message: `is already used by warning ${clash.id} (${clash.status})` }],
        });
      }
      const warning: WarningRecord = {
        id: randomUUID(),
        kind: input.kind,
        text: input.text,
        evidence: input.evidence,
        evidenceKey: input.evidenceKey,
        source: 'manual',
        status: 'active',
        dismissedReason: null,
        createdAt: now,
        updatedAt: now,
      };
      const plan = planToolChange(state, { ...desiredOf(state), warnings: [...state.warnings, warning] });
      const canaryStart = canary
        ? { design: canary.design, share: canary.share, minCalls: canary.minCalls, warningId: warning.id, startedAt: now }
        : undefined;
      return { plan, result: { warning, version: plan.version }, canary: canaryStart };
    });
  }

  /** Dismisses or reinstates a warning; each real change is a new version. */
  async setWarningStatus(
    projectId: string,
    name: string,
    warningId: string,
    status: WarningStatus,
    reason: string | null,
    now: Date = new Date(),
  ): Promise<WarningChangeResult> {
    return this.change(projectId, name, (state) => {
      if (!state || state.tool.archivedAt) throw notFound('tool', name);
      const existing = state.warnings.find((warning) => warning.id === warningId);
      if (!existing) throw new ApiError(404, 'not_found', `No warning ${warningId} on tool ${JSON.stringify(name)}`);
      if (existing.status === status) return { plan: null, result: { warning: existing, version: state.tool.version } };
      const warning: WarningRecord = { ...existing, status, dismissedReason: status === 'dismissed' ? reason : null, updatedAt: now };
      const warnings = state.warnings.map((each) => (each.id === warningId ? warning : each));
      const plan = planToolChange(state, { ...desiredOf(state), warnings });
      return { plan, result: { warning, version: plan.version } };
    });
  }

  /** With `canary`, a new warning's version starts as a canary (docs/rollout.md); a refreshed one never does. */
  async applyAutoWarning(
    projectId: string,
    toolName: string,
    input: AutoWarning,
    now: Date = new Date(),
    canary: CanaryStart | null = null,
  ): Promise<AutoWarningResult> {
    return this.change(projectId, toolName, (state): ToolDecision<AutoWarningResult> => {
      if (!state || state.tool.archivedAt)
        return { plan: null, result: { applied: false, warningId: null, version: null, reason: 'unknown_tool' } };
      const existing = state.warnings.find((warning) => warning.evidenceKey === input.evidenceKey);
      if (existing?.status === 'dismissed') {
        return { plan: null, result: { applied: false, warningId: existing.id, version: state.tool.version, reason: 'dismissed' } };
      }
      const evidence: WarningEvidence = { ...input.evidence };
      // A person's wording of a warning wins over the generated one; the evidence still follows the data.
      const warning: WarningRecord = existing
        ? existing.source === 'manual'
          ? { ...existing, evidence, updatedAt: now }
          : { ...existing, kind: input.kind, text: input.text, evidence, updatedAt: now }
        : {
            id: randomUUID(),
            kind: input.kind,
            text: input.text,
            evidence,
            evidenceKey: input.evidenceKey,
            source: 'auto',
            status: 'active',
            dismissedReason: null,
            createdAt: now,
            updatedAt: now,
          };
      const warnings = existing ? state.warnings.map((each) => (each.id === existing.id ? warning : each)) : [...state.warnings, warning];
      const plan = planToolChange(state, { ...desiredOf(state), warnings });
      if (!isWrite(plan)) {
        return { plan: null, result: { applied: false, warningId: warning.id, version: plan.version, reason: 'unchanged' } };
      }
      const canaryStart = canary && !existing ? { ...canary, warningId: warning.id } : undefined;
      return { plan, result: { applied: true, warningId: warning.id, version: plan.version }, canary: canaryStart };
    });
  }

  async retireWarning(projectId: string, warningId: string, reason: string, now: Date = new Date()): Promise<void> {
    const toolName = await this.tools.findWarningToolName(projectId, warningId);
    // the warning went with its tool (deleted with the project or never there): nothing is left to retire
    if (!toolName) return;
    await this.setWarningStatus(projectId, toolName, warningId, 'dismissed', reason, now);
  }

  private async change<R>(projectId: string, name: string, decide: (state: ToolState | null) => ToolDecision<R>): Promise<R> {
    let isServedChanged = false;
    const result = await this.tools.changeTool(projectId, name, (state) => {
      const decision = decide(state);
      isServedChanged = decision.plan?.isServedChanged ?? false;
      return decision;
    });
    if (isServedChanged) await this.changes.publish({ projectId, tool: name });
    return result;
  }
}

export function desiredOf(state: ToolState): DesiredTool {
  return {
    description: state.tool.description,
    parameters: state.tool.parameters,
    metadata: state.tool.metadata,
    archivedAt: state.tool.archivedAt,
    warnings: state.warnings,
  };
}

function isWrite(plan: ReturnType<typeof planToolChange>): boolean {
  return plan.toolRow !== null || plan.warningWrites.length > 0 || plan.snapshot !== null;
}

/** 409 naming the cap: registering past MAX_TOOLS_PER_PROJECT (archived tools count too: their versions stay). */
function toolLimitReached(maxTools: number, path: string, tools: number, newTools: number): ApiError {
  return new ApiError(
    409,
    'tool_limit_reached',
    `A project may register at most ${maxTools} tools (MAX_TOOLS_PER_PROJECT); it has ${tools}, and this request adds ${newTools}`,
    { details: [{ path, message: `would take the project past ${maxTools} tools` }] },
  );
}
