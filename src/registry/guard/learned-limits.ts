// Limits the nightly learned from data (a learned_limit warning: "'n' above 20 fails (overflow)."), read back from the
// warning's evidence so validate can hold arguments to them. Pure.

import { checkLearnedLimits as checkGuardLimits, type LearnedLimitFinding } from '@toolcoach/core';
import type { ServedWarning } from '../registry.types';

export type { LearnedLimitFinding };

export interface LearnedLimit {
  argumentPath: string;
  /** upper: values above `value` fail; lower: values below it. */
  bound: 'upper' | 'lower';
  value: number;
  /** `value` itself fails too. */
  isInclusive: boolean;
  reason: string;
  /** Failed calls the limit was learned from. */
  evidenceCount: number;
  warningId: string;
}

/** The learned limits among a tool's active warnings; evidence without a well-formed limit is skipped. */
export function learnedLimitsOf(warnings: readonly ServedWarning[]): LearnedLimit[] {
  const limits: LearnedLimit[] = [];
  for (const warning of warnings) {
    if (warning.kind !== 'learned_limit') continue;
    const raw = warning.evidence.learnedLimit as Record<string, unknown> | undefined;
    if (!raw || typeof raw !== 'object') continue;
    const { argumentPath, bound, value, isInclusive, reason } = raw;
    if (typeof argumentPath !== 'string' || !argumentPath.startsWith('/')) continue;
    if ((bound !== 'upper' && bound !== 'lower') || typeof value !== 'number' || !Number.isFinite(value)) continue;
    limits.push({
      argumentPath,
      bound,
      value,
      isInclusive: isInclusive === true,
      reason: typeof reason === 'string' ? reason : 'out of range',
      evidenceCount: typeof warning.evidence.count === 'number' ? warning.evidence.count : 0,
      warningId: warning.id,
    });
  }
  return limits;
}

/** One finding per limit a numeric argument is beyond, in the guard core's words (the SDKs and the gateway say the same). */
export function checkLearnedLimits(args: Record<string, unknown>, limits: readonly LearnedLimit[]): LearnedLimitFinding[] {
  return checkGuardLimits(
    args,
    limits.map((limit) => ({ ...limit, path: limit.argumentPath })),
  );
}
