import { diagnose } from './categorizer';
import { findResultFailure, MAX_RESULT_FAILURE_MESSAGE_CHARS, RESULT_ERROR_TYPE } from './result-failure';

// Which results of calls reported as successes say they failed (docs/result-failures.md): each rule, its near misses,
// and what the failure carries to the categorizer.

describe('findResultFailure', () => {
  it.each([
    ['an MCP result with isError', { content: [{ type: 'text', text: 'n must be <= 20' }], isError: true }, ['mcp_is_error']],
    ['an MCP result with isError and structuredContent', { content: [], structuredContent: { a: 1 }, isError: true }, ['mcp_is_error']],
    ['success: false', { success: false, data: null }, ['failure_flag']],
    ['success: 0', { success: 0 }, ['failure_flag']],
    ['ok: false', { ok: false }, ['failure_flag']],
    ['status: "error"', { status: 'error' }, ['failure_flag']],
    ['status: "FAILED"', { status: 'FAILED' }, ['failure_flag']],
    ['status: "Failure"', { status: 'Failure' }, ['failure_flag']],
    ['a text error field', { error: 'not found' }, ['error_field']],
    ['an object error field', { error: { code: 'E1' } }, ['error_field']],
    ['error: true', { error: true }, ['error_field']],
    ['a non-empty errors list', { errors: ['bad'] }, ['error_field']],
    ['a non-empty errors object', { errors: { n: 'too big' } }, ['error_field']],
    ['statusCode 404', { statusCode: 404 }, ['status_code']],
    ['status_code 500', { status_code: 500 }, ['status_code']],
    ['status 429', { status: 429, body: 'x' }, ['status_code']],
    ['success: false with an error', { success: false, error: 'n too big' }, ['failure_flag', 'error_field']],
    [
      'every rule at once',
      { isError: true, ok: false, error: 'x', statusCode: 503 },
      ['mcp_is_error', 'failure_flag', 'error_field', 'status_code'],
    ],
    ['an error string', 'Error: n must be <= 20', ['error_string']],
    ['an error string in lower case after spaces', '\n  error: disk full', ['error_string']],
    ['an exception string', 'Exception: boom', ['error_string']],
    ['a Python exception line', "ValueError: invalid literal for int() with base 10: 'x'", ['error_string']],
    ['a Java exception line', 'java.lang.IllegalArgumentException: n must be positive', ['error_string']],
    ['a Python traceback', 'Traceback (most recent call last):\n  File "t.py", line 1\nKeyError: 1', ['error_string']],
  ])('finds %s', (_name, result, rules) => {
    expect(findResultFailure(result)?.rules).toEqual(rules);
  });

  it.each([
    ['success with a null error', { success: true, error: null }],
    ['success: true beside an error text', { success: true, error: 'partial' }],
    ['ok: true beside a status 500', { ok: true, statusCode: 500 }],
    ['an empty errors list', { errors: [] }],
    ['an empty errors object', { errors: {} }],
    ['an empty error text', { error: '  ' }],
    ['error: false', { error: false }],
    ['error: 0', { error: 0 }],
    ['an empty error object', { error: {} }],
    ['status 200', { status: 200 }],
    ['statusCode 399', { statusCode: 399 }],
    ['statusCode 600', { statusCode: 600 }],
    ['a status code as text', { statusCode: '404' }],
    ['status: "ok"', { status: 'ok' }],
    ['status: "errors found"', { status: 'errors found' }],
    ['success: "false" as text', { success: 'false' }],
    ['isError: false', { content: [{ type: 'text', text: 'Error: nothing' }], isError: false }],
    ['isError as text', { isError: 'true' }],
    ['a nested failure', { data: { success: false, error: 'deep' } }],
    ['a list result', [{ error: 'x' }]],
    ['No errors found', 'No errors found'],
    ['Errors: 0', 'Errors: 0'],
    ['an error mentioned mid-text', 'Completed with 0 errors. Error: none seen'],
    ['Error rate: 5%', 'Error rate: 5%'],
    ['a word ending in error', 'Mirror: updated'],
    ['a colon after a sentence', 'This error happened: no'],
    ['a number', 404],
    ['null', null],
    ['an error marker after too much leading space', `${' '.repeat(65)}Error: x`],
  ])('finds nothing in %s', (_name, result) => {
    expect(findResultFailure(result)).toBeNull();
  });

  it('carries the MCP content text, one block a line, without the non-text blocks', () => {
    const failure = findResultFailure({
      content: [
        { type: 'text', text: 'n must be <= 20' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'text', text: 'got 25' },
      ],
      isError: true,
    });
    expect(failure).toEqual({ rules: ['mcp_is_error'], type: RESULT_ERROR_TYPE, message: 'n must be <= 20\ngot 25' });
  });

  it('says what it saw when the result carries no text', () => {
    expect(findResultFailure({ content: [], isError: true })?.message).toBe('Tool returned isError without content');
    expect(findResultFailure({ success: 0 })?.message).toBe('The result reported "success": 0');
    expect(findResultFailure({ status: 'FAILED' })?.message).toBe('The result reported "status": "FAILED"');
    expect(findResultFailure({ errors: { n: 'x' } })?.message).toBe('The result reported an error');
    expect(findResultFailure({ statusCode: 503 })?.message).toBe('status code 503');
  });

  it('takes the message from the error text, the error object, the first of errors, or message', () => {
    expect(findResultFailure({ success: false, error: 'quota exceeded' })?.message).toBe('quota exceeded');
    expect(findResultFailure({ error: { message: 'no such order', code: 'E404' } })?.message).toBe('no such order');
    expect(findResultFailure({ errors: [{ message: 'n too big' }, { message: 'm too small' }] })?.message).toBe('n too big');
    expect(findResultFailure({ ok: false, message: 'not allowed' })?.message).toBe('not allowed');
    expect(findResultFailure({ statusCode: 429, error: 'Too Many Requests' })?.message).toBe('status code 429: Too Many Requests');
  });

  it('keeps the type the result names, else ResultError', () => {
    expect(findResultFailure({ error: { type: 'RateLimitError', message: 'slow down' } })?.type).toBe('RateLimitError');
    expect(findResultFailure({ error: { name: 'ValidationError', message: 'n' } })?.type).toBe('ValidationError');
    expect(findResultFailure({ error: { type: 'not a type name', message: 'n' } })?.type).toBe(RESULT_ERROR_TYPE);
    expect(findResultFailure('ValueError: bad n')).toEqual({ rules: ['error_string'], type: 'ValueError', message: 'ValueError: bad n' });
    expect(findResultFailure('java.io.IOException: gone')?.type).toBe('IOException');
    expect(findResultFailure('Error: gone')?.type).toBe(RESULT_ERROR_TYPE);
  });

  it('bounds the message, however long the text or the content list', () => {
    const long = 'x'.repeat(3 * MAX_RESULT_FAILURE_MESSAGE_CHARS);
    expect(findResultFailure(`Error: ${long}`)?.message).toHaveLength(MAX_RESULT_FAILURE_MESSAGE_CHARS);
    expect(findResultFailure({ error: long })?.message).toHaveLength(MAX_RESULT_FAILURE_MESSAGE_CHARS);
    const blocks = Array.from({ length: 10_000 }, () => ({ type: 'text', text: long }));
    expect(findResultFailure({ content: blocks, isError: true })?.message).toHaveLength(MAX_RESULT_FAILURE_MESSAGE_CHARS);
  });

  it('never cuts a message between the halves of a surrogate pair', () => {
    const isWhole = (text: string) => !/[\uD800-\uDBFF]$/.test(text);
    for (const shift of [0, 1]) {
      const emojis = `${'x'.repeat(shift)}${'😀'.repeat(MAX_RESULT_FAILURE_MESSAGE_CHARS)}`;
      expect(isWhole(findResultFailure(`Error: ${emojis}`)!.message)).toBe(true);
      expect(isWhole(findResultFailure({ error: emojis })!.message)).toBe(true);
      expect(isWhole(findResultFailure({ statusCode: 500, error: emojis })!.message)).toBe(true);
      expect(isWhole(findResultFailure({ content: [{ type: 'text', text: emojis }], isError: true })!.message)).toBe(true);
    }
  });

  it('reads only the top level of a result nested deeper than any parser would allow', () => {
    let deep: unknown = { error: 'bottom' };
    for (let depth = 0; depth < 100_000; depth++) deep = { data: deep };
    expect(findResultFailure(deep)).toBeNull();
    expect(findResultFailure({ success: false, data: deep })?.rules).toEqual(['failure_flag']);
  });

  it('reads a megabyte string without an error marker in linear time', () => {
    const text = `${' '.repeat(60)}${'a'.repeat(1_000_000)}:`;
    expect(findResultFailure(text)).toBeNull();
    expect(findResultFailure(' '.repeat(1_000_000))).toBeNull();
    expect(findResultFailure({ error: ' '.repeat(1_000_000) })).toBeNull();
  });

  it('gives the categorizer what it needs: a range message in a result is out_of_range', () => {
    const failure = findResultFailure({ success: false, error: 'n must be <= 20' })!;
    const diagnosis = diagnose({ tool: 'factorial', arguments: { n: 25 }, error: { type: failure.type, message: failure.message } });
    expect(diagnosis).toMatchObject({ category: 'out_of_range', subtype: 'above_maximum', argumentPath: '/n' });
  });
});
