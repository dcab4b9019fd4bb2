import { RESULT_FAILURE_RULES, ResultFailureRule } from '../diagnosis';
import { AcceptedEvent } from '../infra/queue/queue.payloads';

/** An event as the worker stores it: `resultRule` when a rule read its reported success as a failure. */
export type WorkerEvent = AcceptedEvent & { resultRule?: ResultFailureRule };

/**
 * A call reported as a success whose result matched a rule the project has on becomes a failure here, before
 * anything is diagnosed or counted: status, error groups, rollups, the nightly and every effect then agree on it. The
 * result is kept, and `resultRule` says which rule decided, so the original report stays visible. Pure.
 */
export function withResultFailure(event: AcceptedEvent, disabledRules: ReadonlySet<ResultFailureRule> | undefined): WorkerEvent {
  const failure = event.resultFailure;
  if (event.status !== 'success' || !failure) return event;
  const rule = RESULT_FAILURE_RULES.find((known) => failure.rules.includes(known) && !disabledRules?.has(known));
  if (!rule) return event;
  return { ...event, status: 'error', error: { type: failure.type, message: failure.message }, resultRule: rule };
}
