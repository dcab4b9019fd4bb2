import type { SampleEventRecord } from './error-group.queries';
import { failedArgumentValues, valueAtPointer } from './error-group-view';

const sample = (id: string, args: unknown) => ({ id, arguments: args }) as unknown as SampleEventRecord;

describe('valueAtPointer', () => {
  it.each([
    [{ numbers: [12, 15] }, '/numbers', [12, 15]],
    [{ items: [{ n: 3 }] }, '/items/0/n', 3],
    [{ 'a/b': 1 }, '/a~1b', 1],
    [{ 'a~b': 2 }, '/a~0b', 2],
    [{ x: 1 }, '', { x: 1 }],
  ])('finds %j at %s', (document, pointer, expected) => {
    expect(valueAtPointer(document, pointer)).toEqual({ isFound: true, value: expected });
  });

  it('reports a missing segment', () => {
    expect(valueAtPointer({ a: 1 }, '/b')).toEqual({ isFound: false });
    expect(valueAtPointer('text', '/a')).toEqual({ isFound: false });
    expect(valueAtPointer({ a: 1 }, 'a')).toEqual({ isFound: false });
  });
});

describe('failedArgumentValues', () => {
  it("picks each sample's value at the group's argument path", () => {
    expect(failedArgumentValues('/n', [sample('e1', { n: 25 }), sample('e2', { n: 30 })])).toEqual([
      { eventId: 'e1', path: '/n', value: 25 },
      { eventId: 'e2', path: '/n', value: 30 },
    ]);
  });

  it('falls back to all arguments when the group has no path or a sample lacks it', () => {
    expect(failedArgumentValues(null, [sample('e1', { a: 1 })])).toEqual([{ eventId: 'e1', path: '', value: { a: 1 } }]);
    expect(failedArgumentValues('/n', [sample('e2', 'not json')])).toEqual([{ eventId: 'e2', path: '', value: 'not json' }]);
  });
});
