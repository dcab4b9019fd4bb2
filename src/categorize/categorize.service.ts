import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ArgumentSchema, computeFingerprint, diagnose, normalizeMessageTemplate } from '../diagnosis';
import { SharedTimeSlice } from '../infra/event-loop/shared-time-slice';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { RefusedEvent } from '../infra/queue/dead-letters/dead-letter.entry';
import { DeadLetterService } from '../infra/queue/dead-letters/dead-letter.service';
import { AcceptedEvent, CategorizeBatchPayload } from '../infra/queue/queue.payloads';
import { RegistryService } from '../registry/registry.service';
import { aggregateBatch } from './batch-aggregates';
import { CategorizeRepository } from './categorize.repository';
import { COLUMN_CHARS, columnText } from './column-text';
import { errorGroupIdFor } from './error-group-id';
import { EventDiagnosis, StoredEventRow } from './stored-event';
import { classifyWriteFailure } from './write-failure';

export interface BatchOutcome {
  received: number;
  stored: number;
  duplicates: number;
  deadLettered: number;
}

@Injectable()
export class CategorizeService {
  private readonly logger: Logger;

  constructor(
    private readonly registry: RegistryService,
    private readonly repository: CategorizeRepository,
    private readonly deadLetters: DeadLetterService,
    private readonly timeSlice: SharedTimeSlice,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'CategorizeService' });
  }

  /**
   * Diagnoses every error event of a batch and stores events, groups and rollups in one transaction. When the database
   * refuses the data itself, the batch is split until the refused events are isolated: those go to the dead-letter
   * queue with the reason, the rest is stored. Any other failure is thrown, so the job is retried with backoff.
   */
  async categorizeBatch(payload: CategorizeBatchPayload, jobId: string): Promise<BatchOutcome> {
    const errorTools = [...new Set(payload.events.filter((e) => e.status === 'error').map((e) => e.tool))];
    const schemas = await this.registry.findArgumentSchemas(payload.projectId, errorTools);
    const receivedAt = new Date(payload.receivedAt);
    // keyed by the id as stored: ids Postgres would store alike are one event
    const byId = new Map<string, AcceptedEvent>();
    const rows: StoredEventRow[] = [];
    for (const event of payload.events) {
      // a diagnosis may spend its whole validation budget on a user's schema: requests and health checks go between
      await this.timeSlice.yieldIfDue();
      const row = toRow(payload.projectId, event, receivedAt, schemas.get(event.tool));
      if (byId.has(row.id)) continue;
      byId.set(row.id, event);
      rows.push(row);
    }
    const poison: RefusedEvent[] = [];
    const stored = await this.storeIsolatingPoison(payload.projectId, rows, byId, poison);
    if (poison.length > 0) {
      await this.deadLetters.parkRefusedEvents(jobId, payload, poison);
      this.logger.warn({ jobId, poison: poison.length, reason: poison[0].reason }, 'events refused by the database were dead-lettered');
    }
    return {
      received: payload.events.length,
      stored,
      duplicates: payload.events.length - stored - poison.length,
      deadLettered: poison.length,
    };
  }

  private async storeIsolatingPoison(
    projectId: string,
    rows: StoredEventRow[],
    byId: Map<string, AcceptedEvent>,
    poison: RefusedEvent[],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    try {
      return await this.repository.writeBatch(projectId, rows, (inserted) => aggregateBatch(inserted));
    } catch (error) {
      const failure = classifyWriteFailure(error);
      if (!failure.isPoison) throw error;
      if (rows.length === 1) {
        poison.push({ event: byId.get(rows[0].id)!, reason: failure.reason });
        return 0;
      }
      const half = Math.ceil(rows.length / 2);
      const first = await this.storeIsolatingPoison(projectId, rows.slice(0, half), byId, poison);
      return first + (await this.storeIsolatingPoison(projectId, rows.slice(half), byId, poison));
    }
  }
}

export function toRow(projectId: string, event: AcceptedEvent, receivedAt: Date, schema: ArgumentSchema | undefined): StoredEventRow {
  return {
    id: columnText(event.id, COLUMN_CHARS.eventId),
    tool: columnText(event.tool, COLUMN_CHARS.tool),
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
  // diagnose never throws: input it cannot read is `unknown`, so no event is lost to a categorizer bug
  const diagnosis = diagnose({ tool: event.tool, arguments: event.arguments, error, schema: schema ?? null });
  const messageTemplate = normalizeMessageTemplate(error.message);
  const fingerprint = computeFingerprint({
    tool: event.tool,
    category: diagnosis.category,
    subtype: diagnosis.subtype,
    argumentPath: diagnosis.argumentPath,
    messageTemplate,
  });
  return {
    ...diagnosis,
    argumentPath: diagnosis.argumentPath === null ? null : columnText(diagnosis.argumentPath, COLUMN_CHARS.argumentPath),
    wrongArgument: diagnosis.wrongArgument === null ? null : columnText(diagnosis.wrongArgument, COLUMN_CHARS.argumentName),
    intendedArgument: diagnosis.intendedArgument === null ? null : columnText(diagnosis.intendedArgument, COLUMN_CHARS.argumentName),
    messageTemplate,
    fingerprint,
    errorGroupId: errorGroupIdFor(projectId, fingerprint),
  };
}
