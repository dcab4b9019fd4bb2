import { orderByEvidence, renderDescription } from '../serving/description-renderer';
import type { JsonObject, ServedWarning, ToolState, VersionSnapshot, WarningRecord } from '../registry.types';

// Decides what a change to a tool writes. A new version exists exactly when what an agent reads changes: the base
// description, the parameters schema, or the set or text of the active warnings. Evidence counts, metadata and
// archiving never create one. Pure: ids and timestamps come in with the desired state.

export interface DesiredTool {
  description: string;
  parameters: JsonObject;
  metadata: JsonObject | null;
  archivedAt: Date | null;
  /** Every warning the tool should have afterwards, active and dismissed. */
  warnings: WarningRecord[];
}

export interface ToolRowWrite {
  description: string;
  parameters: JsonObject;
  metadata: JsonObject | null;
  version: number;
  archivedAt: Date | null;
}

export interface ToolChangePlan {
  isNewTool: boolean;
  /** The tools row to write, or null when it stays as it is. */
  toolRow: ToolRowWrite | null;
  /** Warnings to insert or update (by id). */
  warningWrites: WarningRecord[];
  /** The snapshot of the new version, or null when the version stays. */
  snapshot: VersionSnapshot | null;
  version: number;
  /** Anything a GET answers differently afterwards: caches everywhere must drop the tool. */
  isServedChanged: boolean;
}

export function planToolChange(current: ToolState | null, desired: DesiredTool): ToolChangePlan {
  const activeWarnings = desired.warnings.filter((warning) => warning.status === 'active');
  const isNewVersion =
    current === null ||
    servedContentKey(current.tool.description, current.tool.parameters, current.warnings) !==
      servedContentKey(desired.description, desired.parameters, desired.warnings);
  const version = current === null ? 1 : isNewVersion ? current.tool.version + 1 : current.tool.version;

  const toolRow: ToolRowWrite = {
    description: desired.description,
    parameters: desired.parameters,
    metadata: desired.metadata,
    version,
    archivedAt: desired.archivedAt,
  };
  const isRowChanged =
    current === null ||
    isNewVersion ||
    canonicalJson(current.tool.metadata) !== canonicalJson(desired.metadata) ||
    current.tool.archivedAt?.getTime() !== desired.archivedAt?.getTime();

  const before = new Map(current?.warnings.map((warning) => [warning.id, warning]) ?? []);
  const warningWrites = desired.warnings.filter((warning) => {
    const previous = before.get(warning.id);
    return !previous || warningContentKey(previous) !== warningContentKey(warning);
  });

  return {
    isNewTool: current === null,
    toolRow: isRowChanged ? toolRow : null,
    warningWrites,
    snapshot: isNewVersion ? buildSnapshot(version, desired.description, desired.parameters, activeWarnings) : null,
    version,
    isServedChanged: isRowChanged,
  };
}

export function buildSnapshot(
  version: number,
  baseDescription: string,
  parameters: JsonObject,
  activeWarnings: readonly WarningRecord[],
): VersionSnapshot {
  const warnings: ServedWarning[] = orderByEvidence(activeWarnings).map((warning) => ({
    id: warning.id,
    kind: warning.kind,
    text: warning.text,
    evidence: warning.evidence,
    status: 'active',
  }));
  return { version, baseDescription, description: renderDescription(baseDescription, activeWarnings), parameters, warnings };
}

function servedContentKey(description: string, parameters: JsonObject, warnings: readonly WarningRecord[]): string {
  const active = warnings
    .filter((warning) => warning.status === 'active')
    .map((warning) => [warning.id, warning.text])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return canonicalJson({ description, parameters, active });
}

function warningContentKey(warning: WarningRecord): string {
  const { createdAt: _created, updatedAt: _updated, ...content } = warning;
  return canonicalJson(content);
}

/** JSON with object keys sorted, so {a, b} and {b, a} compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as JsonObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}
