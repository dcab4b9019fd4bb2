import { eventErrors } from './event.schemas';
import { MAX_ERROR_MESSAGE_CHARS, MAX_JSON_DEPTH, MAX_RESULT_BYTES, normalizeEvent } from './event-normalizer';

const now = new Date('2026-06-01T12:00:00Z');
const valid = { tool: 't', status: 'success' as const };

describe('eventErrors', () => {
  it.each([
    [{ status: 'success' }, '/events/0/tool', 'is required'],
    [{ tool: '', status: 'success' }, '/events/0/tool', 'must NOT have fewer than 1 characters'],
    [{ tool: 't', status: 'ok' }, '/events/0/status', 'must be one of "success", "error"'],
    [{ tool: 't', status: 'error' }, '/events/0/error', 'is required'],
    [{ tool: 't', status: 'error', error: {} }, '/events/0/error/message', 'is required'],
    [{ ...valid, durationMs: 'fast' }, '/events/0/durationMs', 'must be number'],
    [{ ...valid, durationMs: 1.7e308 }, '/events/0/durationMs', 'must be <= 2592000000'],
    [{ ...valid, descriptionVersion: 1.5 }, '/events/0/descriptionVersion', 'must be integer'],
    [{ ...valid, occurredAt: '2026-13-01' }, '/events/0/occurredAt', 'must match format "date-time"'],
    [{ ...valid, metadata: [] }, '/events/0/metadata', 'must be object'],
    [{ ...valid, extra: 1 }, '/events/0/extra', 'is not a known field'],
  ])('rejects %j naming %s', (event, path, message) => {
    expect(eventErrors(event, 0)).toContainEqual({ path, message });
  });

  it('accepts a minimal event and one with every field', () => {
    expect(eventErrors(valid, 0)).toEqual([]);
    const full = {
      id: 'x',
      tool: 't',
      status: 'error',
      arguments: '{"a":',
      result: [1],
      error: { type: 'E', message: 'm', stack: 's' },
      durationMs: 0,
      occurredAt: '2026-01-01T00:00:00Z',
      agent: 'a',
      model: 'm',
      framework: 'f',
      sessionId: 's',
      traceId: 't',
      runId: 'r',
      toolCallId: 'c',
      descriptionVersion: 3,
      prompt: 'p',
      metadata: { k: 1 },
    };
    expect(eventErrors(full, 5)).toEqual([]);
  });
});

describe('normalizeEvent', () => {
  it('generates an id and defaults occurredAt to now', () => {
    const result = normalizeEvent(valid, 0, now);
    if (!('event' in result)) throw new Error('expected an event');
    expect(result.event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.event.occurredAt).toBe(now.toISOString());
  });

  it('keeps arguments that are a string (the model produced invalid JSON) as they are', () => {
    const result = normalizeEvent({ ...valid, arguments: '{"n": 5' }, 0, now);
    expect('event' in result && result.event.arguments).toBe('{"n": 5');
  });

  it('refuses metadata over 4 KB and arguments nested too deep, naming the field', () => {
    expect(normalizeEvent({ ...valid, metadata: { k: 'x'.repeat(5000) } }, 2, now)).toEqual({
      errors: [{ path: '/events/2/metadata', message: 'must be at most 4096 bytes as JSON' }],
    });
    let deep: unknown = 1;
    for (let i = 0; i <= MAX_JSON_DEPTH; i++) deep = [deep];
    expect(normalizeEvent({ ...valid, arguments: deep }, 0, now)).toEqual({
      errors: [{ path: '/events/0/arguments', message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  });

  it('truncates the prompt to 2 KB, and a long error message never between the halves of a surrogate pair', () => {
    const message = 'x'.repeat(MAX_ERROR_MESSAGE_CHARS - 1) + '💥';
    const result = normalizeEvent({ tool: 't', status: 'error', prompt: 'p'.repeat(3000), error: { message } }, 0, now);
    if (!('event' in result)) throw new Error('expected an event');
    expect(result.event.prompt).toHaveLength(2048);
    expect(result.event.error?.message).toBe('x'.repeat(MAX_ERROR_MESSAGE_CHARS - 1));
  });

  it.each([
    [
      'a NUL in an argument value',
      { ...valid, arguments: { a: 'x\u0000' } },
      '/events/0/arguments/a',
      'must not contain the NUL character (U+0000)',
    ],
    [
      'a NUL in an argument name',
      { ...valid, arguments: { 'a\u0000b': 1 } },
      '/events/0/arguments/a\\u0000b',
      'has a key that must not contain the NUL character (U+0000)',
    ],
    [
      'a lone surrogate in a result',
      { ...valid, result: ['ok', '\ud800'] },
      '/events/0/result/1',
      'must not contain a lone UTF-16 surrogate',
    ],
    ['a NUL in the id', { ...valid, id: 'a\u0000b' }, '/events/0/id', 'must not contain the NUL character (U+0000)'],
    ['a lone surrogate in the id', { ...valid, id: 'a\udc00' }, '/events/0/id', 'must not contain a lone UTF-16 surrogate'],
    [
      'a NUL in the error message',
      { tool: 't', status: 'error' as const, error: { message: '\u0000' } },
      '/events/0/error/message',
      'must not contain the NUL character (U+0000)',
    ],
    [
      '1e309 in arguments',
      { ...valid, arguments: JSON.parse('{"n": [1, 1e309]}') },
      '/events/0/arguments/n/1',
      expect.stringMatching(/^must be a finite number/),
    ],
    [
      '-1e309 in metadata',
      { ...valid, metadata: JSON.parse('{"m": {"x": -1e309}}') },
      '/events/0/metadata/m/x',
      expect.stringMatching(/^must be a finite number/),
    ],
    [
      'a NUL inside arguments sent as JSON text',
      { ...valid, arguments: '{"a\\u0000": 1}' },
      '/events/0/arguments',
      expect.stringMatching(/^is JSON text whose value at "\/a\\u0000" has a key that must not contain the NUL/),
    ],
    [
      'a year-0 occurredAt',
      { ...valid, occurredAt: '0000-01-01T00:00:00Z' },
      '/events/0/occurredAt',
      'must be between 1970-01-01 and 9999-12-31 (UTC) once converted to UTC',
    ],
    [
      'an occurredAt past 9999 in UTC',
      { ...valid, occurredAt: '9999-12-31T23:59:59-01:00' },
      '/events/0/occurredAt',
      'must be between 1970-01-01 and 9999-12-31 (UTC) once converted to UTC',
    ],
    [
      'an occurredAt before 1970',
      { ...valid, occurredAt: '1969-12-31T23:59:59Z' },
      '/events/0/occurredAt',
      'must be between 1970-01-01 and 9999-12-31 (UTC) once converted to UTC',
    ],
  ])('refuses an event with %s, naming the path', (_case, event, path, message) => {
    expect(normalizeEvent(event, 0, now)).toEqual({ errors: [{ path, message }] });
  });

  it('refuses a number JSON cannot carry and a nesting too deep also when the body text is known storable', () => {
    const infinite = { ...valid, result: { n: [1, JSON.parse('1e309')] } };
    expect(normalizeEvent(infinite, 4, now, true)).toEqual({
      errors: [{ path: '/events/4/result/n/1', message: expect.stringMatching(/^must be a finite number/) }],
    });
    const nested = (levels: number) => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value };
      return value;
    };
    for (const isTextStorable of [false, true]) {
      expect('event' in normalizeEvent({ ...valid, arguments: nested(MAX_JSON_DEPTH) }, 0, now, isTextStorable)).toBe(true);
      expect(normalizeEvent({ ...valid, metadata: { m: nested(MAX_JSON_DEPTH) } }, 1, now, isTextStorable)).toEqual({
        errors: [{ path: '/events/1/metadata', message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }],
      });
    }
  });

  it('queues only the fields an event has: absent ones leave no key in the job', () => {
    const result = normalizeEvent({ ...valid, id: 'a', error: { message: 'm' }, status: 'error' }, 0, now);
    if (!('event' in result)) throw new Error('expected an event');
    expect(JSON.parse(JSON.stringify(result.event))).toStrictEqual({
      id: 'a',
      tool: 't',
      status: 'error',
      occurredAt: now.toISOString(),
      error: { message: 'm' },
    });
  });

  it('accepts the outermost instants it stores', () => {
    for (const occurredAt of ['1970-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59+01:00']) {
      expect('event' in normalizeEvent({ ...valid, occurredAt }, 0, now)).toBe(true);
    }
  });

  it('keeps storable arguments as they came (no copy) and never changes the request body', () => {
    const storableArgs = { query: 'refund', limit: 5, filters: [{ lang: 'en' }] };
    const kept = normalizeEvent({ ...valid, arguments: storableArgs }, 0, now);
    if (!('event' in kept)) throw new Error('expected an event');
    expect(kept.event.arguments).toBe(storableArgs);
  });

  it('keeps a result of at most 4 KB of JSON as it is and cuts one a byte longer, whatever its characters', () => {
    // a string of n units written as JSON: ASCII 1 byte each, é 2, € 3, a control character 6 (\u0001)
    const sized = (unit: string, bytesPerUnit: number, totalBytes: number) => {
      const overhead = Buffer.byteLength(JSON.stringify({ text: '' }));
      return { text: unit.repeat(Math.floor((totalBytes - overhead) / bytesPerUnit)) };
    };
    for (const [unit, bytesPerUnit] of [
      ['a', 1],
      ['é', 2],
      ['€', 3],
      ['\u0001', 6],
    ] as const) {
      for (const totalBytes of [MAX_RESULT_BYTES - 6, MAX_RESULT_BYTES, MAX_RESULT_BYTES + 6]) {
        const result = sized(unit, bytesPerUnit, totalBytes);
        const bytes = Buffer.byteLength(JSON.stringify(result));
        const normalized = normalizeEvent({ ...valid, result }, 0, now);
        if (!('event' in normalized)) throw new Error('expected an event');
        if (bytes <= MAX_RESULT_BYTES) expect(normalized.event.result).toBe(result);
        else expect(normalized.event.result).toMatchObject({ $truncated: true, bytes });
      }
    }
    const many = Array.from({ length: 2100 }, () => 1);
    expect(normalizeEvent({ ...valid, result: many }, 0, now)).toMatchObject({ event: { result: { $truncated: true, bytes: 4201 } } });
  });

  it('gives every event of a batch without its own occurredAt the same receipt time, and a later batch its own', () => {
    const first = [normalizeEvent(valid, 0, now), normalizeEvent(valid, 1, now)];
    const later = normalizeEvent(valid, 0, new Date('2026-06-01T12:00:01Z'));
    expect(first.map((r) => 'event' in r && r.event.occurredAt)).toEqual(['2026-06-01T12:00:00.000Z', '2026-06-01T12:00:00.000Z']);
    expect('event' in later && later.event.occurredAt).toBe('2026-06-01T12:00:01.000Z');
  });

  it('does not let a __proto__ key change the prototype of stored arguments', () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "n": 1}');
    const result = normalizeEvent({ ...valid, arguments: args }, 0, now);
    if (!('event' in result)) throw new Error('expected an event');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result.event.arguments)).toBe(Object.prototype);
    expect(JSON.stringify(result.event.arguments)).toBe('{"__proto__":{"polluted":true},"n":1}');
  });
});

describe('normalizeEvent redaction', () => {
  it('redacts secret-looking argument, result and metadata values before they are queued', () => {
    const result = normalizeEvent(
      { ...valid, arguments: { q: 'x', api_key: 'sk-123' }, result: { token: 'abc' }, metadata: { authorization: 'Bearer x' } },
      0,
      now,
    );
    if (!('event' in result)) throw new Error('expected an event');
    expect(result.event.arguments).toEqual({ q: 'x', api_key: '[REDACTED]' });
    expect(result.event.result).toEqual({ token: '[REDACTED]' });
    expect(result.event.metadata).toEqual({ authorization: '[REDACTED]' });
  });
});

describe('normalizeEvent result failures (docs/result-failures.md)', () => {
  const accepted = (raw: Parameters<typeof normalizeEvent>[0]) => {
    const result = normalizeEvent(raw, 0, now);
    if (!('event' in result)) throw new Error('expected an event');
    return result.event;
  };

  it('reads the whole result before it is cut: an MCP error over the result limit keeps its text', () => {
    const text = `n must be <= 20. ${'x'.repeat(MAX_RESULT_BYTES)}`;
    const event = accepted({ ...valid, result: { content: [{ type: 'text', text }], isError: true } });
    expect(event.result).toMatchObject({ $truncated: true });
    expect(event.resultFailure).toEqual({ rules: ['mcp_is_error'], type: 'ResultError', message: text });
  });

  it('bounds and redacts the message it carries', () => {
    const event = accepted({
      ...valid,
      result: { success: false, error: `rejected api_key=abcdefghijklmnop ${'y'.repeat(2 * MAX_ERROR_MESSAGE_CHARS)}` },
    });
    expect(event.resultFailure?.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(event.resultFailure?.message).not.toContain('abcdefghijklmnop');
  });

  it('reads only results of calls reported as successes, and leaves none on a result that says nothing of a failure', () => {
    expect(accepted({ ...valid, result: { success: true, error: null } }).resultFailure).toBeUndefined();
    expect(accepted({ ...valid }).resultFailure).toBeUndefined();
    const failed = accepted({ tool: 't', status: 'error', error: { message: 'boom' }, result: { success: false } });
    expect(failed.resultFailure).toBeUndefined();
  });
});
