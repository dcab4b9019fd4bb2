// What each kind of alert rule watches, and whether it fires: pure functions of numbers the worker read from the
// hourly rollups, the error groups and the measured effects. One rule covers every tool of the project (or the ones
// it names); each subject that meets the condition is one incident.

export const RULE_KINDS = [
  'success_rate_below',
  'success_rate_drop',
  'new_error_group',
  'regressed_error_group',
  'warning_measured_worse',
  'unregistered_tool',
] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** Kinds whose threshold is a percentage; the others have none. */
export const KINDS_WITH_THRESHOLD: readonly RuleKind[] = ['success_rate_below', 'success_rate_drop'];

export interface RuleSettings {
  kind: RuleKind;
  /** Percent: success rate below it, or points of drop more than it. */
  threshold: number | null;
  minCalls: number;
}

export interface ToolWindow {
  tool: string;
  calls: number;
  errors: number;
  /** The 7 days before the window. */
  previousCalls: number;
  previousErrors: number;
}

export interface GroupSignal {
  id: string;
  tool: string;
  category: string;
  count: number;
  messageTemplate: string;
}

export interface WorseWarningSignal {
  recommendationId: string;
  tool: string;
  kind: string;
  effect: Record<string, unknown>;
}

export interface Signals {
  tools: ToolWindow[];
  newGroups: GroupSignal[];
  regressedGroups: GroupSignal[];
  worseWarnings: WorseWarningSignal[];
  unregisteredTools: Array<{ tool: string; calls: number }>;
}

export interface Firing {
  /** What the incident is about within its rule: `tool:<name>`, `group:<id>`, `recommendation:<id>`. */
  subject: string;
  tool: string | null;
  summary: string;
  details: Record<string, unknown>;
}

/** Untrusted names (tools, messages come from events) are quoted and cut, never pasted into prose as they are. */
export function quoted(text: string, maxChars = 120): string {
  return JSON.stringify(text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`);
}

function percent(rate: number): number {
  return Math.round(rate * 1000) / 10;
}

export function findFirings(rule: RuleSettings, signals: Signals): Firing[] {
  switch (rule.kind) {
    case 'success_rate_below':
      return signals.tools.flatMap((w) => {
        if (w.calls < rule.minCalls) return [];
        const rate = (w.calls - w.errors) / w.calls;
        if (percent(rate) >= rule.threshold!) return [];
        return [
          {
            subject: `tool:${w.tool}`,
            tool: w.tool,
            summary: `Tool ${quoted(w.tool)} succeeded in ${percent(rate)}% of ${w.calls} calls (below ${rule.threshold}%)`,
            details: { calls: w.calls, errors: w.errors, successRatePercent: percent(rate), thresholdPercent: rule.threshold },
          },
        ];
      });
    case 'success_rate_drop':
      return signals.tools.flatMap((w) => {
        if (w.calls < rule.minCalls || w.previousCalls < rule.minCalls) return [];
        const rate = percent((w.calls - w.errors) / w.calls);
        const previous = percent((w.previousCalls - w.previousErrors) / w.previousCalls);
        const dropPoints = Math.round((previous - rate) * 10) / 10;
        if (!(dropPoints > rule.threshold!)) return [];
        return [
          {
            subject: `tool:${w.tool}`,
            tool: w.tool,
            summary: `Tool ${quoted(w.tool)} success rate fell ${dropPoints} points to ${rate}% (previous 7 days: ${previous}%)`,
            details: {
              calls: w.calls,
              successRatePercent: rate,
              previousCalls: w.previousCalls,
              previousSuccessRatePercent: previous,
              dropPoints,
              thresholdPoints: rule.threshold,
            },
          },
        ];
      });
    case 'new_error_group':
      return signals.newGroups
        .filter((g) => g.count >= rule.minCalls)
        .map((g) => ({
          subject: `group:${g.id}`,
          tool: g.tool,
          summary: `New error group on ${quoted(g.tool)}: ${g.category}, ${g.count} events: ${quoted(g.messageTemplate)}`,
          details: { errorGroupId: g.id, category: g.category, count: g.count },
        }));
    case 'regressed_error_group':
      return signals.regressedGroups.map((g) => ({
        subject: `group:${g.id}`,
        tool: g.tool,
        summary: `Resolved error group on ${quoted(g.tool)} occurs again: ${g.category}: ${quoted(g.messageTemplate)}`,
        details: { errorGroupId: g.id, category: g.category, count: g.count },
      }));
    case 'warning_measured_worse':
      return signals.worseWarnings.map((w) => ({
        subject: `recommendation:${w.recommendationId}`,
        tool: w.tool,
        summary: `A ${w.kind} warning on ${quoted(w.tool)} was measured worse: agents made more mistakes with it`,
        details: { recommendationId: w.recommendationId, effect: w.effect },
      }));
    case 'unregistered_tool':
      return signals.unregisteredTools
        .filter((t) => t.calls >= rule.minCalls)
        .map((t) => ({
          subject: `tool:${t.tool}`,
          tool: t.tool,
          summary: `Tool ${quoted(t.tool)} was called ${t.calls} times but has no registered schema`,
          details: { calls: t.calls },
        }));
  }
}

export interface IncidentState {
  subject: string;
}

/** Which open incidents to resolve (their subject no longer fires) and which firings open a new one. */
export function diffIncidents<T extends IncidentState>(open: readonly T[], firings: readonly Firing[]) {
  const firingSubjects = new Set(firings.map((f) => f.subject));
  const openSubjects = new Set(open.map((i) => i.subject));
  return {
    toOpen: firings.filter((f) => !openSubjects.has(f.subject)),
    toResolve: open.filter((i) => !firingSubjects.has(i.subject)),
    stillFiring: firings.filter((f) => openSubjects.has(f.subject)),
  };
}
