import { ApiError } from './api-error';
import { cursorPositiveInteger, encodeCursor, readCursor, readInstantCursor } from './cursor';

function refusalOf(read: () => unknown): ApiError | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    return error as ApiError;
  }
}

const AT = '2026-03-01T10:00:00.000Z';
const UUID = '0b6f7a2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b';
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Forged cursors of every kind the probe sent; none may reach a query. */
const FORGED: Array<[string, string]> = [
  ['garbage that is not base64', '!!!not*base64!!!'],
  ['base64 of text that is not JSON', base64('{"oops')],
  ['base64 of JSON of another shape', encodeCursor({ at: AT, id: UUID })],
  ['an array too short', encodeCursor([AT])],
  ['an array too long', encodeCursor([AT, UUID, 1])],
  ['a number where the instant goes', encodeCursor([1_700_000_000_000, UUID])],
  ['an object where the id goes', encodeCursor([AT, { id: UUID }])],
  ['an instant Postgres cannot store', encodeCursor(['0000-01-01T00:00:00.000Z', UUID])],
  ['an instant past year 9999', encodeCursor(['+275760-09-13T00:00:00.000Z', UUID])],
  ['an instant in another format', encodeCursor(['March 1, 2026', UUID])],
  ['a date that does not exist', encodeCursor(['2026-02-31T10:00:00.000Z', UUID])],
  ['an id holding NUL', encodeCursor([AT, 'a\u0000'])],
  ['NUL in the JSON text', base64(`["${AT}","\\u0000"]`)],
  ['a lone surrogate id', encodeCursor([AT, '\ud800'])],
  ['an id of 129 characters', encodeCursor([AT, 'x'.repeat(129)])],
  ['a cursor of 100 KB', encodeCursor([AT, 'x'.repeat(100_000)])],
];

describe('readInstantCursor', () => {
  it('reads the [instant, id] cursor a list issued, with a uuid or a text id', () => {
    expect(readInstantCursor(encodeCursor([AT, UUID]), 'uuid')).toEqual({ at: new Date(AT), id: UUID });
    expect(readInstantCursor(encodeCursor([AT, 'evt-1']), 'text')).toEqual({ at: new Date(AT), id: 'evt-1' });
  });

  it.each([...FORGED, ['a text id where a uuid column is compared', encodeCursor([AT, 'not-a-uuid'])]])(
    'refuses %s with 400 invalid_query naming /query/cursor',
    (_, cursor) => {
      for (const idKind of ['uuid', 'text'] as const) {
        if (idKind === 'text' && cursor === encodeCursor([AT, 'not-a-uuid'])) continue;
        const refusal = refusalOf(() => readInstantCursor(cursor, idKind));
        expect(refusal).toBeInstanceOf(ApiError);
        expect(refusal?.status).toBe(400);
        expect(refusal?.toBody().error).toEqual({
          code: 'invalid_query',
          message: 'Invalid query parameter cursor',
          details: [{ path: '/query/cursor', message: 'is not a cursor this API issued' }],
        });
      }
    },
  );
});

describe('cursorPositiveInteger', () => {
  it.each([[1], [42], [2_147_483_647]])('accepts %p', (value) => {
    expect(cursorPositiveInteger(value)).toBe(value);
  });

  it.each([[0], [-3], [1.5], [2_147_483_648], [1e300], [Number.MAX_SAFE_INTEGER + 2], ['3'], [null], [[3]]])('refuses %p', (value) => {
    expect(cursorPositiveInteger(value)).toBeUndefined();
  });
});

describe('readCursor', () => {
  it('answers what the reader makes of the decoded value', () => {
    expect(readCursor(encodeCursor(3), cursorPositiveInteger)).toBe(3);
  });

  it('refuses a value the reader rejects, with the message given', () => {
    expect(refusalOf(() => readCursor(encodeCursor(-3), cursorPositiveInteger, 'is not a cursor of this sort'))?.options.details).toEqual([
      { path: '/query/cursor', message: 'is not a cursor of this sort' },
    ]);
  });
});
