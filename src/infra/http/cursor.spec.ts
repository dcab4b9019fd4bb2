import { ApiError } from './api-error';
import { encodeCursor, readCursor, readInstantCursor } from './cursor';

function refusalOf(read: () => unknown): ApiError | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    return error as ApiError;
  }
}

describe('readInstantCursor', () => {
  it('reads the [instant, id] cursor a list issued', () => {
    expect(readInstantCursor(encodeCursor(['2026-03-01T10:00:00.000Z', 'abc']))).toEqual({
      at: new Date('2026-03-01T10:00:00.000Z'),
      id: 'abc',
    });
  });

  it.each([
    ['not base64 JSON', 'xyz'],
    ['another shape', encodeCursor(['2026-03-01T10:00:00.000Z'])],
    ['an instant Postgres cannot store', encodeCursor(['0000-01-01T00:00:00.000Z', 'abc'])],
    ['an id holding NUL', encodeCursor(['2026-03-01T10:00:00.000Z', 'a\u0000'])],
  ])('refuses %s with 400 invalid_query naming /query/cursor', (_, cursor) => {
    const refusal = refusalOf(() => readInstantCursor(cursor));
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal?.status).toBe(400);
    expect(refusal?.toBody().error).toEqual({
      code: 'invalid_query',
      message: 'Invalid query parameter cursor',
      details: [{ path: '/query/cursor', message: 'is not a cursor this API issued' }],
    });
  });
});

describe('readCursor', () => {
  const positive = (value: unknown) => (Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined);

  it('answers what the reader makes of the decoded value', () => {
    expect(readCursor(encodeCursor(3), positive)).toBe(3);
  });

  it('refuses a value the reader rejects, with the message given', () => {
    expect(refusalOf(() => readCursor(encodeCursor(-3), positive, 'is not a cursor of this sort'))?.options.details).toEqual([
      { path: '/query/cursor', message: 'is not a cursor of this sort' },
    ]);
  });
});
