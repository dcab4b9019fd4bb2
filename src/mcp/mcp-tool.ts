import type { ApiKeyScope } from '../tenancy/project.repository';

/** Who calls a tool: the project of the bearer key and what that key may do. */
export interface McpCaller {
  projectId: string;
  scope: ApiKeyScope;
}

/**
 * One tool of the MCP server at /mcp. The server lists each with its JSON Schemas, checks the arguments against
 * `inputSchema` before `run`, refuses a `write` tool to a read key, and sends `run`'s answer as structuredContent
 * (fitted to the answer budget, mcp-answer-budget.ts). Adding a tool is adding one of these to a tool list.
 */
export interface McpTool<Args = Record<string, unknown>> {
  name: string;
  /** What the tool answers and when to call it, for the model that reads the list. */
  description: string;
  access: 'read' | 'write';
  inputSchema: JsonObjectSchema;
  outputSchema: JsonObjectSchema;
  run(caller: McpCaller, args: Args): Promise<Record<string, unknown>>;
}

export type JsonObjectSchema = { type: 'object'; [keyword: string]: unknown };

/** Arguments a tool refuses after its schema accepted them (a cursor it did not issue, a range the wrong way round). */
export class ToolArgumentError extends Error {
  constructor(
    readonly argument: string,
    readonly problem: string,
  ) {
    super(`Invalid argument ${argument}: ${problem}`);
  }
}
