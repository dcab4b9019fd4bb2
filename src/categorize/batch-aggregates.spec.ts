import { aggregateBatch, hourOf, MAX_ROLLUP_DURATION_MS } from './batch-aggregates';
import { StoredEventRow } from './stored-event';

function row(overrides: Partial<StoredEventRow>): StoredEventRow {
  const occurredAt = overrides.occurredAt ?? new Date('2026-05-01T10:20:00Z');
  return {
    occurredAtText: occurredAt.toISOString(),
    id: 'e1',
    tool: 't',
    status: 'success',
    arguments: null,
    result: null,
    errorType: null,
    errorMessage: null,
    errorStack: null,
    durationMs: null,
    occurredAt: new Date('2026-05-01T10:20:00Z'),
    receivedAt: new Date(),
    agent: null,
    model: null,
    framework: null,
    sessionId: null,
    traceId: null,
    runId: null,
    toolCallId: null,
    descriptionVersion: null,
    prompt: null,
    metadata: null,
    correction: null,
    prevented: false,
    resultRule: null,
    diagnosis: null,
    ...overrides,
  };
}

function errorRow(id: string, fingerprint: string, occurredAt: string, category = 'overflow'): StoredEventRow {
  return row({
    id,
    status: 'error',
    occurredAt: new Date(occurredAt),
    diagnosis: {
      category: category as never,
      subtype: null,
      argumentPath: null,
      evidence: 'message',
      wrongArgument: null,
      intendedArgument: null,
      offendingValue: null,
      arrayForScalar: false,
      messageTemplate: 'm',
      fingerprint,
      errorGroupId: `group-${fingerprint}`,
    },
  });
}

describe('hourOf', () => {
  it('truncates to the start of the UTC hour', () => {
    expect(hourOf(new Date('2026-05-01T10:59:59.999Z')).toISOString()).toBe('2026-05-01T10:00:00.000Z');
  });
});

describe('aggregateBatch', () => {
  it('counts calls, errors and latency per tool and hour, leaving events without duration out of latency', () => {
    const { hourly } = aggregateBatch([
      row({ id: 'a', durationMs: 3 }),
      row({ id: 'b', durationMs: 7000 }),
      row({ id: 'c', occurredAt: new Date('2026-05-01T11:00:00Z') }),
      errorRow('d', 'f1', '2026-05-01T10:01:00Z'),
    ]);
    expect(hourly).toHaveLength(2);
    expect(hourly[0]).toMatchObject({ hour: new Date('2026-05-01T10:00:00Z'), calls: 3, errors: 1, latencyCount: 2, latencySumMs: 7003 });
    expect(hourly[0].latencyBuckets.reduce((a, b) => a + b, 0)).toBe(2);
    expect(hourly[1]).toMatchObject({ calls: 1, errors: 0, latencyCount: 0 });
  });

  it('folds errors into groups with count, first and last seen, and at most five samples', () => {
    const rows = Array.from({ length: 7 }, (_, i) => errorRow(`e${i}`, 'same', `2026-05-01T10:0${i}:00Z`));
    rows.push(errorRow('other', 'different', '2026-05-01T09:00:00Z'));
    const { groups } = aggregateBatch(rows.reverse());
    const same = groups.find((g) => g.fingerprint === 'same')!;
    expect(same.count).toBe(7);
    expect(same.firstSeen.toISOString()).toBe('2026-05-01T10:00:00.000Z');
    expect(same.lastSeen.toISOString()).toBe('2026-05-01T10:06:00.000Z');
    expect(same.sampleEventIds).toHaveLength(5);
    expect(groups.find((g) => g.fingerprint === 'different')!.count).toBe(1);
  });

  it('counts errors per category and subtype, with an empty subtype for categories that have none', () => {
    const { hourlyErrors } = aggregateBatch([
      errorRow('a', 'f1', '2026-05-01T10:00:00Z', 'overflow'),
      errorRow('b', 'f2', '2026-05-01T10:30:00Z', 'overflow'),
      errorRow('c', 'f3', '2026-05-01T10:30:00Z', 'timeout'),
    ]);
    expect(hourlyErrors.map((r) => [r.category, r.subtype, r.count])).toEqual([
      ['overflow', '', 2],
      ['timeout', '', 1],
    ]);
  });

  it('counts a duration into latency sums as at most MAX_ROLLUP_DURATION_MS, so a sum stays finite', () => {
    const { hourly } = aggregateBatch([
      row({ id: 'a', durationMs: 1.7e308 }),
      row({ id: 'b', durationMs: 1.7e308 }),
      row({ id: 'c', durationMs: 5 }),
    ]);
    expect(hourly[0]).toMatchObject({ latencyCount: 3, latencySumMs: 2 * MAX_ROLLUP_DURATION_MS + 5 });
    expect(hourly[0].latencyBuckets[hourly[0].latencyBuckets.length - 1]).toBe(2);
  });

  it('keys argument ranges by the path as stored, so paths equal after the cut are one row', () => {
    const prefix = 'n'.repeat(498);
    const { argumentRanges } = aggregateBatch([
      row({ id: 'a', arguments: { [`${prefix}\u{1F600}x`]: 1 } }),
      row({ id: 'b', arguments: { [`${prefix}\u{1D400}y`]: 9 } }),
    ]);
    expect(argumentRanges).toEqual([{ tool: 't', argumentPath: `/${prefix}\uFFFD`, successCount: 2, minValue: 1, maxValue: 9 }]);
  });

  it('returns groups sorted by fingerprint so concurrent batches lock rows in one order', () => {
    const { groups } = aggregateBatch(['c', 'a', 'b'].map((f, i) => errorRow(`e${i}`, f, '2026-05-01T10:00:00Z')));
    expect(groups.map((g) => g.fingerprint)).toEqual(['a', 'b', 'c']);
  });
});

describe('aggregateBatch evidence for the nightly job', () => {
  it('keeps the range of numeric arguments of successful calls only', () => {
    const { argumentRanges } = aggregateBatch([
      row({ id: 'a', arguments: { n: 3, label: 'x' } }),
      row({ id: 'b', arguments: { n: 20 } }),
      row({ id: 'c', arguments: [1, 2] }),
      { ...errorRow('d', 'f', '2026-05-01T10:00:00Z'), arguments: { n: 99 } },
    ]);
    expect(argumentRanges).toEqual([{ tool: 't', argumentPath: '/n', successCount: 2, minValue: 3, maxValue: 20 }]);
  });

  it('ranges at most the first 20 numeric arguments of one event, so an odd event bounds its own work', () => {
    const args = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`n${String(i).padStart(2, '0')}`, i]));
    const { argumentRanges } = aggregateBatch([row({ id: 'a', arguments: args })]);
    expect(argumentRanges.map((r) => r.argumentPath)).toEqual(
      Object.keys(args)
        .slice(0, 20)
        .map((name) => `/${name}`),
    );
  });

  it('counts calls per description version and day, with 0 for calls that did not report one', () => {
    const { versions } = aggregateBatch([
      row({ id: 'a', descriptionVersion: 2 }),
      row({ id: 'b', descriptionVersion: 2 }),
      { ...errorRow('c', 'f', '2026-05-01T23:00:00Z'), descriptionVersion: 2 },
      row({ id: 'd' }),
    ]);
    expect(versions.map((v) => [v.day, v.descriptionVersion, v.calls, v.errors])).toEqual([
      ['2026-05-01', 0, 1, 0],
      ['2026-05-01', 2, 3, 1],
    ]);
  });

  it('folds the extracted evidence into the group: intended name, arrays for scalars, offending value range', () => {
    const make = (id: string, value: number, isArray: boolean) => {
      const r = errorRow(id, 'same', '2026-05-01T10:00:00Z');
      r.diagnosis = { ...r.diagnosis!, intendedArgument: 'number', arrayForScalar: isArray, offendingValue: value };
      return r;
    };
    const { groups, mistakes } = aggregateBatch([make('a', 30, true), make('b', 21, false), make('c', 100, true)]);
    expect(groups[0]).toMatchObject({ intendedArgument: 'number', arrayForScalarCount: 2, minOffendingValue: 21, maxOffendingValue: 100 });
    expect(mistakes).toEqual([
      { tool: 't', day: '2026-05-01', descriptionVersion: 0, category: 'overflow', subtype: '', argumentPath: '', count: 3, prevented: 0 },
    ]);
  });

  it("counts the SDK guard's corrected and prevented calls apart, a prevented mistake under its own category too", () => {
    const correction = { original: { numbers: [12] }, corrected: { number: 12 }, kinds: ['rename', 'unwrap_array'] };
    const { versions, mistakes } = aggregateBatch([
      row({ id: 'a', descriptionVersion: 3, correction }),
      row({ id: 'b', descriptionVersion: 3 }),
      { ...errorRow('c', 'f', '2026-05-01T10:00:00Z', 'argument_mismatch'), descriptionVersion: 3, prevented: true },
      { ...errorRow('d', 'f', '2026-05-01T11:00:00Z', 'argument_mismatch'), descriptionVersion: 3 },
    ]);
    expect(versions.map((v) => [v.descriptionVersion, v.calls, v.errors, v.corrected, v.prevented])).toEqual([[3, 4, 2, 1, 1]]);
    expect(mistakes.map((m) => [m.category, m.count, m.prevented])).toEqual([['argument_mismatch', 2, 1]]);
  });
});

describe('aggregateBatch by agent and by model', () => {
  const batchA = [
    row({ id: 'a1', agent: 'planner', model: 'gpt-4.1' }),
    { ...errorRow('a2', 'f1', '2026-05-01T10:05:00Z', 'overflow'), agent: 'planner', model: 'gpt-4.1' },
    { ...errorRow('a3', 'f2', '2026-05-01T10:06:00Z', 'unknown_tool'), model: 'claude-sonnet' },
  ];
  const batchB = [
    { ...errorRow('b1', 'f1', '2026-05-01T10:30:00Z', 'overflow'), agent: 'planner', model: 'gpt-4.1' },
    row({ id: 'b2', agent: 'writer', model: 'gpt-4.1', occurredAt: new Date('2026-05-01T11:10:00Z') }),
  ];

  it('counts calls, errors and errors per category for each agent and each model per tool and hour; none reported is ""', () => {
    const { dimensions } = aggregateBatch(batchA);
    expect(dimensions).toEqual([
      {
        dimension: 'agent',
        value: '',
        tool: 't',
        hour: new Date('2026-05-01T10:00:00Z'),
        calls: 1,
        errors: 1,
        errorCategories: { unknown_tool: 1 },
      },
      {
        dimension: 'agent',
        value: 'planner',
        tool: 't',
        hour: new Date('2026-05-01T10:00:00Z'),
        calls: 2,
        errors: 1,
        errorCategories: { overflow: 1 },
      },
      {
        dimension: 'model',
        value: 'claude-sonnet',
        tool: 't',
        hour: new Date('2026-05-01T10:00:00Z'),
        calls: 1,
        errors: 1,
        errorCategories: { unknown_tool: 1 },
      },
      {
        dimension: 'model',
        value: 'gpt-4.1',
        tool: 't',
        hour: new Date('2026-05-01T10:00:00Z'),
        calls: 2,
        errors: 1,
        errorCategories: { overflow: 1 },
      },
    ]);
  });

  it('gives a group of batches written together the sum of what each batch gives alone (the upsert adds them the same way)', () => {
    const together = aggregateBatch([...batchA, ...batchB]).dimensions;
    const sum = new Map<string, { calls: number; errors: number; errorCategories: Record<string, number> }>();
    for (const part of [...aggregateBatch(batchA).dimensions, ...aggregateBatch(batchB).dimensions]) {
      const key = `${part.dimension}/${part.value}/${part.tool}/${part.hour.toISOString()}`;
      const total = sum.get(key) ?? { calls: 0, errors: 0, errorCategories: {} };
      total.calls += part.calls;
      total.errors += part.errors;
      for (const [category, count] of Object.entries(part.errorCategories))
        total.errorCategories[category] = (total.errorCategories[category] ?? 0) + count;
      sum.set(key, total);
    }
    expect(together).toHaveLength(sum.size);
    for (const rollup of together) {
      const { calls, errors, errorCategories } = rollup;
      expect({ calls, errors, errorCategories }).toEqual(
        sum.get(`${rollup.dimension}/${rollup.value}/${rollup.tool}/${rollup.hour.toISOString()}`),
      );
    }
    expect(together.find((r) => r.dimension === 'agent' && r.value === 'planner' && r.hour.getUTCHours() === 10)).toMatchObject({
      calls: 3,
      errors: 2,
      errorCategories: { overflow: 2 },
    });
  });

  it('returns rollups sorted by dimension, hour, value and tool: the key order rows are locked in', () => {
    const keys = aggregateBatch([...batchB, ...batchA]).dimensions.map((r) => [r.dimension, r.hour.getTime(), r.value, r.tool]);
    expect(keys).toEqual([...keys].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)));
  });
});

describe('aggregateBatch: the unknown lane', () => {
  const unknown = (id: string, message: string, occurredAt: string) => ({
    ...errorRow(id, `f-${id}`, occurredAt, 'unknown'),
    tool: 'ship_order',
    errorType: 'ToolError',
    errorMessage: message,
  });

  it('folds unknown failures by their message template, with counts, first and last seen, samples and an example', () => {
    const { unknownTemplates } = aggregateBatch([
      unknown('a', 'quota spent for account 8812', '2026-05-01T10:20:00Z'),
      unknown('b', 'quota spent for account 7', '2026-05-01T09:00:00Z'),
      unknown('c', "widget 'x' wobbled", '2026-05-01T11:00:00Z'),
      errorRow('d', 'f-d', '2026-05-01T10:00:00Z', 'overflow'),
    ]);
    expect(unknownTemplates).toEqual([
      {
        template: 'quota spent for account <num>',
        count: 2,
        firstSeen: new Date('2026-05-01T09:00:00Z'),
        lastSeen: new Date('2026-05-01T10:20:00Z'),
        sampleEventIds: ['a', 'b'],
        exampleTool: 'ship_order',
        exampleErrorType: 'ToolError',
        exampleMessage: 'quota spent for account 8812',
      },
      expect.objectContaining({ template: 'widget <str> wobbled', count: 1, sampleEventIds: ['c'] }),
    ]);
  });

  it('keeps at most 5 samples of a template, and an example message of at most 2,000 characters', () => {
    const long = `quota spent ${'x'.repeat(5000)}`;
    const rows = Array.from({ length: 8 }, (_, i) => unknown(`e${i}`, long, '2026-05-01T10:20:00Z'));
    const [template] = aggregateBatch(rows).unknownTemplates;
    expect(template.count).toBe(8);
    expect(template.sampleEventIds).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(template.exampleMessage).toHaveLength(2000);
  });
});
