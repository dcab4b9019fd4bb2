import { encode } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { renderDescription, renderWarningLine } from './description-renderer';
import { countTokens, countVersionTokens } from './description-tokens';

const BASE = 'Look up one order by its id. Returns status, items and totals.';
const WARNINGS = [
  {
    kind: 'repeated_call',
    text: "Call this tool once per 'order_id'; the answer does not change on retry.",
    evidence: { count: 12, calls: 140 },
  },
  { kind: 'missing_argument', text: "Always pass 'order_id' (a string).", evidence: { count: 3 } },
];

describe('description tokens', () => {
  it("counts a served description as the tokenizer's o200k_base encoding does", async () => {
    const served = renderDescription(BASE, WARNINGS);
    expect((await countVersionTokens(BASE, served)).descriptionTokens).toBe(encode(served).length);
    expect(await countTokens([''])).toEqual([0]);
  });

  it("counts what the warnings block adds as the served text's tokens less the base's", async () => {
    const served = renderDescription(BASE, WARNINGS);
    expect((await countVersionTokens(BASE, served)).warningTokens).toBe(encode(served).length - encode(BASE).length);
    expect((await countVersionTokens(BASE, renderDescription(BASE, []))).warningTokens).toBe(0);
  });

  it('answers many counts at once in order, and counts again after its thread ended', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `${BASE} ${'word '.repeat(i)}`);
    const counts = (await Promise.all(texts.map((text) => countTokens([text])))).flat();
    expect(counts).toEqual(texts.map((text) => encode(text).length));
    expect(await countTokens([BASE, ''])).toEqual([encode(BASE).length, 0]);
  });

  it('keeps the process alive while a count is waited for, and never once it is answered', async () => {
    const counterHandles = () => process.getActiveResourcesInfo().filter((kind) => kind === 'MessagePort' || kind === 'Worker');
    const before = counterHandles().length;
    const waiting = countTokens([BASE]);
    expect(counterHandles().length).toBeGreaterThan(before);
    expect(await waiting).toEqual([encode(BASE).length]);
    // the idle thread lives on for a minute, unref'd: a CLI command or a test run that counted exits at once
    await new Promise((resolve) => setImmediate(resolve));
    expect(counterHandles()).toEqual([]);
  });

  it('says a repeated_call warning counts repeated calls, not failures', () => {
    expect(renderWarningLine(WARNINGS[0])).toBe(
      "- Call this tool once per 'order_id'; the answer does not change on retry. 12 of 140 recent calls repeated an identical call.",
    );
    expect(renderWarningLine(WARNINGS[1])).toBe("- Always pass 'order_id' (a string). 3 recent calls failed this way.");
  });
});
