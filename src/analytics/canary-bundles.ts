import type { StoredRecommendation } from './recommendation.repository';
import type { MistakeMatch } from './recommendation-drafts';

// Which of the night's recommendations start or join a canary (docs/rollout.md). Warnings backed by the most mistakes go
// first; a tool's warnings about different mistakes are tested together in one canary version, each judged on its own
// mistake, so no reduction is credited to two warnings; a warning whose mistake overlaps one already in the tool's
// canary waits for the next; a tool whose canary runs from an earlier night takes nothing new. A schema_quality line
// that restates an applied warning about the same mistakes is not added at all. Pure.

/** Evidence-backed recommendations first, most mistakes first; definition findings (no occurrences) last. */
export function orderForRollout(recommendations: readonly StoredRecommendation[]): StoredRecommendation[] {
  const count = (r: StoredRecommendation) => (r.kind === 'schema_quality' ? -1 : Number((r.evidence as { count?: number }).count ?? 0));
  return [...recommendations].sort((a, b) => count(b) - count(a));
}

/** Whether two warnings can be about the same failed calls, so that one's effect could not be told from the other's. */
export function mistakesOverlap(a: MistakeMatch | null, b: MistakeMatch | null): boolean {
  if (!a || !b) return true;
  if ((a.calledTool ?? null) !== (b.calledTool ?? null)) return false;
  if (a.calledTool) return true;
  const shares = (x: readonly string[], y: readonly string[]) => x.length === 0 || y.length === 0 || x.some((each) => y.includes(each));
  const pathsShare = a.isAnyArgumentPath || b.isAnyArgumentPath || shares(a.argumentPaths, b.argumentPaths);
  return shares(a.categories, b.categories) && shares(a.subtypes, b.subtypes) && pathsShare;
}

export function matchOf(recommendation: StoredRecommendation): MistakeMatch | null {
  return ((recommendation.evidence as { match?: MistakeMatch }).match ?? null) as MistakeMatch | null;
}

export class CanaryBundles {
  private readonly started = new Map<string, Array<MistakeMatch | null>>();

  /** `runningTools`: tools whose canary runs from an earlier night; `applied`: warnings already served, per tool. */
  constructor(
    private readonly runningTools: ReadonlySet<string>,
    private readonly applied: readonly StoredRecommendation[] = [],
  ) {}

  /** Whether the nightly applies it now; `isCanary`: the rollout policy is on, so it starts or joins a canary. */
  admits(recommendation: StoredRecommendation, isCanary: boolean): boolean {
    if (this.restatesApplied(recommendation)) return false;
    if (!isCanary) return true;
    if (this.runningTools.has(recommendation.tool)) return false;
    const bundle = this.started.get(recommendation.tool);
    if (!bundle) return true;
    return recommendation.kind !== 'schema_quality' && bundle.every((other) => !mistakesOverlap(other, matchOf(recommendation)));
  }

  isStarted(tool: string): boolean {
    return this.started.has(tool);
  }

  add(recommendation: StoredRecommendation): void {
    this.started.set(recommendation.tool, [...(this.started.get(recommendation.tool) ?? []), matchOf(recommendation)]);
  }

  private restatesApplied(recommendation: StoredRecommendation): boolean {
    return restatedWarning(recommendation, this.applied) !== null;
  }
}

/**
 * The applied warning, backed by mistakes, about the same mistakes as this schema_quality line: while there is one,
 * the line is not added (GET /v1/recommendations says so). Null for another kind, or when none overlaps.
 */
export function restatedWarning(
  recommendation: StoredRecommendation,
  applied: readonly StoredRecommendation[],
): StoredRecommendation | null {
  if (recommendation.kind !== 'schema_quality') return null;
  const match = matchOf(recommendation);
  return (
    applied.find(
      (other) =>
        other.tool === recommendation.tool &&
        other.kind !== 'schema_quality' &&
        Number((other.evidence as { count?: number }).count ?? 0) > 0 &&
        mistakesOverlap(matchOf(other), match),
    ) ?? null
  );
}
