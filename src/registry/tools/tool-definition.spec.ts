import { normalizeToolDefinition } from './tool-definition';

const parameters = { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] };

describe('normalizeToolDefinition', () => {
  it('reads our own shape with metadata', () => {
    expect(
      normalizeToolDefinition({ name: 'prime_factors', description: 'Factorize.', parameters, metadata: { team: 'math' } }, '/tools/0'),
    ).toEqual({
      ok: true,
      definition: { name: 'prime_factors', description: 'Factorize.', parameters, metadata: { team: 'math' } },
      parametersPath: '/tools/0/parameters',
    });
  });

  it('reads an OpenAI chat-completions function tool', () => {
    const result = normalizeToolDefinition(
      { type: 'function', function: { name: 'prime_factors', description: 'Factorize.', parameters, strict: true } },
      '/tools/1',
    );
    expect(result).toEqual({
      ok: true,
      definition: { name: 'prime_factors', description: 'Factorize.', parameters },
      parametersPath: '/tools/1/function/parameters',
    });
  });

  it('reads an OpenAI Responses-style flat function tool as our own shape', () => {
    const result = normalizeToolDefinition({ type: 'function', name: 'prime_factors', description: 'F.', parameters, strict: true }, '');
    expect(result).toMatchObject({ ok: true, definition: { name: 'prime_factors', parameters } });
  });

  it('reads an Anthropic tool and ignores its extra fields', () => {
    const result = normalizeToolDefinition(
      { name: 'prime_factors', description: 'Factorize.', input_schema: parameters, cache_control: { type: 'ephemeral' } },
      '/tools/2',
    );
    expect(result).toEqual({
      ok: true,
      definition: { name: 'prime_factors', description: 'Factorize.', parameters },
      parametersPath: '/tools/2/input_schema',
    });
  });

  it('reads an MCP tool with title and annotations', () => {
    const result = normalizeToolDefinition(
      {
        name: 'prime_factors',
        title: 'Prime factors',
        description: 'Factorize.',
        inputSchema: parameters,
        annotations: { readOnlyHint: true },
      },
      '/tools/3',
    );
    expect(result).toMatchObject({ ok: true, definition: { name: 'prime_factors', parameters }, parametersPath: '/tools/3/inputSchema' });
  });

  it('gives a function without parameters an empty object schema and without description an empty one', () => {
    expect(normalizeToolDefinition({ type: 'function', function: { name: 'now' } }, '')).toMatchObject({
      ok: true,
      definition: { name: 'now', description: '', parameters: { type: 'object', properties: {} } },
    });
  });

  it('names each bad field by its path', () => {
    expect(normalizeToolDefinition({ name: 'has space', description: 7, parameters: [], colour: 'red' }, '/tools/4')).toEqual({
      ok: false,
      errors: [
        { path: '/tools/4/name', message: 'must be 1 to 200 letters, digits, _ . or -' },
        { path: '/tools/4/description', message: 'is required and must be a string' },
        { path: '/tools/4/parameters', message: 'must be a JSON Schema object' },
        { path: '/tools/4/colour', message: 'is not a known field' },
      ],
    });
  });

  it('refuses something that is not an object', () => {
    expect(normalizeToolDefinition('prime_factors', '/tools/5')).toEqual({
      ok: false,
      errors: [{ path: '/tools/5', message: 'must be a tool definition object' }],
    });
  });
});
