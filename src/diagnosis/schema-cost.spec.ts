import { MAX_SCHEMA_BRANCHES, MAX_SCHEMA_PROGRAM_SIZE, measureSchemaCost } from './schema-cost';

/** The probe of issue 13: `levels` levels, each an `applicator` of two references to the next level. */
function fanOut(levels: number, applicator: 'anyOf' | 'oneOf' | 'allOf'): Record<string, unknown> {
  const $defs: Record<string, unknown> = { [`l${levels}`]: { type: 'string' } };
  for (let i = 0; i < levels; i++) $defs[`l${i}`] = { [applicator]: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
  return { type: 'object', properties: { x: { $ref: '#/$defs/l0' } }, $defs };
}

const treeNode = {
  type: 'object',
  properties: { value: { type: 'integer' }, left: { $ref: '#' }, right: { $ref: '#' } },
};

describe('measureSchemaCost', () => {
  it('refuses the probe of issue 13 (20 levels of anyOf over $ref, 1.6 KB), naming the level that explodes', () => {
    const probe = fanOut(20, 'anyOf');
    expect(JSON.stringify(probe).length).toBeLessThan(1700);
    const cost = measureSchemaCost(probe);
    expect(cost.problems).toEqual([
      {
        kind: 'explodes',
        pointer: expect.stringMatching(/^\/\$defs\/l\d+/),
        message: expect.stringContaining(`more than ${MAX_SCHEMA_BRANCHES} schemas`),
      },
    ]);
  });

  it.each(['oneOf', 'allOf'] as const)('refuses the same fan-out through %s', (applicator) => {
    expect(measureSchemaCost(fanOut(20, applicator)).problems[0].message).toContain('apply to one place');
  });

  it('refuses a fan-out through if/then/else and dependentSchemas', () => {
    const $defs: Record<string, unknown> = { l12: { type: 'string' } };
    for (let i = 0; i < 12; i++) {
      const next = { $ref: `#/$defs/l${i + 1}` };
      $defs[`l${i}`] = { if: next, then: next, else: next, dependentSchemas: { a: next } };
    }
    const cost = measureSchemaCost({ type: 'object', properties: { x: { $ref: '#/$defs/l0' } }, $defs });
    expect(cost.problems[0].message).toContain('apply to one place');
  });

  it('counts what a small fan-out costs without refusing it', () => {
    const cost = measureSchemaCost(fanOut(4, 'anyOf'));
    expect(cost.problems).toEqual([]);
    // at /x: the property schema, then 1 + 2 + 4 + 8 + 16 (levels), each a $ref wrapper below the first
    expect(cost.maxBranches).toBe(1 + 1 + 2 * 2 + 4 * 2 + 8 * 2 + 16 * 2);
  });

  it('refuses a schema that refers to itself in place, which would never end', () => {
    expect(measureSchemaCost({ type: 'object', anyOf: [{ $ref: '#' }] }).problems).toEqual([
      { kind: 'explodes', pointer: '/anyOf/0/$ref', message: expect.stringContaining('refers back to itself') },
    ]);
    const mutual = {
      type: 'object',
      $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { $ref: '#/$defs/a' } },
      properties: { x: { $ref: '#/$defs/a' } },
    };
    expect(measureSchemaCost(mutual).problems[0].message).toContain('refers back to itself');
  });

  it('refuses a recursion that doubles the schemas at each level of the arguments', () => {
    const once = { type: 'array', anyOf: [{ items: { $ref: '#/$defs/once' } }, { maxItems: 3 }] };
    expect(measureSchemaCost({ type: 'object', properties: { x: { $ref: '#/$defs/once' } }, $defs: { once } }).problems).toEqual([]);
    const doubling = { type: 'array', anyOf: [{ items: { $ref: '#/$defs/doubling' } }, { items: { $ref: '#/$defs/doubling' } }] };
    const cost = measureSchemaCost({ type: 'object', properties: { x: { $ref: '#/$defs/doubling' } }, $defs: { doubling } });
    expect(cost.problems[0].message).toContain('apply to one place');
  });

  it.each([
    ['a binary tree', treeNode],
    [
      'a JSON value',
      {
        $defs: {
          json: {
            anyOf: [
              { type: 'string' },
              { type: 'number' },
              { type: 'array', items: { $ref: '#/$defs/json' } },
              { type: 'object', additionalProperties: { $ref: '#/$defs/json' } },
            ],
          },
        },
        type: 'object',
        additionalProperties: { $ref: '#/$defs/json' },
      },
    ],
    [
      'a filter expression',
      {
        type: 'object',
        $defs: {
          filter: {
            type: 'object',
            properties: {
              and: { type: 'array', items: { $ref: '#/$defs/filter' } },
              or: { type: 'array', items: { $ref: '#/$defs/filter' } },
              not: { $ref: '#/$defs/filter' },
              field: { type: 'string', pattern: '^[a-z_]+$' },
              equals: { type: ['string', 'number'] },
            },
          },
        },
        properties: { where: { $ref: '#/$defs/filter' } },
      },
    ],
    [
      'a pydantic model with shared definitions',
      {
        type: 'object',
        $defs: { Address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string', pattern: '^\\d{5}$' } } } },
        properties: { home: { $ref: '#/$defs/Address' }, work: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] } },
      },
    ],
    [
      'a nested $id resource',
      {
        type: 'object',
        properties: { a: { $id: 'https://example.com/a', $defs: { b: { type: 'integer' } }, properties: { c: { $ref: '#/$defs/b' } } } },
      },
    ],
  ])('accepts %s and counts it as small', (_, schema) => {
    const cost = measureSchemaCost(schema);
    expect(cost.problems).toEqual([]);
    expect(cost.maxBranches).toBeLessThan(20);
  });

  it('weighs patterns by their program size and formats, and notes uniqueItems', () => {
    const plain = measureSchemaCost({ type: 'object', properties: { a: { type: 'string' } } });
    const patterned = measureSchemaCost({ type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]{1,64}$' } } });
    expect(plain).toMatchObject({ patterns: [], hasUniqueItems: false });
    expect(patterned).toMatchObject({ patterns: ['^[a-z]{1,64}$'] });
    expect(patterned.maxWeight).toBeGreaterThan(plain.maxWeight + 64);
    expect(measureSchemaCost({ type: 'object', properties: { a: { type: 'array', uniqueItems: true } } }).hasUniqueItems).toBe(true);
  });

  it('reports patterns the linear engine refuses, at their paths, and too many pattern instructions in one schema', () => {
    const cost = measureSchemaCost({
      type: 'object',
      properties: { a: { type: 'string', pattern: '(?=x)' } },
      patternProperties: { '(a)\\1': { type: 'string' } },
    });
    expect(cost.problems).toEqual([
      { kind: 'pattern', pointer: '/patternProperties/(a)\\1', message: expect.stringContaining('backreference') },
      { kind: 'pattern', pointer: '/properties/a/pattern', message: expect.stringContaining('lookahead') },
    ]);
    const properties = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^${i}[a-z]{0,1000}[0-9]{0,1000}$` }]),
    );
    expect(measureSchemaCost({ type: 'object', properties }).problems).toEqual([
      {
        kind: 'pattern',
        pointer: expect.stringMatching(/^\/properties\/p\d\/pattern$/),
        message: expect.stringContaining(`more than ${MAX_SCHEMA_PROGRAM_SIZE}`),
      },
    ]);
  });

  it('gives up on a huge schema (2.4 MB, as one stored before the size limit could be) after a bounded number of steps', () => {
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) {
      $defs[`d${i}`] = {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`p${k}`, { $ref: `#/$defs/d${(i + k + 1) % 2000}` }])),
      };
    }
    const startedAt = performance.now();
    const cost = measureSchemaCost({ type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs });
    expect(performance.now() - startedAt).toBeLessThan(3000);
    expect(cost.problems).toEqual([{ kind: 'unmeasured', pointer: '', message: expect.stringContaining('too complex') }]);
  });

  it('matches patternProperties against declared names, so a pattern that cannot apply adds nothing', () => {
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) {
      $defs[`d${i}`] = {
        type: 'object',
        properties: { a: { $ref: `#/$defs/d${(i + 1) % 30}` } },
        patternProperties: { '^b': { $ref: `#/$defs/d${(i + 2) % 30}` } },
      };
    }
    expect(measureSchemaCost({ type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs })).toMatchObject({
      problems: [],
      maxBranches: 2,
    });
  });
});
