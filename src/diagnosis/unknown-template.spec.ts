import { MAX_TEMPLATE_SCANNED_CHARS, MAX_UNKNOWN_TEMPLATE_CHARS, maskUnknownMessage } from './unknown-template';

describe('maskUnknownMessage', () => {
  it.each([
    ['Tool execution failed', 'Tool execution failed'],
    ['Job 42 failed after 3 attempts.', 'Job <num> failed after <num> attempts.'],
    ['request 9b2f6c1e-4d7a-4b8e-9f00-1a2b3c4d5e6f was rejected', 'request <uuid> was rejected'],
    ['commit 3f9a2c41de not found (ref 0x7ffe)', 'commit <hex> not found (ref <hex>)'],
    ['lookup failed for \'Paris, France\' in "cities"', 'lookup failed for <str> in <str>'],
    ['cannot open /var/lib/tool/cache-7.db: busy', 'cannot open <path>: busy'],
    ['cannot open C:\\Users\\ana\\notes.txt', 'cannot open <path>'],
    ['GET https://api.example.com/v2/items?id=7&page=2 returned 502', 'GET <url> returned <num>'],
    ['mail to ana.smith+bots@example.co.uk bounced', 'mail to <email> bounced'],
    ['lease expired at 2026-11-27T20:31:47.120Z (now 20:35:01)', 'lease expired at <time> (now <time>)'],
    ['session call_8f3k2a9x closed; retry req-20261127-17', 'session <id> closed; retry <id>'],
    ['n=25, limit=12.5ms', 'n=<num>, limit=<num>'],
    ['value does not fit int32 or utf8 Base64', 'value does not fit int32 or utf8 Base64'],
    ['  two\n\tlines   of  text ', 'two lines of text'],
    ['', '<empty>'],
    ["it's fine", "it's fine"],
  ])('masks %j as %j', (message, template) => {
    expect(maskUnknownMessage(message)).toBe(template);
  });

  it('gives messages that differ only in their values one template', () => {
    const a = maskUnknownMessage(
      "quota for 'acme-prod' exhausted at 2026-11-01 after 1200 calls (id 6f1c2a9e-0b3d-4e5f-8a7b-9c0d1e2f3a4b)",
    );
    const b = maskUnknownMessage("quota for 'globex' exhausted at 2026-12-24 after 7 calls (id 00000000-0000-4000-8000-000000000000)");
    expect(a).toBe(b);
    expect(a).toBe('quota for <str> exhausted at <time> after <num> calls (id <uuid>)');
  });

  it('keeps a template within its bound, reading only the first characters of a huge message', () => {
    const huge = 'word '.repeat(1_000_000);
    const template = maskUnknownMessage(huge);
    expect(template.length).toBeLessThanOrEqual(MAX_UNKNOWN_TEMPLATE_CHARS);
    expect(maskUnknownMessage(`${'x'.repeat(MAX_TEMPLATE_SCANNED_CHARS)} 42`)).not.toContain('<num>');
  });

  it('masks adversarial text (unclosed quotes, long words, url-like runs) without a backtracking blow-up', () => {
    const shapes = ["'".repeat(5000), 'a='.repeat(5000), `http://x?${'a=b&'.repeat(3000)}`, '9'.repeat(5000), `${'a@'.repeat(3000)}.c`];
    for (const shape of shapes) {
      const started = process.hrtime.bigint();
      for (let run = 0; run < 20; run++) maskUnknownMessage(shape);
      const perRunMs = Number(process.hrtime.bigint() - started) / 1e6 / 20;
      // a backtracking blow-up takes seconds; the scan of 2,048 characters takes well under a millisecond
      expect(perRunMs).toBeLessThan(50);
    }
  });

  it('reads a non-string as an empty message instead of throwing', () => {
    expect(maskUnknownMessage(undefined as unknown as string)).toBe('<empty>');
  });
});
