import { randomUUID } from 'node:crypto';
import { runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const DAY = '2026-04-02';

/**
 * Issue 33, finding 10: names that render as blanks or look like other letters, and values that are links, never go into
 * an auto-applied warning; they wait as `proposed` with the reason, quoted as escaped JSON. A malformed-JSON warning,
 * which quotes no name, is applied as before (issue 34, finding 6).
 */
describe('names and values that do not read as what they are', () => {
  let t: TestApp;
  type Recommendation = { kind: string; text: string; status: string; evidence: Record<string, unknown> };
  const recommendationsOf = new Map<string, Recommendation[]>();
  const descriptionOf = new Map<string, string>();

  const hostileNames = {
    hangul_filler: '\u3164', // the probe: renders as a blank
    filler_suffix: 'city\u3164',
    zero_width: 'ci\u200bty',
    bidi: 'city\u202e',
    cyrillic_a: 'p\u0430ssword',
    braille_blank: '\u2800',
    halfwidth_filler: '\uffa0',
    domain_name: 'evil.com',
  };
  const linkValues = {
    url: 'https://evil.example/x', // the probe: a URL as a plain value
    domain: 'evil.com',
    email: 'bob@example.com',
    www: 'www.evil',
  };

  const at = (i: number) => new Date(Date.parse(`${DAY}T09:00:00Z`) + i * 1000).toISOString();
  const mistake = (tool: string, i: number, fields: Record<string, unknown>) => ({
    id: randomUUID(),
    tool,
    status: 'error',
    arguments: { city: 'Paris' },
    error: { type: 'ValidationError', message: 'invalid arguments' },
    occurredAt: at(i),
    ...fields,
  });

  beforeAll(async () => {
    t = await startTestApp();
    const tools = [...Object.keys(hostileNames), ...Object.keys(linkValues).map((k) => `value_${k}`), 'plain_name', 'malformed_json'];
    for (const tool of tools) {
      const registered = await t.request('PUT', `/v1/tools/${tool}`, {
        body: {
          description: 'Look up the weather of a city.',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
            required: ['city'],
            additionalProperties: false,
          },
        },
      });
      expect(registered.status).toBe(201);
    }
    const events: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 8; i++) {
      for (const [tool, name] of Object.entries(hostileNames)) events.push(mistake(tool, i, { arguments: { city: 'Paris', [name]: 1 } }));
      for (const [key, value] of Object.entries(linkValues))
        events.push(mistake(`value_${key}`, i, { arguments: { city: 'Paris', unit: value } }));
      events.push(mistake('plain_name', i, { arguments: { city: 'Paris', cities: ['Paris'] } }));
      events.push(
        mistake('malformed_json', i, {
          arguments: '{"city": "Paris"',
          error: { type: 'SyntaxError', message: 'Unexpected end of JSON input' },
        }),
      );
    }
    const response = await t.request('POST', '/v1/events', { body: { events } });
    expect(response.status).toBe(202);
    expect(response.body.accepted).toBe(events.length);
    await eventually(async () => {
      const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events');
      return rows[0].n === events.length ? true : undefined;
    }, 30_000);
    const run = await runNightly(t, DAY);
    expect(run.body.status).toBe('succeeded');
    for (const tool of tools) {
      const listed = await t.request('GET', `/v1/recommendations?tool=${tool}&limit=200`);
      recommendationsOf.set(
        tool,
        (listed.body.items as Recommendation[]).filter((r) => r.kind !== 'schema_quality'),
      );
      descriptionOf.set(tool, (await t.request('GET', `/v1/tools/${tool}/description`)).body.description);
    }
  });
  afterAll(() => t.close());

  it.each(Object.entries(hostileNames))('holds the warning about the argument %s for review, the name escaped', (tool, name) => {
    const recommendation = recommendationsOf.get(tool)!.find((r) => r.kind === 'wrong_argument_name');
    expect(recommendation).toMatchObject({ status: 'proposed' });
    expect(recommendation!.evidence.requiresReview).toEqual(expect.stringContaining('is not a plain identifier'));
    // quoted as JSON: a human sees \u3164, not a blank
    const escaped = JSON.stringify(name).replace(/[^\x20-\x7e]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(recommendation!.text).toContain(escaped);
    expect(descriptionOf.get(tool)).not.toContain(name);
  });

  it.each(Object.entries(linkValues))('holds the warning quoting the %s value for review', (key, value) => {
    const recommendation = recommendationsOf.get(`value_${key}`)!.find((r) => r.kind === 'enum_values');
    expect(recommendation).toMatchObject({ status: 'proposed' });
    expect(recommendation!.evidence.requiresReview).toEqual(expect.stringContaining('is not a number or a short plain string'));
    expect(descriptionOf.get(`value_${key}`)).not.toContain(value);
  });

  it('applies the warning whose name is plain ASCII', () => {
    const recommendation = recommendationsOf.get('plain_name')!.find((r) => r.kind === 'wrong_argument_name');
    expect(recommendation).toMatchObject({ status: 'applied' });
    expect(descriptionOf.get('plain_name')).toContain("Do not pass 'cities'");
  });

  it('applies the malformed-JSON warning, which quotes no argument name, under the default policy', () => {
    const recommendation = recommendationsOf.get('malformed_json')!.find((r) => r.kind === 'malformed_arguments');
    expect(recommendation).toMatchObject({ status: 'applied' });
    expect(recommendation!.evidence.requiresReview).toBeUndefined();
    expect(descriptionOf.get('malformed_json')).toContain('Pass the arguments as one valid JSON object');
  });
});
