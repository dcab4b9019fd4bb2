import type { ErrorGroupRecord, SampleEventRecord } from './error-group.queries';

/** What a human may set; `regressed` is only ever set by the worker when a resolved group recurs. */
export const SETTABLE_GROUP_STATUSES = ['open', 'resolved', 'ignored'] as const;
export const GROUP_STATUSES = [...SETTABLE_GROUP_STATUSES, 'regressed'] as const;

export function toErrorGroupView(group: ErrorGroupRecord) {
  return {
    id: group.id,
    tool: group.tool,
    category: group.category,
    subtype: group.subtype,
    argumentPath: group.argumentPath,
    messageTemplate: group.messageTemplate,
    count: Number(group.count),
    firstSeen: group.firstSeen,
    lastSeen: group.lastSeen,
    status: group.status,
    intendedArgument: group.intendedArgument,
    arrayForScalarCount: Number(group.arrayForScalarCount),
    minOffendingValue: group.minOffendingValue,
    maxOffendingValue: group.maxOffendingValue,
  };
}

export function toSampleView(event: SampleEventRecord) {
  return {
    id: event.id,
    occurredAt: event.occurredAt,
    agent: event.agent,
    model: event.model,
    descriptionVersion: event.descriptionVersion,
    arguments: event.arguments,
    error: event.errorMessage === null ? null : { type: event.errorType, message: event.errorMessage },
    wrongArgument: event.wrongArgument,
    intendedArgument: event.intendedArgument,
    offendingValue: event.offendingValue,
  };
}

/**
 * The argument values that failed: for each sample, the value at the group's argument path (a JSON Pointer such as
 * `/numbers` or `/items/0/n`), or all arguments when the group has no path or the sample lacks it.
 */
export function failedArgumentValues(argumentPath: string | null, samples: readonly SampleEventRecord[]) {
  return samples.map((sample) => {
    const found = argumentPath ? valueAtPointer(sample.arguments, argumentPath) : { isFound: false as const };
    return found.isFound
      ? { eventId: sample.id, path: argumentPath, value: found.value }
      : { eventId: sample.id, path: '', value: sample.arguments ?? null };
  });
}

/** RFC 6901 lookup; `isFound` is false when a segment is missing. */
export function valueAtPointer(document: unknown, pointer: string): { isFound: true; value: unknown } | { isFound: false } {
  if (pointer === '') return { isFound: true, value: document };
  if (!pointer.startsWith('/')) return { isFound: false };
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key)) {
      return { isFound: false };
    }
    current = (current as Record<string, unknown>)[key];
  }
  return { isFound: true, value: current };
}
