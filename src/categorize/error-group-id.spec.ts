import { errorGroupIdFor } from './error-group-id';

describe('errorGroupIdFor', () => {
  it('is a stable UUID v5-shaped id per project and fingerprint', () => {
    const id = errorGroupIdFor('p1', 'abc');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(errorGroupIdFor('p1', 'abc')).toBe(id);
  });

  it('differs between projects for the same fingerprint', () => {
    expect(errorGroupIdFor('p1', 'abc')).not.toBe(errorGroupIdFor('p2', 'abc'));
  });
});
