import { createHash, randomBytes } from 'node:crypto';

/** Keys look like `tc_<43 base64url chars>`; only their sha256 is stored. A fast hash is enough: keys are random. */
export function generateApiKey(): string {
  return `tc_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters, stored so a human can tell keys apart without seeing them. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 10);
}
