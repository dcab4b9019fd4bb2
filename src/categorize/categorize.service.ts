import { Injectable } from '@nestjs/common';
import { ArgumentSchema, computeFingerprint, diagnose, normalizeMessageTemplate } from '../diagnosis';
import { AcceptedEvent, CategorizeBatchPayload } from '../infra/queue/queue.payloads';
import { RegistryService } from '../registry/registry.service';
import { aggregateBatch } from './batch-aggregates';
import { CategorizeRepository } from './categorize.repository';
import { errorGroupIdFor } from './error-group-id';
import { EventDiagnosis, StoredEventRow } from './stored-event';

export interface BatchOutcome {
  received: number;
  stored: number;
  duplicates: number;
}

@Injectable()
export class CategorizeService {
  constructor(
    private readonly registry: RegistryService,
    private readonly repository: CategorizeRepository,
  ) {}

  /** Diagnoses every error event of a batch and stores events, groups and rollups in one transaction. */
  async categorizeBatch(payload: CategorizeBatchPayload): Promise<BatchOutcome> {
    const events = uniqueById(payload.events);
    const errorTools = [...new Set(events.filter((e) => e.status === 'error').map((e) => e.tool))];
    const schemas = await this.registry.findArgumentSchemas(payload.projectId, errorTools);
    const receivedAt = new Date(payload.receivedAt);
    const rows = events.map((event) => toRow(payload.projectId, event, receivedAt, schemas.get(event.tool)));
    const stored = await this.repository.writeBatch(payload.projectId, rows, (inserted) => aggregateBatch(inserted));
    return { received: payload.events.length, stored, duplicates: payload.events.length - stored };
  }
}

function uniqueById(events: readonly AcceptedEvent[]): AcceptedEvent[] {
  const seen = new Set<string>();
  return events.filter((event) => (seen.has(event.id) ? false : (seen.add(event.id), true)));
}

export function toRow(
  projectId: string,
  event: AcceptedEvent,
  receivedAt: Date,
  schema: ArgumentSchema | undefined,
): StoredEventRow {
  return {
    id: event.id,
    tool: event.tool,
    status: event.status,
    arguments: event.arguments ?? null,
    result: event.result ?? null,
    errorType: event.error?.type ?? null,
    errorMessage: event.error?.message ?? null,
    errorStack: event.error?.stack ?? null,
    durationMs: event.durationMs ?? null,
    occurredAt: new Date(event.occurredAt),
    receivedAt,
    agent: event.agent ?? null,
    model: event.model ?? null,
    framework: event.framework ?? null,
    sessionId: event.sessionId ?? null,
    traceId: event.traceId ?? null,
    runId: event.runId ?? null,
    toolCallId: event.toolCallId ?? null,
    descriptionVersion: event.descriptionVersion ?? null,
    prompt: event.prompt ?? null,
    metadata: event.metadata ?? null,
    diagnosis: event.status === 'error' && event.error ? diagnoseEvent(projectId, event, schema) : null,
  };
}

function diagnoseEvent(projectId: string, event: AcceptedEvent, schema: ArgumentSchema | undefined): EventDiagnosis {
  const error = event.error!;
  const diagnosis = diagnose({ tool: event.tool, arguments: event.arguments, error, schema: schema ?? null });
  const messageTemplate = normalizeMessageTemplate(error.message);
  const fingerprint = computeFingerprint({
    tool: event.tool,
    category: diagnosis.category,
    subtype: diagnosis.subtype,
    argumentPath: diagnosis.argumentPath,
    messageTemplate,
  });
  return { ...diagnosis, messageTemplate, fingerprint, errorGroupId: errorGroupIdFor(projectId, fingerprint) };
}
