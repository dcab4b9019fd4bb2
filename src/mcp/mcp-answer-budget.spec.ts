import { fitAnswer, jsonBytes, MAX_ANSWER_BYTES, MAX_QUOTED_JSON_CHARS, quoteJson, quoteText } from './mcp-answer-budget';

const item = (index: number) => ({ id: `item-${index}`, text: 'x'.repeat(1000) });

describe('fitAnswer', () => {
  it('keeps an answer that fits as it is, with truncated false and its own cursor', () => {
    const answer = { items: [item(0), item(1)], nextCursor: 'next-page' };
    expect(fitAnswer(answer, 'items', () => 'unused')).toEqual({ ...answer, truncated: false });
  });

  it('cuts a list to the longest head within 16 KB, flags it truncated and continues after the last item kept', () => {
    const answer = { from: '2026-06-01', items: Array.from({ length: 40 }, (_, i) => item(i)), nextCursor: null };
    const fitted = fitAnswer(answer, 'items', (kept: { id: string }) => `after-${kept.id}`);
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(fitted.truncated).toBe(true);
    expect(fitted.items).toHaveLength(15);
    expect(fitted.nextCursor).toBe('after-item-14');
    // one more item would not have fitted
    expect(jsonBytes({ ...fitted, items: answer.items.slice(0, 16) })).toBeGreaterThan(MAX_ANSWER_BYTES);
  });
});

describe('quoting what came from events', () => {
  it('cuts a long text to 300 characters ending in an ellipsis and keeps a short one', () => {
    expect(quoteText('a'.repeat(1000))).toBe(`${'a'.repeat(299)}…`);
    expect(quoteText('short')).toBe('short');
    expect(quoteText(null)).toBeNull();
  });

  it('answers a large JSON value as a marked preview of its text, a small one as it is', () => {
    expect(quoteJson({ numbers: [12, 15, 18] })).toEqual({ numbers: [12, 15, 18] });
    const large = quoteJson({ blob: 'y'.repeat(5000) }) as { preview: string; truncated: boolean };
    expect(large.truncated).toBe(true);
    expect(large.preview).toHaveLength(MAX_QUOTED_JSON_CHARS);
    expect(large.preview.startsWith('{"blob":"yyy')).toBe(true);
    expect(quoteJson(undefined)).toBeNull();
  });
});
