// Renders what an LLM reads: the base description, then the active warnings as a short block. Pure.

/** More lines than this dilute the ones that matter; the most frequent mistakes come first. */
export const MAX_RENDERED_WARNINGS = 8;

export interface RenderableWarning {
  /** A repeated_call warning counts repeated calls, not failures: its frequency says so. */
  kind?: string;
  text: string;
  /** `calls`: the calls of the tool since the mistake was first seen, when the nightly counted them. */
  evidence: { count: number; calls?: unknown };
}

/**
 * The base description, then "Common mistakes:" and one line per warning, each with how often it happened out of how
 * many calls ("12 of 140 recent calls failed this way."): the true denominator, never the failing calls alone.
 */
export function renderDescription(baseDescription: string, warnings: readonly RenderableWarning[]): string {
  const base = baseDescription.trimEnd();
  const shown = selectRenderedWarnings(warnings);
  if (shown.length === 0) return base;
  const lines = shown.map(renderWarningLine);
  const block = ['Common mistakes:', ...lines].join('\n');
  return base === '' ? block : `${base}\n\n${block}`;
}

/** One warning's line of the block, as an LLM reads it (what the warning costs, docs/description-cost.md). */
export function renderWarningLine(warning: RenderableWarning): string {
  return `- ${withFrequency(asOneLine(warning.text), warning)}`;
}

/** Warnings written by hand carry no count: "0 recent calls" would read as if they never happened. */
function withFrequency(text: string, warning: RenderableWarning): string {
  const count = evidenceCount(warning);
  if (count === 0) return text;
  const calls = warning.evidence.calls;
  const out = typeof calls === 'number' && Number.isFinite(calls) && calls >= count ? ` of ${formatThousands(calls)}` : '';
  const what = warning.kind === 'repeated_call' ? 'repeated an identical call' : 'failed this way';
  const sentence = `${formatThousands(count)}${out} recent ${count === 1 && out === '' ? 'call' : 'calls'} ${what}.`;
  return /[.!?]$/.test(text) ? `${text} ${sentence}` : `${text}. ${sentence}`;
}

/** The warnings the block shows, most frequent first; ties keep their given order. */
export function selectRenderedWarnings<W extends RenderableWarning>(warnings: readonly W[]): W[] {
  return orderByEvidence(warnings.filter((warning) => asOneLine(warning.text) !== '')).slice(0, MAX_RENDERED_WARNINGS);
}

export function orderByEvidence<W extends RenderableWarning>(warnings: readonly W[]): W[] {
  return warnings
    .map((warning, index) => ({ warning, index }))
    .sort((a, b) => evidenceCount(b.warning) - evidenceCount(a.warning) || a.index - b.index)
    .map(({ warning }) => warning);
}

/** 1240 -> "1,240", without depending on the runtime's locale data. */
export function formatThousands(value: number): string {
  return String(Math.trunc(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function evidenceCount(warning: RenderableWarning): number {
  const count = warning.evidence?.count;
  return typeof count === 'number' && Number.isFinite(count) && count > 0 ? count : 0;
}

function asOneLine(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[-*•]\s+/, '');
}
