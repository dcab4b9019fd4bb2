import { Category, ResultFailureRule, Subtype } from '../diagnosis';

/** One event as the worker writes it: what was accepted plus what the diagnosis found. */
export interface StoredEventRow {
  id: string;
  tool: string;
  status: 'success' | 'error';
  arguments: unknown;
  result: unknown;
  errorType: string | null;
  errorMessage: string | null;
  errorStack: string | null;
  durationMs: number | null;
  occurredAt: Date;
  /** occurredAt as toISOString() writes it, the text stored. */
  occurredAtText: string;
  receivedAt: Date;
  agent: string | null;
  model: string | null;
  framework: string | null;
  sessionId: string | null;
  traceId: string | null;
  runId: string | null;
  toolCallId: string | null;
  descriptionVersion: number | null;
  prompt: string | null;
  metadata: Record<string, unknown> | null;
  correction: { original: unknown; corrected: unknown; kinds: string[] } | null;
  prevented: boolean;
  /** The result-failure rule that read this reported success as a failure; null for every other event. */
  resultRule: ResultFailureRule | null;
  diagnosis: EventDiagnosis | null;
}

export interface EventDiagnosis {
  category: Category;
  subtype: Subtype | null;
  argumentPath: string | null;
  evidence: string;
  wrongArgument: string | null;
  intendedArgument: string | null;
  offendingValue: number | null;
  arrayForScalar: boolean;
  messageTemplate: string;
  fingerprint: string;
  errorGroupId: string;
}
