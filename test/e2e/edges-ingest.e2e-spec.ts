import { anEvent } from '../factories/event.factory';
import { startTestApp, TestApp } from '../support/test-app';

// Issue 13, findings 4 and 9 (ingest): what Postgres would refuse later is refused now, per event and naming the
// field; the other events of the request are accepted and stored; nothing is changed without a word.

const rejectedPaths = (body: { rejected: Array<{ errors: Array<{ path: string }> }> }) =>
  body.rejected.flatMap((r) => r.errors.map((e) => e.path));

describe('ingest edges', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** Posts `bad` between two good events; the good ones must be accepted, and stored once the worker ran their job. */
  async function postBetweenGoodOnes(bad: unknown, path = '/v1/events') {
    const [first, last] = [anEvent(), anEvent()];
    const response = await t.request('POST', path, { body: { events: [first, bad, last] } });
    return { response, first, last };
  }

  describe('finding 4: an instant Postgres cannot store is refused, not accepted and then lost', () => {
    it.each([['0000-01-01T00:00:00Z'], ['9999-12-31T23:59:59-01:00'], ['0001-01-01T00:30:00+01:00'], ['1969-12-31T23:59:59Z']])(
      'refuses occurredAt %s for that event only, and stores the others',
      async (occurredAt) => {
        const { response, first, last } = await postBetweenGoodOnes(anEvent({ occurredAt }));
        expect(response.status).toBe(202);
        expect(response.body.ids).toEqual([first.id, last.id]);
        expect(response.body.rejected).toEqual([
          {
            index: 1,
            errors: [{ path: '/events/1/occurredAt', message: 'must be between 1970-01-01 and 9999-12-31 (UTC) once converted to UTC' }],
          },
        ]);
        await t.storedEvent(first.id as string);
        await t.storedEvent(last.id as string);
      },
    );

    it('accepts and stores the outermost instants it promises', async () => {
      const early = anEvent({ occurredAt: '1970-01-01T00:00:00Z' });
      const late = anEvent({ occurredAt: '9999-12-31T23:59:59+01:00' });
      const response = await t.request('POST', '/v1/events', { body: { events: [early, late] } });
      expect(response.body).toMatchObject({ accepted: 2, rejected: [] });
      expect((await t.storedEvent(early.id as string)).occurredAt).toBe('1970-01-01T00:00:00.000Z');
      expect((await t.storedEvent(late.id as string)).occurredAt).toBe('9999-12-31T22:59:59.000Z');
    });

    it('refuses a duration that would overflow a rollup (1.7e308), for that event only', async () => {
      const { response, first } = await postBetweenGoodOnes(anEvent({ durationMs: 1.7e308 }));
      expect(response.status).toBe(202);
      expect(response.body.rejected).toEqual([{ index: 1, errors: [{ path: '/events/1/durationMs', message: 'must be <= 2592000000' }] }]);
      await t.storedEvent(first.id as string);
    });
  });

  describe('finding 9: numbers JSON cannot carry are refused, never stored as null', () => {
    it('refuses 1e309 inside arguments, naming its path', async () => {
      const [good, bad] = [anEvent(), anEvent()];
      const rawBody = JSON.stringify({ events: [good, { ...bad, arguments: { n: 0 } }] }).replace('"n":0', '"n":1e309');
      const response = await t.request('POST', '/v1/events', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(202);
      expect(response.body.ids).toEqual([good.id]);
      expect(response.body.rejected).toEqual([
        { index: 1, errors: [{ path: '/events/1/arguments/n', message: expect.stringMatching(/^must be a finite number/) }] },
      ]);
      await t.storedEvent(good.id as string);
    });

    it.each([
      ['-1e309 deep in a result', '{"rows":[[1,-1e309]]}', 'result', '/events/0/result/rows/0/1'],
      ['1e400 in metadata', '{"cost":1e400}', 'metadata', '/events/0/metadata/cost'],
    ])('refuses %s', async (_case, json, field, path) => {
      const rawBody = `{"events":[{"tool":"t","status":"success","${field}":${json}}]}`;
      const response = await t.request('POST', '/v1/events', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      expect(rejectedPaths(response.body)).toEqual([path]);
    });

    it('refuses 1e309 inside OpenAI arguments text and inside an OTLP span, per event and per span', async () => {
      const openai = { openai: { toolCall: { id: 'call_1', type: 'function', function: { name: 'calc', arguments: '{"n": 1e309}' } } } };
      const { response } = await postBetweenGoodOnes(openai);
      expect(response.status).toBe(202);
      expect(rejectedPaths(response.body)).toEqual(['/events/1/arguments/n']);

      const span = {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        name: 'execute_tool calc',
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
          { key: 'gen_ai.tool.call.arguments', value: { stringValue: '{"n": 1e309}' } },
        ],
      };
      const traces = await t.request('POST', '/v1/traces', { body: { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] } });
      expect(traces.status).toBe(200);
      expect(traces.body.partialSuccess).toMatchObject({
        rejectedSpans: 1,
        errorMessage: expect.stringContaining('/arguments/n must be a finite number'),
      });
    });
  });

  describe('finding 9: ids and text the store would change are refused, so no two events collide', () => {
    it('refuses ids that differ only by a NUL or a lone surrogate, and stores the third as it was sent', async () => {
      const base = `dup-${Date.now()}`;
      const events = [
        anEvent({ id: `${base}\u0000` }),
        anEvent({ id: `${base}\ud800` }),
        anEvent({ id: `${base}\uFFFD`, arguments: { which: 'third' } }),
      ];
      const response = await t.request('POST', '/v1/events', { body: { events } });
      expect(response.status).toBe(202);
      expect(response.body.ids).toEqual([`${base}\uFFFD`]);
      expect(response.body.rejected).toEqual([
        { index: 0, errors: [{ path: '/events/0/id', message: 'must not contain the NUL character (U+0000)' }] },
        { index: 1, errors: [{ path: '/events/1/id', message: 'must not contain a lone UTF-16 surrogate' }] },
      ]);
      expect((await t.storedEvent(`${base}\uFFFD`)).arguments).toEqual({ which: 'third' });
    });

    it.each([
      ['a NUL in the tool name', { tool: 'calc\u0000' }, '/events/1/tool'],
      [
        'a lone surrogate in an error message',
        { status: 'error', result: undefined, error: { message: 'bad \udc00' } },
        '/events/1/error/message',
      ],
      ['a NUL in an argument name', { arguments: { 'a\u0000b': 1 } }, '/events/1/arguments/a\\u0000b'],
    ])('refuses %s for that event only', async (_case, overrides, path) => {
      const { response, first } = await postBetweenGoodOnes(anEvent(overrides));
      expect(response.status).toBe(202);
      expect(rejectedPaths(response.body)).toEqual([path]);
      await t.storedEvent(first.id as string);
    });
  });

  describe('text judged by the body it came in (issue 18: a body without \\u escapes skips the per-string checks)', () => {
    it('stores raw non-BMP text in keys and values as sent, next to an event refused for an escaped lone surrogate', async () => {
      const id = `raw-${Date.now()}`;
      const rawBody =
        `{"events":[{"id":"${id}","tool":"calc","status":"success","arguments":{"😀key":"value 😀","n":[1,{"é":"\\u00e9"}]}},` +
        `{"id":"${id}-bad","tool":"calc","status":"success","arguments":{"a":"\\ud83d"}}]}`;
      const response = await t.request('POST', '/v1/events', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(202);
      expect(response.body.ids).toEqual([id]);
      expect(rejectedPaths(response.body)).toEqual(['/events/1/arguments/a']);
      expect((await t.storedEvent(id)).arguments).toEqual({ '😀key': 'value 😀', n: [1, { é: 'é' }] });
    });

    it('stores an OpenAI call whose arguments text is a lone emoji: the parse message quoting half of it is made storable', async () => {
      const id = `emoji-${Date.now()}`;
      const rawBody = `{"events":[{"id":"${id}","openai":{"toolCall":{"type":"function","function":{"name":"calc","arguments":"😀"}},"result":1}}]}`;
      expect(rawBody.includes('\\u')).toBe(false);
      const response = await t.request('POST', '/v1/events', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(202);
      expect(response.body.rejected).toEqual([]);
      const stored = await t.storedEvent(id);
      expect(stored.status).toBe('error');
      expect(stored.error.message.isWellFormed()).toBe(true);
      expect(stored.error.message).toContain('is not valid JSON');
      expect(stored.arguments).toBe('😀');
    });

    it('refuses a number JSON cannot carry in a body without escapes', async () => {
      const rawBody = `{"events":[{"tool":"calc","status":"success","arguments":{"n":1e309}}]}`;
      const response = await t.request('POST', '/v1/events', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      expect(response.body.rejected[0].errors[0].path).toBe('/events/0/arguments/n');
    });
  });

  describe('finding 9: a __proto__ key never costs the whole request', () => {
    it('stores an event whose arguments hold a __proto__ key, as plain data, beside the others', async () => {
      const [good, odd] = [anEvent(), anEvent()];
      const rawBody = JSON.stringify({ events: [good, { ...odd, arguments: { PROTO: { polluted: true }, n: 1 } }] }).replace(
        '"PROTO"',
        '"__proto__"',
      );
      const response = await t.request('POST', '/v1/events', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(202);
      expect(response.body).toMatchObject({ accepted: 2, rejected: [] });
      const stored = await t.storedEvent(odd.id as string);
      expect(Object.getOwnPropertyNames(stored.arguments).sort()).toEqual(['__proto__', 'n']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('stores constructor.prototype inside arguments as data, and refuses a __proto__ field of the event itself alone', async () => {
      const [good, odd, wrong] = [anEvent(), anEvent(), anEvent()];
      const rawBody = JSON.stringify({
        events: [good, { ...odd, arguments: { constructor: { prototype: { polluted: true } } } }, { ...wrong, PROTO: { status: 'error' } }],
      }).replace('"PROTO"', '"__proto__"');
      const response = await t.request('POST', '/v1/events', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(202);
      expect(response.body.ids).toEqual([good.id, odd.id]);
      expect(response.body.rejected).toEqual([{ index: 2, errors: [{ path: '/events/2/__proto__', message: 'is not a known field' }] }]);
      expect((await t.storedEvent(odd.id as string)).arguments).toEqual({ constructor: { prototype: { polluted: true } } });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('takes an OTLP export whose span carries a __proto__ attribute', async () => {
      const span = {
        traceId: '6b8efff798038103d269b633813fc60c',
        spanId: 'fee19b7ec3c1b174',
        name: 'execute_tool calc',
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
          { key: 'gen_ai.tool.call.arguments', value: { stringValue: '{"__proto__": {"polluted": true}, "n": 2}' } },
        ],
        PROTO: { x: 1 },
      };
      const rawBody = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }).replace('"PROTO"', '"__proto__"');
      const response = await t.request('POST', '/v1/traces', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({});
      const stored = await t.storedEvent(`otel:${span.traceId}:${span.spanId}`);
      expect(Object.getOwnPropertyNames(stored.arguments).sort()).toEqual(['__proto__', 'n']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('still refuses a __proto__ key on routes that do not judge it per item', async () => {
      const rawBody = '{"description": "d", "parameters": {"type": "object"}, "__proto__": {"polluted": true}}';
      const response = await t.request('PUT', '/v1/tools/calc', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
});
