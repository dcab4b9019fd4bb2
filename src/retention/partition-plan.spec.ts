import {
  dayOfPartition,
  daysToCreate,
  expiredPartitions,
  partitionNameOf,
  PARTITION_DAYS_AHEAD,
  rawEventCutoff,
  rollupCutoff,
  startOfUtcDay,
} from './partition-plan';

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
const NOW = new Date('2026-11-25T13:45:00Z');
const A = '00000000-0000-0000-0000-00000000000a';
const B = '00000000-0000-0000-0000-00000000000b';

describe('partition names', () => {
  it('names a UTC day events_pYYYYMMDD and reads it back', () => {
    expect(partitionNameOf(day('2026-01-09'))).toBe('events_p20260109');
    expect(dayOfPartition('events_p20260109')).toEqual(day('2026-01-09'));
  });

  it.each(['events_default', 'events_p2026019', 'events_p20261340', 'events_p20260230', 'other_p20260101'])(
    'reads no day from %s',
    (name) => expect(dayOfPartition(name)).toBeNull(),
  );
});

describe('cut-offs', () => {
  it('keeps whole UTC days: 30 days back from 13:45 is the start of that day', () => {
    expect(rawEventCutoff(NOW, 30)).toEqual(day('2026-10-26'));
    expect(rawEventCutoff(NOW, 1)).toEqual(day('2026-11-24'));
    expect(rollupCutoff(NOW)).toEqual(day('2025-10-21'));
    expect(startOfUtcDay(new Date('2026-11-25T00:00:00Z'))).toEqual(day('2026-11-25'));
  });
});

describe('daysToCreate', () => {
  const projects = [{ projectId: A, rawEventRetentionDays: 30 }];

  it('asks for today and the next PARTITION_DAYS_AHEAD days when none exist', () => {
    const days = daysToCreate(NOW, [], [], projects);
    expect(days).toHaveLength(PARTITION_DAYS_AHEAD + 1);
    expect(days[0]).toEqual(day('2026-11-25'));
    expect(days[days.length - 1]).toEqual(day('2026-12-02'));
  });

  it('asks for nothing the catalog already has', () => {
    const existing = daysToCreate(NOW, [], [], projects);
    expect(daysToCreate(NOW, existing, [], projects)).toEqual([]);
    expect(daysToCreate(NOW, existing.slice(1), [], projects)).toEqual([day('2026-11-25')]);
  });

  it('asks for the days waiting in the default partition that some project still keeps, not for expired ones', () => {
    const existing = daysToCreate(NOW, [], [], projects);
    const waiting = [new Date('2026-11-03T10:00:00Z'), new Date('2026-10-20T23:59:59Z'), new Date('2026-11-03T11:00:00Z')];
    expect(daysToCreate(NOW, existing, waiting, projects)).toEqual([day('2026-11-03')]);
    const longer = [...projects, { projectId: B, rawEventRetentionDays: 60 }];
    expect(daysToCreate(NOW, existing, waiting, longer)).toEqual([day('2026-10-20'), day('2026-11-03')]);
  });
});

describe('expiredPartitions', () => {
  const names = ['events_default', 'events_p20261124', 'events_p20261026', 'events_p20261025', 'events_p20261017'];

  it('lists the days past a project retention, oldest first, with who still keeps them', () => {
    const projects = [
      { projectId: A, rawEventRetentionDays: 30 },
      { projectId: B, rawEventRetentionDays: 7 },
    ];
    expect(expiredPartitions(NOW, names, projects)).toEqual([
      { name: 'events_p20261017', day: day('2026-10-17'), expiredFor: [A, B], keptFor: [] },
      { name: 'events_p20261025', day: day('2026-10-25'), expiredFor: [A, B], keptFor: [] },
      // 30 days back from 2026-11-25 starts on 2026-10-26: that day is still kept for A
      { name: 'events_p20261026', day: day('2026-10-26'), expiredFor: [B], keptFor: [A] },
    ]);
  });

  it('lists nothing while every day is within every retention', () => {
    expect(expiredPartitions(NOW, names, [{ projectId: A, rawEventRetentionDays: 3650 }])).toEqual([]);
  });
});
