/**
 * The token cap (docs/description-cost.md): a project caps the tokens the nightly's warnings add to one tool's
 * description. The warnings with the best measured effect per token are kept while they fit; the rest are retired (an
 * applied one) or not applied (a proposal). Deterministic: ties are broken by id. Pure.
 */

/** The cap of a project that has not set its own: about four warning lines of o200k_base tokens. */
export const DEFAULT_WARNING_TOKEN_CAP = 120;

export interface CostedWarning {
  /** The recommendation's id. */
  id: string;
  /** The o200k_base tokens of the warning's line in the served description. */
  tokens: number;
  /** Its measured effect: mistakes avoided per 1,000 calls (0 while unmeasured or when it did not help). */
  value: number;
}

export interface CapSelection {
  kept: CostedWarning[];
  dropped: CostedWarning[];
  keptTokens: number;
}

/** Best value per token first, then lower id; each kept while the kept tokens stay within `cap`. */
export function selectUnderCap(warnings: readonly CostedWarning[], cap: number): CapSelection {
  const perToken = (w: CostedWarning) => w.value / Math.max(1, w.tokens);
  const ordered = [...warnings].sort((a, b) => perToken(b) - perToken(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const selection: CapSelection = { kept: [], dropped: [], keptTokens: 0 };
  for (const warning of ordered) {
    if (selection.keptTokens + warning.tokens <= cap) {
      selection.kept.push(warning);
      selection.keptTokens += warning.tokens;
    } else {
      selection.dropped.push(warning);
    }
  }
  return selection;
}

/**
 * A measured effect's value: (rate without - rate with) x 1,000 from the point estimates the nightly stored, floored at
 * 0; 0 when either side has no rate yet.
 */
export function measuredValue(effect: Record<string, unknown> | null): number {
  const rate = (side: unknown) => {
    const value = (side as { rate?: unknown } | undefined)?.rate;
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  };
  const withRate = rate(effect?.withWarning);
  const withoutRate = rate(effect?.withoutWarning);
  if (withRate === null || withoutRate === null) return 0;
  return Math.max(0, Math.round((withoutRate - withRate) * 1_000_000) / 1000);
}
