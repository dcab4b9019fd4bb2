import { AdmittedSchemas } from './admitted-schemas';

describe('AdmittedSchemas', () => {
  const digest = (text: string) => AdmittedSchemas.digestOf(text);

  it('knows a schema text once admitted, for its own project only', () => {
    const admitted = new AdmittedSchemas();
    admitted.remember('p1', digest('{"type":"object"}'));
    expect(admitted.has('p1', digest('{"type":"object"}'))).toBe(true);
    expect(admitted.has('p2', digest('{"type":"object"}'))).toBe(false);
    // another text of the same schema is another entry: only the exact text is known
    expect(admitted.has('p1', digest('{ "type": "object" }'))).toBe(false);
  });

  it('forgets the least recently used schema of a project past its cap', () => {
    const admitted = new AdmittedSchemas(2, 10);
    admitted.remember('p', 'a');
    admitted.remember('p', 'b');
    expect(admitted.has('p', 'a')).toBe(true);
    admitted.remember('p', 'c');
    expect([admitted.has('p', 'a'), admitted.has('p', 'b'), admitted.has('p', 'c')]).toEqual([true, false, true]);
  });

  it("forgets the least recently used project past its cap, and one project's schemas never evict another's", () => {
    const admitted = new AdmittedSchemas(2, 2);
    admitted.remember('quiet', 'q');
    for (let i = 0; i < 100; i++) admitted.remember('busy', `s${i}`);
    expect(admitted.has('quiet', 'q')).toBe(true);
    admitted.remember('third', 't');
    expect(admitted.has('busy', 's99')).toBe(false);
    expect(admitted.has('quiet', 'q')).toBe(true);
    expect(admitted.has('third', 't')).toBe(true);
  });
});
