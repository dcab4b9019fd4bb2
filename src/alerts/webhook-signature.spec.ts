import { generateSigningSecret, signWebhook, verifyWebhook } from './webhook-signature';

describe('webhook signatures', () => {
  const secret = 'whsec_test-secret';
  const body = '{"type":"incident.opened"}';
  const sentAt = 1_790_000_000;

  it('signs timestamp.body with HMAC-SHA256 (the value a receiver recomputes by hand)', () => {
    // printf '1790000000.{"type":"incident.opened"}' | openssl dgst -sha256 -hmac whsec_test-secret
    const { createHmac } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const byHand = createHmac('sha256', secret).update(`${sentAt}.${body}`).digest('hex');
    expect(signWebhook(secret, sentAt, body)).toBe(`v1=${byHand}`);
  });

  it('verifies its own signature within the tolerance and refuses a changed body, another secret or an old timestamp', () => {
    const signature = signWebhook(secret, sentAt, body);
    const headers = { timestamp: String(sentAt), signature };
    expect(verifyWebhook(secret, headers, body, sentAt + 299)).toBe(true);
    expect(verifyWebhook(secret, headers, body.replace('opened', 'resolved'), sentAt)).toBe(false);
    expect(verifyWebhook('whsec_other', headers, body, sentAt)).toBe(false);
    expect(verifyWebhook(secret, headers, body, sentAt + 301)).toBe(false);
    expect(verifyWebhook(secret, { timestamp: String(sentAt + 1), signature }, body, sentAt)).toBe(false);
    expect(verifyWebhook(secret, { timestamp: undefined, signature }, body, sentAt)).toBe(false);
  });

  it('generates distinct secrets of 32 random bytes', () => {
    const a = generateSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateSigningSecret()).not.toBe(a);
  });
});
