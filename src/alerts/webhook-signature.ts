import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Generic webhooks are signed like Stripe's and Slack's: HMAC-SHA256 of `${timestamp}.${body}` with the destination's
// secret. The timestamp is signed too, so a receiver that refuses old timestamps (docs/alerts.md: 5 minutes) also
// refuses a replayed request. Pure: the timestamp comes in.

export const TIMESTAMP_HEADER = 'x-toolcoach-timestamp';
export const SIGNATURE_HEADER = 'x-toolcoach-signature';
const SCHEME = 'v1';

/** A new signing secret; shown once when the destination is created. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The signature header's value for `body` sent at `timestampSeconds`: `v1=<hex>`. */
export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  return `${SCHEME}=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex')}`;
}

/**
 * What a receiver does (docs/alerts.md shows the same in a few lines): recompute the signature over the timestamp
 * header and the raw body, compare in constant time, and refuse a timestamp further than `toleranceSeconds` from now.
 */
export function verifyWebhook(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!headers.signature || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
