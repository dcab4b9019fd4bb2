import { notFound } from './api-error';

describe('notFound', () => {
  it('answers 404 not_found naming the kind and the quoted id', () => {
    const error = notFound('tool', 'calc');
    expect(error.status).toBe(404);
    expect(error.toBody()).toEqual({ error: { code: 'not_found', message: 'No tool "calc" in this project' } });
  });

  it('quotes an id as data, escaping quotes and control characters', () => {
    expect(notFound('event', 'a"b\nc').message).toBe('No event "a\\"b\\nc" in this project');
  });

  it('cuts a long id to 200 characters, without splitting a surrogate pair', () => {
    expect(notFound('event', 'x'.repeat(10_000)).message).toBe(`No event "${'x'.repeat(200)}…" in this project`);
    expect(notFound('event', `${'x'.repeat(199)}😀tail`).message).toBe(`No event "${'x'.repeat(199)}…" in this project`);
  });
});
