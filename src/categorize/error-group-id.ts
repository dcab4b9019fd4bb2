import { createHash } from 'node:crypto';

/**
 * The error group's id is derived from (project, fingerprint) in the UUID v5 layout, so the worker knows it before the
 * group row exists and every replica and retry computes the same one.
 */
export function errorGroupIdFor(projectId: string, fingerprint: string): string {
  const hex = createHash('sha1').update(`${projectId}:${fingerprint}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
