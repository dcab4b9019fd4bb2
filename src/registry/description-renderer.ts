// Renders what an LLM reads: the base description, then the active warnings as a short block. Pure.

/** More lines than this dilute the ones that matter; the most frequent mistakes come first. */
export const MAX_RENDERED_WARNINGS = 8;

export interface RenderableWarning {
  text: string;
  evidence: { count: number };
}

export function renderDescription(baseDescription: string, warnings: readonly RenderableWarning[]): string {
  const base = baseDescription.trimEnd();
  const shown = selectRenderedWarnings(warnings);
  if (shown.length === 0) return base;
  const total = shown.reduce((sum, warning) => sum + evidenceCount(warning), 0);
  // Warnings written by hand carry no count; "seen in 0 recent calls" would read as if they never happened.
  const heading = total > 0 ? `Common mistakes seen in ${formatThousands(total)} recent calls:` : 'Common mistakes:';
  const lines = shown.map((warning) => `- ${asOneLine(warning.text)}`);
  const block = [heading, ...lines].join('\n');
  return base === '' ? block : `${base}\n\n${block}`;
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
