const { createHmac, timingSafeEqual } = require('node:crypto');
function isFromToolcoach(secret, headers, rawBody) {
  const timestamp = headers['x-toolcoach-timestamp'];
  if (!/^\d+$/.test(timestamp ?? '') || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = Buffer.from('v1=' + createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex'));
  const given = Buffer.from(headers['x-toolcoach-signature'] ?? '');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
module.exports = { isFromToolcoach };
