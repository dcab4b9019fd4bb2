import { columnText } from './column-text';

describe('columnText', () => {
  it('keeps text that fits as it is', () => {
    expect(columnText('/city', 500)).toBe('/city');
  });

  it('cuts at the column limit', () => {
    expect(columnText('a'.repeat(600), 500)).toBe('a'.repeat(500));
  });

  it('stores a pair cut in half as U+FFFD, so texts Postgres stores alike are equal here too', () => {
    const cutInside = (astral: string) => columnText(`${'n'.repeat(4)}${astral}tail`, 5);
    expect(cutInside('\u{1F600}')).toBe('nnnn\uFFFD');
    expect(cutInside('\u{1D400}')).toBe(cutInside('\u{1F600}'));
  });

  it('replaces lone surrogates anywhere, as node-postgres sends them', () => {
    expect(columnText('calc\uD800', 200)).toBe('calc\uFFFD');
    expect(columnText('calc\uDC00x', 200)).toBe('calc\uFFFDx');
  });
});
