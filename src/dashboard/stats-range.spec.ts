import { bucketStarts, parseInstant, previousRange, resolveRange, StatsRange, uncoveredIntervals } from './stats-range';

const NOW = new Date('2026-11-21T06:30:00.000Z');
const day = (s: string) => new Date(`${s}T00:00:00.000Z`);

function rangeOf(input: Parameters<typeof resolveRange>[0]): StatsRange {
  const resolved = resolveRange(input, NOW);
  if ('errors' in resolved) throw new Error(JSON.stringify(resolved.errors));
  return resolved.range;
}

function errorsOf(input: Parameters<typeof resolveRange>[0]) {
  const resolved = resolveRange(input, NOW);
  return 'errors' in resolved ? resolved.errors : [];
}

describe('parseInstant', () => {
  it.each([
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01T10:15:00Z', '2026-03-01T10:15:00.000Z'],
    ['2026-03-01T10:15:00+02:00', '2026-03-01T08:15:00.000Z'],
  ])('reads %s', (input, expected) => {
    expect(parseInstant(input)?.toISOString()).toBe(expected);
  });

  it.each(['2026-02-30', 'yesterday', '1700000000', '2026-13-01T00:00:00Z', ''])('refuses %j', (input) => {
    expect(parseInstant(input)).toBeNull();
  });
});

describe('resolveRange', () => {
  it('defaults to the last 7 days up to now, widened to whole days so today is included', () => {
    expect(rangeOf({})).toEqual({ from: day('2026-11-14'), to: day('2026-11-22'), bucket: 'day' });
  });

  it('aligns hourly ranges to hours', () => {
    expect(rangeOf({ from: '2026-11-20T10:20:00Z', bucket: 'hour' })).toEqual({
      from: new Date('2026-11-20T10:00:00Z'),
      to: new Date('2026-11-21T07:00:00Z'),
      bucket: 'hour',
    });
  });

  it('keeps a range already on day boundaries as it is', () => {
    expect(rangeOf({ from: '2026-03-01', to: '2026-03-03' })).toEqual({ from: day('2026-03-01'), to: day('2026-03-03'), bucket: 'day' });
  });

  it('names from when it is not a date, or not before to', () => {
    expect(errorsOf({ from: 'last week' })).toEqual([{ path: '/query/from', message: 'must be an ISO date-time or YYYY-MM-DD' }]);
    expect(errorsOf({ from: '2026-03-02', to: '2026-03-01' })[0].path).toBe('/query/from');
  });

  it('names to when it is not a date', () => {
    expect(errorsOf({ to: '2026-02-31' }).map((e) => e.path)).toEqual(['/query/to']);
  });

  it.each([
    [{ from: '0001-01-01', to: '0001-01-02' }, ['/query/to', '/query/from']],
    [{ from: '1969-12-31', to: '1970-01-02' }, ['/query/from']],
    [{ from: '9999-12-30', to: '+010000-01-01T00:00:00Z' }, ['/query/to']],
    [{ from: '9999-12-30', to: '9999-12-31T12:00:00Z' }, ['/query/to']],
  ])('names the bound of %j that lies outside what Postgres stores', (input, paths) => {
    expect(errorsOf(input).map((e) => e.path)).toEqual(paths);
  });

  it('accepts the outermost whole days it stores', () => {
    expect(rangeOf({ from: '1970-01-01', to: '1970-01-08' }).from.toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(rangeOf({ from: '9999-12-01', to: '9999-12-31' }).to.toISOString()).toBe('9999-12-31T00:00:00.000Z');
  });

  it('caps the span at 31 days for hours and 400 days for days', () => {
    expect(errorsOf({ from: '2026-10-01', bucket: 'hour' })[0]).toEqual({
      path: '/query/from',
      message: 'must be at most 31 days before to for bucket=hour',
    });
    expect(errorsOf({ from: '2026-10-22', bucket: 'hour' })).toEqual([]);
    expect(errorsOf({ from: '2025-01-01' })[0].message).toContain('400 days');
    expect(errorsOf({ from: '2025-11-01' })).toEqual([]);
  });
});

describe('previousRange and bucketStarts', () => {
  it('gives the period of the same length right before', () => {
    const range = rangeOf({ from: '2026-03-08', to: '2026-03-15' });
    expect(previousRange(range)).toEqual({ from: day('2026-03-01'), to: day('2026-03-08'), bucket: 'day' });
  });

  it('lists every bucket start, oldest first', () => {
    const starts = bucketStarts(rangeOf({ from: '2026-03-01T22:00:00Z', to: '2026-03-02T01:00:00Z', bucket: 'hour' }));
    expect(starts.map((d) => d.toISOString())).toEqual([
      '2026-03-01T22:00:00.000Z',
      '2026-03-01T23:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
  });
});

describe('uncoveredIntervals', () => {
  const range = rangeOf({ from: '2026-03-01', to: '2026-03-06' });

  it('reads every day from hourly rollups when the nightly job computed none', () => {
    expect(uncoveredIntervals(range, new Set())).toEqual([{ from: day('2026-03-01'), to: day('2026-03-06') }]);
  });

  it('leaves out the computed days and merges the runs between them', () => {
    const covered = new Set([day('2026-03-01'), day('2026-03-02'), day('2026-03-04')].map((d) => d.getTime()));
    expect(uncoveredIntervals(range, covered)).toEqual([
      { from: day('2026-03-03'), to: day('2026-03-04') },
      { from: day('2026-03-05'), to: day('2026-03-06') },
    ]);
  });

  it('is empty when every day is computed', () => {
    const covered = new Set(bucketStarts(range).map((d) => d.getTime()));
    expect(uncoveredIntervals(range, covered)).toEqual([]);
  });
});
