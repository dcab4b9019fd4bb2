import pino from 'pino';
import { ApiError } from '../infra/http/api-error';
import type { McpReadTools } from './mcp-read-tools';
import { McpTool, ToolArgumentError } from './mcp-tool';
import { McpToolbox } from './mcp-toolbox';
import { ID_INPUT, SESSION_EVENTS_INPUT } from './mcp-tools.schemas';
import type { McpWriteTools } from './mcp-write-tools';

const OUTPUT = { type: 'object' } as const;
const calls: Array<{ tool: string; args: unknown }> = [];

const sessionTool: McpTool = {
  name: 'session_events',
  access: 'read',
  description: 'events of a session',
  inputSchema: SESSION_EVENTS_INPUT,
  outputSchema: OUTPUT,
  run: async (_caller, args) => {
    calls.push({ tool: 'session_events', args });
    if (args.cursor === 'forged')
      throw new ApiError(400, 'invalid_query', 'Invalid query parameter cursor', {
        details: [{ path: '/query/cursor', message: 'is not a cursor this API issued' }],
      });
    if (args.session === 'range') throw new ToolArgumentError('to', 'must be after from');
    if (args.session === 'crash') throw new Error('connection reset');
    return { at: new Date('2026-06-02T09:00:00Z'), events: [] };
  },
};
const applyTool: McpTool = {
  name: 'apply_recommendation',
  access: 'write',
  description: 'applies',
  inputSchema: ID_INPUT('recommendation'),
  outputSchema: OUTPUT,
  run: async (_caller, args) => {
    calls.push({ tool: 'apply_recommendation', args });
    throw new ApiError(404, 'not_found', `No recommendation ${JSON.stringify(args.id)} in this project`);
  },
};

const toolbox = new McpToolbox(
  { list: () => [sessionTool] } as unknown as McpReadTools,
  { list: () => [applyTool] } as unknown as McpWriteTools,
  pino({ level: 'silent' }),
);
const reader = { projectId: 'p1', scope: 'read' as const };
const writer = { projectId: 'p1', scope: 'write' as const };
const ID = '0b6f7d1e-3c1a-4b7e-9a53-5a8c2f1e4d21';

const errorOf = async (caller: typeof reader | typeof writer, name: string, args?: Record<string, unknown>) => {
  const result = await toolbox.call(caller, name, args);
  expect(result.isError).toBe(true);
  return result.content[0].text;
};

beforeEach(() => (calls.length = 0));

describe('McpToolbox', () => {
  it('lists each tool with its schemas, read-only tools hinted so', () => {
    expect(toolbox.list().map((tool) => [tool.name, tool.annotations.readOnlyHint])).toEqual([
      ['session_events', true],
      ['apply_recommendation', false],
    ]);
  });

  it('fills in defaults and answers JSON (dates as ISO text) as structuredContent and as text', async () => {
    const result = await toolbox.call(reader, 'session_events', { session: 's1' });
    expect(calls).toEqual([{ tool: 'session_events', args: { session: 's1', limit: 20 } }]);
    expect(result.structuredContent).toEqual({ at: '2026-06-02T09:00:00.000Z', events: [] });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  });

  it.each([
    ['a missing required argument', {}, 'Invalid arguments: session is required'],
    ['an unknown argument', { session: 's', sesion: 's' }, 'Invalid arguments: sesion is not an argument of this tool'],
    ['a limit above its maximum', { session: 's', limit: 51 }, 'Invalid arguments: limit must be <= 50'],
    ['a number given as text', { session: 's', limit: '5' }, 'Invalid arguments: limit must be integer'],
  ])('refuses %s with a tool error naming it, without running the tool', async (_case, args, message) => {
    expect(await errorOf(reader, 'session_events', args)).toBe(message);
    expect(calls).toEqual([]);
  });

  it("names the tool's argument when the reused REST reader refuses a query parameter", async () => {
    expect(await errorOf(reader, 'session_events', { session: 's', cursor: 'forged' })).toBe(
      'Invalid arguments: cursor is not a cursor this API issued',
    );
    expect(await errorOf(reader, 'session_events', { session: 'range' })).toBe('Invalid argument to: must be after from');
  });

  it('refuses a write tool to a read key before running it, and runs it for a write key', async () => {
    expect(await errorOf(reader, 'apply_recommendation', { id: ID })).toMatch(/read-only \(scope read\)/);
    expect(calls).toEqual([]);
    expect(await errorOf(writer, 'apply_recommendation', { id: ID })).toBe(`No recommendation "${ID}" in this project (not_found)`);
    expect(calls).toHaveLength(1);
  });

  it('answers an unknown tool and an unexpected failure as tool errors, never a thrown error', async () => {
    expect(await errorOf(reader, 'drop_tables')).toBe('Unknown tool "drop_tables": tools/list names the tools of this server');
    expect(await errorOf(reader, 'session_events', { session: 'crash' })).toBe('session_events failed on the server; the error is logged');
  });
});
