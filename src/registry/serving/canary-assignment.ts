import { createHash } from 'node:crypto';
import type { RunningCanary } from '../registry.types';

// Which callers see a canary description version (docs/rollout.md). Alternating (the default): every caller, with or
// without an id, gets the canary version after an even number of nightly looks and the previous version after an odd
// one, so one agent or one MCP gateway sees both sides in turn. Split: an agent (or session) id hashed with the
// canary's id lands in [0, 1) and sees the canary when that is below the canary's share, on every call and every
// replica; a new canary of the same tool draws a fresh, independent sample. Pure.

/** Sticky ids longer than this are cut before hashing: a client-chosen header never decides how much we hash. */
export const MAX_STICKY_ID_CHARS = 200;

/** The id an assignment sticks to: the session when the client sent one, else the agent; null when neither. */
export function stickyIdOf(sources: { session?: string | null; agent?: string | null }): string | null {
  const id = sources.session?.trim() || sources.agent?.trim() || '';
  return id === '' ? null : id.slice(0, MAX_STICKY_ID_CHARS);
}

/** Where `stickyId` falls in [0, 1) for this canary. */
export function canaryBucket(canaryId: string, stickyId: string): number {
  const digest = createHash('sha256').update(`${canaryId}\u0000${stickyId}`, 'utf8').digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}

/** Whether this caller is served the canary. A caller without an id keeps the previous version: it cannot stick. */
export function isServedCanary(canaryId: string, stickyId: string | null, share: number): boolean {
  return stickyId !== null && canaryBucket(canaryId, stickyId) < share;
}

/** The version this caller is served while `canary` runs. */
export function servedVersionOf(
  canary: Pick<RunningCanary, 'id' | 'design' | 'looks' | 'state' | 'share' | 'canaryVersion' | 'previousVersion'>,
  stickyId: string | null,
): number {
  const isCanarySide =
    canary.design === 'alternating' ? servedPhaseOf(canary) === 'canary' : isServedCanary(canary.id, stickyId, canary.share);
  return isCanarySide ? canary.canaryVersion : canary.previousVersion;
}

/**
 * Which version an alternating canary serves everyone until its next look: the one its last look chose
 * (`state.servedUntilNextLook`); before any look, its own; for a canary without that record, by the parity of its
 * looks (first its own, then in turn).
 */
export function servedPhaseOf(canary: Pick<RunningCanary, 'looks' | 'state'>): 'canary' | 'previous' {
  const chosen = canary.state?.servedUntilNextLook;
  if (chosen === 'canary' || chosen === 'previous') return chosen;
  return isCanaryPhase(canary.looks) ? 'canary' : 'previous';
}

/** Whether an alternating canary serves its own version after `looks` nightly looks: first its own, then in turn. */
export function isCanaryPhase(looks: number): boolean {
  return looks % 2 === 0;
}
