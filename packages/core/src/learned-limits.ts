// Limits the nightly learned from data ("'n' above 20 fails (overflow)"): a value beyond one passes the schema yet
// failed every time it was tried, so the arguments are not valid. Pure.
import { valueAtPointer } from './schema-properties';
import { quoteName } from './untrusted-text';
import type { GuardSection } from './wire';

export type GuardLimit = GuardSection['limits'][number];

export interface LearnedLimitFinding {
  kind: 'beyond_learned_limit';
  category: 'overflow' | 'out_of_range';
  subtype: 'above_maximum' | 'below_minimum';
  path: string;
  message: string;
  limit: { bound: 'upper' | 'lower'; value: number; isInclusive: boolean };
  evidenceCount: number;
}

/** One finding per limit a numeric argument is beyond; arguments that are absent or not numbers are the schema's business. */
export function checkLearnedLimits(args: Record<string, unknown>, limits: readonly GuardLimit[]): LearnedLimitFinding[] {
  const findings: LearnedLimitFinding[] = [];
  for (const limit of limits) {
    const value = valueAtPointer(args, limit.path);
    if (typeof value !== 'number' || !isBeyond(value, limit)) continue;
    const side =
      limit.bound === 'upper'
        ? limit.isInclusive
          ? `${limit.value} or more`
          : `above ${limit.value}`
        : limit.isInclusive
          ? `${limit.value} or less`
          : `below ${limit.value}`;
    const calls = limit.evidenceCount === 1 ? 'call' : 'calls';
    findings.push({
      kind: 'beyond_learned_limit',
      category: limit.reason === 'overflow' ? 'overflow' : 'out_of_range',
      subtype: limit.bound === 'upper' ? 'above_maximum' : 'below_minimum',
      path: limit.path,
      message: `${quoteName(pathName(limit.path))} is ${value}; ${side} fails (${limit.reason}), learned from ${limit.evidenceCount} failed ${calls}`,
      limit: { bound: limit.bound, value: limit.value, isInclusive: limit.isInclusive },
      evidenceCount: limit.evidenceCount,
    });
  }
  return findings;
}

function isBeyond(value: number, limit: GuardLimit): boolean {
  if (limit.bound === 'upper') return limit.isInclusive ? value >= limit.value : value > limit.value;
  return limit.isInclusive ? value <= limit.value : value < limit.value;
}

/** A nested limit is named by its whole path: "/options/depth" -> "options/depth". */
function pathName(pointer: string): string {
  return pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
}
