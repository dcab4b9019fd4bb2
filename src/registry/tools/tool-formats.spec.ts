import { ListedTool, toFormat } from './tool-formats';

const tool: ListedTool = {
  name: 'prime_factors',
  version: 3,
  description: 'Factorize.\n\nCommon mistakes:\n- Pass one integer. 2 of 40 recent calls failed this way.',
  baseDescription: 'Factorize.',
  warnings: [],
  parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
  metadata: { team: 'math' },
};

describe('toFormat', () => {
  it('gives OpenAI a function tool with the augmented description', () => {
    expect(toFormat(tool, 'openai')).toEqual({
      type: 'function',
      function: { name: 'prime_factors', description: tool.description, parameters: tool.parameters },
    });
  });

  it('gives Anthropic input_schema, MCP inputSchema and LangChain schema', () => {
    expect(toFormat(tool, 'anthropic')).toEqual({ name: 'prime_factors', description: tool.description, input_schema: tool.parameters });
    expect(toFormat(tool, 'mcp')).toEqual({ name: 'prime_factors', description: tool.description, inputSchema: tool.parameters });
    expect(toFormat(tool, 'langchain')).toEqual({ name: 'prime_factors', description: tool.description, schema: tool.parameters });
  });

  it('gives raw as our own full shape with version, warnings and metadata', () => {
    expect(toFormat(tool, 'raw')).toBe(tool);
  });
});
