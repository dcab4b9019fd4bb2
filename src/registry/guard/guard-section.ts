// The `guard` section of a served tool: everything an SDK needs to check a call locally, so the check costs no
// request. Pure.

import type { GuardSection } from '@toolcoach/core';
import type { GuardMode } from './guard.schemas';
import { learnedLimitsOf } from './learned-limits';
import type { LearnedRename } from '../validate/learned-rename.repository';
import type { DescriptionView } from '../registry.types';

/** Enough for every misnaming a tool sees in practice; the rest are rare and the name matcher may still find them. */
export const MAX_GUARD_RENAMES = 50;

export type { GuardSection };

/**
 * Renames come most frequent first: each wrong name keeps the name it was most often meant as, and only renames to a
 * declared argument are served (an SDK applies them without asking).
 */
export function guardSectionOf(view: DescriptionView, renames: readonly LearnedRename[], policy: GuardMode): GuardSection {
  const declared = new Set(Object.keys(propertiesOf(view.parameters)));
  const served = new Map<string, GuardSection['renames'][number]>();
  for (const rename of renames) {
    if (served.size >= MAX_GUARD_RENAMES) break;
    if (served.has(rename.wrongArgument) || declared.has(rename.wrongArgument) || !declared.has(rename.intendedArgument)) continue;
    served.set(rename.wrongArgument, { wrong: rename.wrongArgument, intended: rename.intendedArgument, count: rename.count });
  }
  const limits = learnedLimitsOf(view.warnings).map((limit) => ({
    path: limit.argumentPath,
    bound: limit.bound,
    value: limit.value,
    isInclusive: limit.isInclusive,
    reason: limit.reason,
    evidenceCount: limit.evidenceCount,
  }));
  return { version: view.version, policy, schema: 'parameters', renames: [...served.values()], limits };
}

function propertiesOf(parameters: Record<string, unknown>): Record<string, unknown> {
  const properties = parameters.properties;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties) ? (properties as Record<string, unknown>) : {};
}
