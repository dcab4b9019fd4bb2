// Limits the nightly learned from data (a learned_limit warning: "'n' above 20 fails (overflow)."), read back from the
// warning's evidence so validate can hold arguments to them. Pure.

import { ownValue } from '../diagnosis';
import type { ServedWarning } from './registry.types';

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

export interface LearnedLimitFinding {
  kind: 'beyond_learned_limit';
  category: 'overflow' | 'out_of_range';
  subtype: 'above_maximum' | 'below_minimum';
  path: string;
  message: string;
  limit: { bound: 'upper' | 'lower'; value: number; isInclusive: boolean };
  evidenceCount: number;
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

/** One finding per limit a numeric argument is beyond; arguments that are absent or not numbers are the schema's business. */
export function checkLearnedLimits(args: Record<string, unknown>, limits: readonly LearnedLimit[]): LearnedLimitFinding[] {
  const findings: LearnedLimitFinding[] = [];
  for (const limit of limits) {
    const value = valueAt(args, limit.argumentPath);
    if (typeof value !== 'number' || !isBeyond(value, limit)) continue;
    const name = limit.argumentPath.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
    const side =
      limit.bound === 'upper'
        ? limit.isInclusive
          ? `${limit.value} or more`
          : `above ${limit.value}`
        : limit.isInclusive
          ? `${limit.value} or less`
          : `below ${limit.value}`;
    findings.push({
      kind: 'beyond_learned_limit',
      category: limit.reason === 'overflow' ? 'overflow' : 'out_of_range',
      subtype: limit.bound === 'upper' ? 'above_maximum' : 'below_minimum',
      path: limit.argumentPath,
      message: `'${name}' is ${value}; ${side} fails (${limit.reason}), learned from ${limit.evidenceCount} failed ${limit.evidenceCount === 1 ? 'call' : 'calls'}`,
      limit: { bound: limit.bound, value: limit.value, isInclusive: limit.isInclusive },
      evidenceCount: limit.evidenceCount,
    });
  }
  return findings;
}

function isBeyond(value: number, limit: LearnedLimit): boolean {
  if (limit.bound === 'upper') return limit.isInclusive ? value >= limit.value : value > limit.value;
  return limit.isInclusive ? value <= limit.value : value < limit.value;
}

function valueAt(args: Record<string, unknown>, pointer: string): unknown {
  let current: unknown = args;
  for (const segment of pointer.split('/').slice(1)) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = ownValue(current as Record<string, unknown>, segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return current;
}
