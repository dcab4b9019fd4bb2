import { encode } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { renderDescription, renderWarningLine } from './description-renderer';
import { countDescriptionTokens, countWarningTokens } from './description-tokens';

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
  it("counts a served description as the tokenizer's o200k_base encoding does", () => {
    const served = renderDescription(BASE, WARNINGS);
    expect(countDescriptionTokens(served)).toBe(encode(served).length);
    expect(countDescriptionTokens('')).toBe(0);
  });

  it("counts what the warnings block adds as the served text's tokens less the base's", () => {
    const served = renderDescription(BASE, WARNINGS);
    expect(countWarningTokens(BASE, served)).toBe(encode(served).length - encode(BASE).length);
    expect(countWarningTokens(BASE, renderDescription(BASE, []))).toBe(0);
  });

  it('says a repeated_call warning counts repeated calls, not failures', () => {
    expect(renderWarningLine(WARNINGS[0])).toBe(
      "- Call this tool once per 'order_id'; the answer does not change on retry. 12 of 140 recent calls repeated an identical call.",
    );
    expect(renderWarningLine(WARNINGS[1])).toBe("- Always pass 'order_id' (a string). 3 recent calls failed this way.");
  });
});
