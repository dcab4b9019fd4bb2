import { LATENCY_BUCKET_BOUNDS_MS, latencyBucketIndex } from '../diagnosis';
import { COLUMN_CHARS, columnText } from './column-text';
import { EventDiagnosis, StoredEventRow } from './stored-event';
import { unknownTemplateOf } from './unknown-template-id';

/** What one batch adds to each table the worker maintains besides events; see aggregateBatch. */
export interface BatchAggregates {
  groups: ErrorGroupDelta[];
  hourly: HourlyRollupDelta[];
  hourlyErrors: HourlyErrorRollupDelta[];
  argumentRanges: ArgumentRangeDelta[];
  versions: VersionRollupDelta[];
  mistakes: MistakeRollupDelta[];
  dimensions: DimensionRollupDelta[];
  unknownTemplates: UnknownTemplateDelta[];
}

/**
 * Folds newly stored events into per-group, per-hour and per-day increments, one fold per table. Each result is sorted
 * by its key, so concurrent batches lock rows in the same order and cannot deadlock.
 */
export function aggregateBatch(rows: readonly StoredEventRow[]): BatchAggregates {
  const errors = rows.filter(isDiagnosedError);
  return {
    groups: foldErrorGroups(errors),
    hourly: foldHourlyRollups(rows),
    hourlyErrors: foldHourlyErrorRollups(errors),
    argumentRanges: foldArgumentRanges(rows),
    versions: foldVersionRollups(rows),
    mistakes: foldMistakeRollups(errors),
    dimensions: foldDimensionRollups(rows),
    unknownTemplates: foldUnknownTemplates(errors),
  };
}

/** An error event the categorizer diagnosed: only these count as errors in groups and rollups. */
type DiagnosedError = StoredEventRow & { status: 'error'; diagnosis: EventDiagnosis };

const isDiagnosedError = (row: StoredEventRow): row is DiagnosedError => row.status === 'error' && row.diagnosis !== null;

const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

/** Start of the UTC hour an instant falls in, in ms since the epoch. */
const hourStartMs = (instant: Date) => Math.floor(instant.getTime() / MS_PER_HOUR) * MS_PER_HOUR;

/** Start of the UTC hour an instant falls in. */
export function hourOf(instant: Date): Date {
  return new Date(hourStartMs(instant));
}

// the days of the last few batches: formatting a date (toISOString) for every event was a tenth of the fold's CPU
const dayTexts = new Map<number, string>();
const MAX_DAY_TEXTS = 64;

/** The UTC calendar day of an instant, as YYYY-MM-DD. */
export function dayOf(instant: Date): string {
  const day = Math.floor(instant.getTime() / MS_PER_DAY);
  let text = dayTexts.get(day);
  if (text === undefined) {
    text = instant.toISOString().slice(0, 10);
    if (dayTexts.size >= MAX_DAY_TEXTS) dayTexts.clear();
    dayTexts.set(day, text);
  }
  return text;
}

// Keys join their parts with NUL, which no part contains; the order of keys is the order rows are locked in.
const hourKeyOf = (row: StoredEventRow) => `${row.tool}\u0000${hourStartMs(row.occurredAt)}`;
const versionKeyOf = (row: StoredEventRow) => `${row.tool}\u0000${dayOf(row.occurredAt)}\u0000${row.descriptionVersion ?? 0}`;

// ---- error groups -------------------------------------------------------------------------------------------------

export const SAMPLE_EVENTS_PER_GROUP = 5;

/**
 * An error group as the worker accumulates it in error_groups and the nightly job reads it back as evidence: what
 * went wrong, how often, when, and what the diagnoses extracted.
 */
export interface ErrorGroupRow {
  id: string;
  category: string;
  subtype: string | null;
  argumentPath: string | null;
  messageTemplate: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  sampleEventIds: string[];
  intendedArgument: string | null;
  arrayForScalarCount: number;
  minOffendingValue: number | null;
  maxOffendingValue: number | null;
}

/** A batch's contribution to one error group, keyed by its fingerprint. */
export interface ErrorGroupDelta extends ErrorGroupRow {
  fingerprint: string;
  tool: string;
}

function foldErrorGroups(errors: readonly DiagnosedError[]): ErrorGroupDelta[] {
  return foldByKey(
    errors,
    (row) => row.diagnosis.fingerprint,
    ({ tool, occurredAt, diagnosis }): ErrorGroupDelta => ({
      id: diagnosis.errorGroupId,
      fingerprint: diagnosis.fingerprint,
      tool,
      category: diagnosis.category,
      subtype: diagnosis.subtype,
      argumentPath: diagnosis.argumentPath,
      messageTemplate: diagnosis.messageTemplate,
      count: 0,
      firstSeen: occurredAt,
      lastSeen: occurredAt,
      sampleEventIds: [],
      intendedArgument: null,
      arrayForScalarCount: 0,
      minOffendingValue: null,
      maxOffendingValue: null,
    }),
    (group, { id, occurredAt, diagnosis }) => {
      group.count += 1;
      if (occurredAt < group.firstSeen) group.firstSeen = occurredAt;
      if (occurredAt > group.lastSeen) group.lastSeen = occurredAt;
      if (group.sampleEventIds.length < SAMPLE_EVENTS_PER_GROUP) group.sampleEventIds.push(id);
      group.intendedArgument ??= diagnosis.intendedArgument;
      if (diagnosis.arrayForScalar) group.arrayForScalarCount += 1;
      const value = diagnosis.offendingValue;
      if (value !== null) {
        group.minOffendingValue = group.minOffendingValue === null ? value : Math.min(group.minOffendingValue, value);
        group.maxOffendingValue = group.maxOffendingValue === null ? value : Math.max(group.maxOffendingValue, value);
      }
    },
  );
}

// ---- hourly rollups -----------------------------------------------------------------------------------------------

export interface HourlyRollupDelta {
  tool: string;
  hour: Date;
  calls: number;
  errors: number;
  latencyCount: number;
  latencySumMs: number;
  latencyBuckets: number[];
}

/**
 * A duration counts into latency sums as at most this (31 years): at most 2^31 of them per rollup row (an int count)
 * then sum to about 2e21, so a float8 sum can never overflow, whatever an event reports.
 */
export const MAX_ROLLUP_DURATION_MS = 1e12;

function foldHourlyRollups(rows: readonly StoredEventRow[]): HourlyRollupDelta[] {
  return foldByKey(
    rows,
    hourKeyOf,
    (row) => ({
      tool: row.tool,
      hour: hourOf(row.occurredAt),
      calls: 0,
      errors: 0,
      latencyCount: 0,
      latencySumMs: 0,
      latencyBuckets: new Array<number>(LATENCY_BUCKET_BOUNDS_MS.length + 1).fill(0),
    }),
    (rollup, row) => {
      rollup.calls += 1;
      if (isDiagnosedError(row)) rollup.errors += 1;
      if (row.durationMs === null) return;
      rollup.latencyCount += 1;
      rollup.latencySumMs += Math.min(Math.max(row.durationMs, 0), MAX_ROLLUP_DURATION_MS);
      rollup.latencyBuckets[latencyBucketIndex(row.durationMs)] += 1;
    },
  );
}

export interface HourlyErrorRollupDelta {
  tool: string;
  hour: Date;
  category: string;
  /** '' for categories without subtypes: the column is part of the key. */
  subtype: string;
  count: number;
}

function foldHourlyErrorRollups(errors: readonly DiagnosedError[]): HourlyErrorRollupDelta[] {
  return foldByKey(
    errors,
    (row) => `${hourKeyOf(row)}\u0000${row.diagnosis.category}\u0000${row.diagnosis.subtype ?? ''}`,
    ({ tool, occurredAt, diagnosis }) => ({
      tool,
      hour: hourOf(occurredAt),
      category: diagnosis.category,
      subtype: diagnosis.subtype ?? '',
      count: 0,
    }),
    (rollup) => {
      rollup.count += 1;
    },
  );
}

// ---- argument value ranges ----------------------------------------------------------------------------------------

/** Numeric top-level arguments of successful calls: what a tool is known to accept (to learn unstated limits). */
export interface ArgumentRangeDelta {
  tool: string;
  argumentPath: string;
  successCount: number;
  minValue: number;
  maxValue: number;
}

// bounds the work one odd event (hundreds of numeric arguments) can cause
const MAX_RANGED_ARGUMENTS_PER_EVENT = 20;

function foldArgumentRanges(rows: readonly StoredEventRow[]): ArgumentRangeDelta[] {
  const values = rows.filter((row) => row.status === 'success').flatMap(numericArguments);
  return foldByKey(
    values,
    ({ tool, argumentPath }) => `${tool}\u0000${argumentPath}`,
    ({ tool, argumentPath, value }) => ({ tool, argumentPath, successCount: 0, minValue: value, maxValue: value }),
    (range, { value }) => {
      range.successCount += 1;
      range.minValue = Math.min(range.minValue, value);
      range.maxValue = Math.max(range.maxValue, value);
    },
  );
}

// the paths of the argument names of the last few batches: names repeat across calls of a tool, and escaping and
// cutting one for every event was a tenth of the fold's CPU (issue 18)
const argumentPaths = new Map<string, string>();
const MAX_ARGUMENT_PATHS = 1000;

/** A top-level argument's path as stored: JSON Pointer, in column form. */
function argumentPathOf(name: string): string {
  let path = argumentPaths.get(name);
  if (path === undefined) {
    path = columnText(`/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, COLUMN_CHARS.argumentPath);
    if (argumentPaths.size >= MAX_ARGUMENT_PATHS) argumentPaths.clear();
    // a name longer than a path can be is not remembered: the memory stays bounded by the cap times the column's size
    if (name.length < COLUMN_CHARS.argumentPath) argumentPaths.set(name, path);
  }
  return path;
}

/** The finite numeric top-level arguments of an event, by their path as stored (JSON Pointer, in column form). */
function numericArguments(row: StoredEventRow): Array<{ tool: string; argumentPath: string; value: number }> {
  const args = row.arguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [];
  const numeric: Array<{ tool: string; argumentPath: string; value: number }> = [];
  for (const [name, value] of Object.entries(args)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    // an event past the cap keeps the ranges of its first arguments
    if (numeric.length === MAX_RANGED_ARGUMENTS_PER_EVENT) break;
    numeric.push({ tool: row.tool, argumentPath: argumentPathOf(name), value });
  }
  return numeric;
}

// ---- daily rollups per description version ------------------------------------------------------------------------

/** Calls per description version and UTC day (version 0: not reported), to measure a warning's effect. */
export interface VersionRollupDelta {
  tool: string;
  day: string;
  descriptionVersion: number;
  calls: number;
  errors: number;
  /** Of the calls, those the SDK guard ran with corrected arguments, and those it refused (issue 22). */
  corrected: number;
  prevented: number;
}

function foldVersionRollups(rows: readonly StoredEventRow[]): VersionRollupDelta[] {
  return foldByKey(
    rows,
    versionKeyOf,
    (row) => ({
      tool: row.tool,
      day: dayOf(row.occurredAt),
      descriptionVersion: row.descriptionVersion ?? 0,
      calls: 0,
      errors: 0,
      corrected: 0,
      prevented: 0,
    }),
    (rollup, row) => {
      rollup.calls += 1;
      if (isDiagnosedError(row)) rollup.errors += 1;
      if (row.correction !== null) rollup.corrected += 1;
      if (row.prevented) rollup.prevented += 1;
    },
  );
}

/** Mistakes (category, subtype, argument path) per description version and day. */
export interface MistakeRollupDelta {
  tool: string;
  day: string;
  descriptionVersion: number;
  category: string;
  /** '' for no subtype and no argument path: both columns are part of the key. */
  subtype: string;
  argumentPath: string;
  count: number;
  /** Of the count, the mistakes the SDK guard refused before the tool ran. */
  prevented: number;
}

function foldMistakeRollups(errors: readonly DiagnosedError[]): MistakeRollupDelta[] {
  return foldByKey(
    errors,
    (row) =>
      `${versionKeyOf(row)}\u0000${row.diagnosis.category}\u0000${row.diagnosis.subtype ?? ''}\u0000${row.diagnosis.argumentPath ?? ''}`,
    ({ tool, occurredAt, descriptionVersion, diagnosis }) => ({
      tool,
      day: dayOf(occurredAt),
      descriptionVersion: descriptionVersion ?? 0,
      category: diagnosis.category,
      subtype: diagnosis.subtype ?? '',
      argumentPath: diagnosis.argumentPath ?? '',
      count: 0,
      prevented: 0,
    }),
    (mistake, row) => {
      mistake.count += 1;
      if (row.prevented) mistake.prevented += 1;
    },
  );
}

// ---- hourly rollups by agent and by model --------------------------------------------------------------------------

export type RollupDimension = 'agent' | 'model';

/** Calls, errors and errors per category of one agent (or model) with one tool in one hour; value '' is not reported. */
export interface DimensionRollupDelta {
  dimension: RollupDimension;
  value: string;
  tool: string;
  hour: Date;
  calls: number;
  errors: number;
  errorCategories: Record<string, number>;
}

function foldDimensionRollups(rows: readonly StoredEventRow[]): DimensionRollupDelta[] {
  // every agent key sorts before every model key (they start 'agent\0' and 'model\0'), so the two folds in a row are
  // in the order of one fold over both
  return [...foldDimension(rows, 'agent', (row) => row.agent), ...foldDimension(rows, 'model', (row) => row.model)];
}

function foldDimension(
  rows: readonly StoredEventRow[],
  dimension: RollupDimension,
  valueOf: (row: StoredEventRow) => string | null,
): DimensionRollupDelta[] {
  return foldByKey(
    rows,
    (row) => `${dimension}\u0000${hourStartMs(row.occurredAt)}\u0000${valueOf(row) ?? ''}\u0000${row.tool}`,
    (row): DimensionRollupDelta => ({
      dimension,
      value: valueOf(row) ?? '',
      tool: row.tool,
      hour: hourOf(row.occurredAt),
      calls: 0,
      errors: 0,
      errorCategories: {},
    }),
    (rollup, row) => {
      rollup.calls += 1;
      if (!isDiagnosedError(row)) return;
      rollup.errors += 1;
      rollup.errorCategories[row.diagnosis.category] = (rollup.errorCategories[row.diagnosis.category] ?? 0) + 1;
    },
  );
}

// ---- the unknown lane (docs/unknown-lane.md) ----------------------------------------------------------------------

/** A batch's `unknown` failures of one message template; the first one is the template's example. */
export interface UnknownTemplateDelta {
  template: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  sampleEventIds: string[];
  exampleTool: string;
  exampleErrorType: string | null;
  exampleMessage: string;
}

/** What of a message is kept as a template's example, in characters. */
export const MAX_EXAMPLE_MESSAGE_CHARS = 2000;

function foldUnknownTemplates(errors: readonly DiagnosedError[]): UnknownTemplateDelta[] {
  const unknown = errors.filter((row) => row.diagnosis.category === 'unknown');
  return foldByKey(
    unknown.map((row) => ({ row, template: unknownTemplateOf(row.errorMessage) })),
    ({ template }) => template,
    ({ row, template }): UnknownTemplateDelta => ({
      template,
      count: 0,
      firstSeen: row.occurredAt,
      lastSeen: row.occurredAt,
      sampleEventIds: [],
      exampleTool: row.tool,
      exampleErrorType: row.errorType === null ? null : columnText(row.errorType, COLUMN_CHARS.tool),
      exampleMessage: columnText(row.errorMessage ?? '', MAX_EXAMPLE_MESSAGE_CHARS),
    }),
    (group, { row }) => {
      group.count += 1;
      if (row.occurredAt < group.firstSeen) group.firstSeen = row.occurredAt;
      if (row.occurredAt > group.lastSeen) group.lastSeen = row.occurredAt;
      if (group.sampleEventIds.length < SAMPLE_EVENTS_PER_GROUP) group.sampleEventIds.push(row.id);
    },
  );
}

// ---- the fold -----------------------------------------------------------------------------------------------------

/** One total per key: started from the key's first item, then every item (the first too) added. Sorted by key. */
function foldByKey<Item, Total>(
  items: readonly Item[],
  keyOf: (item: Item) => string,
  start: (first: Item) => Total,
  add: (total: Total, item: Item) => void,
): Total[] {
  const totals = new Map<string, Total>();
  for (const item of items) {
    const key = keyOf(item);
    let total = totals.get(key);
    if (total === undefined) {
      total = start(item);
      totals.set(key, total);
    }
    add(total, item);
  }
  return [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, total]) => total);
}
