import { eventErrors } from './event.schemas';
import { MAX_JSON_DEPTH, normalizeEvent } from './event-normalizer';

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
      id: 'x', tool: 't', status: 'error', arguments: '{"a":', result: [1], error: { type: 'E', message: 'm', stack: 's' },
      durationMs: 0, occurredAt: '2026-01-01T00:00:00Z', agent: 'a', model: 'm', framework: 'f', sessionId: 's',
      traceId: 't', runId: 'r', toolCallId: 'c', descriptionVersion: 3, prompt: 'p', metadata: { k: 1 },
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

  it('truncates the prompt to 2 KB and replaces characters Postgres cannot store', () => {
    const result = normalizeEvent({ ...valid, prompt: 'p'.repeat(3000), arguments: { 'a\u0000': '\ud800x' } }, 0, now);
    if (!('event' in result)) throw new Error('expected an event');
    expect(result.event.prompt).toHaveLength(2048);
    expect(result.event.arguments).toEqual({ 'a\uFFFD': '\uFFFDx' });
  });

  it('keeps storable arguments as they came (no copy) and never changes the request body', () => {
    const storableArgs = { query: 'refund', limit: 5, filters: [{ lang: 'en' }] };
    const kept = normalizeEvent({ ...valid, arguments: storableArgs }, 0, now);
    if (!('event' in kept)) throw new Error('expected an event');
    expect(kept.event.arguments).toBe(storableArgs);
    const odd = { keep: { n: 1 }, fix: ['ok', 'a\u0000'] };
    const fixed = normalizeEvent({ ...valid, arguments: odd }, 0, now);
    if (!('event' in fixed)) throw new Error('expected an event');
    expect(fixed.event.arguments).toEqual({ keep: { n: 1 }, fix: ['ok', 'a\uFFFD'] });
    expect(odd.fix[1]).toBe('a\u0000');
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
