import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ArgumentSchema, computeFingerprint, diagnose, normalizeMessageTemplate } from '../diagnosis';
import { SharedTimeSlice } from '../infra/event-loop/shared-time-slice';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
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
import { withResultFailure, WorkerEvent } from './reported-failure';
import { ResultFailurePolicyRepository } from './result-failure-policy.repository';
import { labelledDiagnosis } from './template-labels';
import { UnknownLaneRepository } from './unknown-lane.repository';
import { unknownTemplateIdFor, unknownTemplateOf } from './unknown-template-id';
import { classifyWriteFailure } from './write-failure';
import { EntryOutcome, WriteGroups } from './write-groups';

export interface BatchOutcome {
  received: number;
  stored: number;
  duplicates: number;
  deadLettered: number;
  /** How many queued batches (this one included) were written in the same transaction. */
  groupBatches: number;
}

/** A batch of one job, waiting for its group's transaction; its events are diagnosed with the group's. */
interface PreparedBatch {
  jobId: string;
  payload: CategorizeBatchPayload;
  receivedAt: Date;
  /** The batch's events, one per id as stored: ids Postgres would store alike are one event. */
  byId: Map<string, AcceptedEvent>;
}

/** One event of a group, with the batch it came in. */
interface GroupRow {
  batch: PreparedBatch;
  row: StoredEventRow;
}

@Injectable()
export class CategorizeService {
  private readonly logger: Logger;
  private readonly groups: WriteGroups<PreparedBatch, BatchOutcome>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly registry: RegistryService,
    private readonly repository: CategorizeRepository,
    private readonly deadLetters: DeadLetterService,
    private readonly resultFailurePolicies: ResultFailurePolicyRepository,
    private readonly unknownLane: UnknownLaneRepository,
    private readonly timeSlice: SharedTimeSlice,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'CategorizeService' });
    this.groups = new WriteGroups(
      {
        maxEntries: config.workerGroupMaxBatches,
        // the work of a group's transaction (inserts, aggregation) grows with its events, not its batches
        maxWeight: config.workerGroupMaxEvents,
        weightOf: (batch) => batch.byId.size,
        maxWaitMs: config.workerGroupWaitMs,
        maxConcurrentWrites: config.workerConcurrency,
        // a project's flood held by this worker cannot make another project's batch wait for more than the next group
        ownerOf: (batch) => batch.payload.projectId,
        // and one write slot is always left to the other projects, so their batch never waits for a flood's group
        maxWritesPerOwner: Math.max(1, config.workerConcurrency - 1),
      },
      (batches) => this.writeGroup(batches),
    );
  }

  /**
   * Queues a batch for the transaction of its group: the batches of other jobs that came within the group's wait. The
   * group's error events are diagnosed together, with the argument schemas of their tools looked up once per project
   * for the whole group, then events, groups and rollups are stored, summed per hot row. When the database refuses the
   * data itself, the group is split until the refused events are isolated: those go to the dead-letter store under
   * their own job, with the reason, the rest of every batch is stored. Any other failure is thrown to every job of the
   * group, so each is retried with backoff.
   */
  async categorizeBatch(payload: CategorizeBatchPayload, jobId: string, { isAlone = false } = {}): Promise<BatchOutcome> {
    const byId = new Map<string, AcceptedEvent>();
    for (const event of payload.events) {
      const id = columnText(event.id, COLUMN_CHARS.eventId);
      if (!byId.has(id)) byId.set(id, event);
    }
    const batch = { jobId, payload, receivedAt: new Date(payload.receivedAt), byId };
    return isAlone ? this.groups.writeAlone(batch) : this.groups.submit(batch);
  }

  private async writeGroup(batches: PreparedBatch[]): Promise<Array<EntryOutcome<BatchOutcome>>> {
    const groupRows = await this.diagnoseGroup(batches);
    const stored = new Map<PreparedBatch, number>(batches.map((batch) => [batch, 0]));
    const refused = new Map<PreparedBatch, RefusedEvent[]>(batches.map((batch) => [batch, []]));
    await this.storeIsolatingPoison(groupRows, stored, refused);
    return Promise.all(
      batches.map(async (batch): Promise<EntryOutcome<BatchOutcome>> => {
        const poison = refused.get(batch)!;
        try {
          if (poison.length > 0) {
            await this.deadLetters.parkRefusedEvents(batch.jobId, batch.payload, poison);
            this.logger.warn(
              { jobId: batch.jobId, poison: poison.length, reason: poison[0].reason },
              'events refused by the database were dead-lettered',
            );
          }
        } catch (error) {
          // its stored events stay stored; the retry stores nothing twice and parks the refused ones again
          return { isWritten: false, error };
        }
        const received = batch.payload.events.length;
        const storedEvents = stored.get(batch)!;
        return {
          isWritten: true,
          value: {
            received,
            stored: storedEvents,
            duplicates: received - storedEvents - poison.length,
            deadLettered: poison.length,
            groupBatches: batches.length,
          },
        };
      }),
    );
  }

  /**
   * The group's events in column form, each diagnosed. The schemas are read after every batch of the group was taken,
   * in one query per project (a registry lookup per batch cost more CPU than the batch's inserts, issue 18).
   */
  private async diagnoseGroup(batches: PreparedBatch[]): Promise<GroupRow[]> {
    // an event two batches of the group both carry (a re-sent batch) is written with the first, a duplicate in the other
    const isInGroup = new Set<string>();
    const events: Array<{ batch: PreparedBatch; event: WorkerEvent }> = [];
    const errorTools = new Map<string, Set<string>>();
    const addErrorTool = (projectId: string, tool: string) => {
      const tools = errorTools.get(projectId) ?? new Set<string>();
      tools.add(tool);
      errorTools.set(projectId, tools);
    };
    const resultFailureProjects = new Set<string>();
    for (const batch of batches) {
      const { projectId } = batch.payload;
      for (const [id, event] of batch.byId) {
        const key = `${projectId}\u0000${id}`;
        if (isInGroup.has(key)) continue;
        isInGroup.add(key);
        events.push({ batch, event });
        if (event.status === 'error') addErrorTool(projectId, event.tool);
        else if (event.resultFailure) resultFailureProjects.add(projectId);
      }
    }
    // the projects' policies are read only for a group that holds a result failure, once for all its projects
    if (resultFailureProjects.size > 0) {
      const disabled = await this.resultFailurePolicies.findDisabledRules([...resultFailureProjects]);
      for (const entry of events) {
        if (!entry.event.resultFailure || entry.event.status !== 'success') continue;
        const { projectId } = entry.batch.payload;
        entry.event = withResultFailure(entry.event, disabled.get(projectId));
        if (entry.event.status === 'error') addErrorTool(projectId, entry.event.tool);
      }
    }
    const schemas = new Map<string, Map<string, ArgumentSchema>>();
    for (const [projectId, tools] of errorTools) schemas.set(projectId, await this.registry.findArgumentSchemas(projectId, [...tools]));
    const groupRows: GroupRow[] = [];
    for (const { batch, event } of events) {
      // a diagnosis may spend its whole validation budget on a user's schema: requests and health checks go between
      // (checked first: awaiting for every event cost about 1 µs each, issue 18)
      if (this.timeSlice.isDue()) await this.timeSlice.yieldIfDue();
      const { projectId } = batch.payload;
      groupRows.push({ batch, row: toRow(projectId, event, batch.receivedAt, schemas.get(projectId)?.get(event.tool)) });
    }
    await this.applyTemplateLabels(groupRows);
    return groupRows;
  }

  /**
   * The unknown lane (docs/unknown-lane.md): an `unknown` failure whose message template a person labelled is stored
   * with the label's category. Looked up only for a group that holds an `unknown` failure, in one query.
   */
  private async applyTemplateLabels(groupRows: GroupRow[]): Promise<void> {
    const unknown = groupRows
      .filter(({ row }) => row.diagnosis?.category === 'unknown')
      .map((groupRow) => {
        const { projectId } = groupRow.batch.payload;
        return { groupRow, projectId, templateId: unknownTemplateIdFor(projectId, unknownTemplateOf(groupRow.row.errorMessage)) };
      });
    if (unknown.length === 0) return;
    const labels = await this.unknownLane.findLabels(unknown);
    for (const { groupRow, projectId, templateId } of unknown) {
      const label = labels.get(`${projectId}\u0000${templateId}`);
      const { row } = groupRow;
      if (label && row.diagnosis)
        groupRow.row = { ...row, diagnosis: labelledDiagnosis(projectId, { ...row, diagnosis: row.diagnosis }, label) };
    }
  }

  private async storeIsolatingPoison(
    groupRows: GroupRow[],
    stored: Map<PreparedBatch, number>,
    refused: Map<PreparedBatch, RefusedEvent[]>,
  ): Promise<void> {
    if (groupRows.length === 0) return;
    try {
      await this.writeRows(groupRows, stored);
    } catch (error) {
      const failure = classifyWriteFailure(error);
      if (!failure.isPoison) throw error;
      if (groupRows.length === 1) {
        const [{ batch, row }] = groupRows;
        refused.get(batch)!.push({ event: batch.byId.get(row.id)!, reason: failure.reason });
        return;
      }
      const half = Math.ceil(groupRows.length / 2);
      await this.storeIsolatingPoison(groupRows.slice(0, half), stored, refused);
      await this.storeIsolatingPoison(groupRows.slice(half), stored, refused);
    }
  }

  /** One transaction for the rows of every project in the group; counts what each batch inserted. */
  private async writeRows(groupRows: GroupRow[], stored: Map<PreparedBatch, number>): Promise<void> {
    const byProject = new Map<string, GroupRow[]>();
    for (const groupRow of groupRows) {
      const projectId = groupRow.batch.payload.projectId;
      const rows = byProject.get(projectId) ?? [];
      rows.push(groupRow);
      byProject.set(projectId, rows);
    }
    const parts = [...byProject.entries()].map(([projectId, rows]) => ({ projectId, rows: rows.map((r) => r.row) }));
    const inserted = await this.repository.writeGroup(parts, (rows) => aggregateBatch(rows));
    [...byProject.values()].forEach((rows, index) => {
      for (const { batch, row } of rows) if (inserted[index].has(row.id)) stored.set(batch, stored.get(batch)! + 1);
    });
  }
}

export function toRow(projectId: string, event: WorkerEvent, receivedAt: Date, schema: ArgumentSchema | undefined): StoredEventRow {
  const occurredAt = new Date(event.occurredAt);
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
    occurredAt,
    occurredAtText: instantText(event.occurredAt, occurredAt),
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
    correction: event.correction ?? null,
    prevented: event.prevented === true,
    resultRule: event.resultRule ?? null,
    diagnosis: event.status === 'error' && event.error ? diagnoseEvent(projectId, event, schema) : null,
  };
}

/** The evidence of a failure a result-failure rule read from a reported success (docs/result-failures.md). */
export const RESULT_EVIDENCE = 'result';

// The API writes every instant with toISOString (src/ingest/event-normalizer.ts)
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * What `date.toISOString()` gives, `date` having been parsed from `text`: `text` itself when it is already that, which
 * saves formatting every event's instant again (about 1 µs each, issue 18). JavaScript rolls a day past the month's
 * end or hour 24 over into the next (Feb 30 is Mar 2); such a text, whose day or hour did not survive, is formatted.
 */
export function instantText(text: string, date: Date): string {
  if (ISO_INSTANT.test(text) && date.getUTCDate() === Number(text.slice(8, 10)) && date.getUTCHours() === Number(text.slice(11, 13))) {
    return text;
  }
  return date.toISOString();
}

function diagnoseEvent(projectId: string, event: WorkerEvent, schema: ArgumentSchema | undefined): EventDiagnosis {
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
  // one literal with every field, not `{ ...diagnosis, more }`: that costs V8 an old-space allocation an event (docs/perf.md)
  return {
    category: diagnosis.category,
    subtype: diagnosis.subtype,
    // a failure read from the result says so, whatever decided its category (the rule is stored beside it)
    evidence: event.resultRule === undefined ? diagnosis.evidence : RESULT_EVIDENCE,
    offendingValue: diagnosis.offendingValue,
    arrayForScalar: diagnosis.arrayForScalar,
    argumentPath: diagnosis.argumentPath === null ? null : columnText(diagnosis.argumentPath, COLUMN_CHARS.argumentPath),
    wrongArgument: diagnosis.wrongArgument === null ? null : columnText(diagnosis.wrongArgument, COLUMN_CHARS.argumentName),
    intendedArgument: diagnosis.intendedArgument === null ? null : columnText(diagnosis.intendedArgument, COLUMN_CHARS.argumentName),
    messageTemplate,
    fingerprint,
    errorGroupId: errorGroupIdFor(projectId, fingerprint),
  };
}
