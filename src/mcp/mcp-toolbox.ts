import { Inject, Injectable } from '@nestjs/common';
import type { ValidateFunction } from 'ajv';
import type { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { ApiError } from '../infra/http/api-error';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { jsonBytes, MAX_ANSWER_BYTES, quoteText } from './mcp-answer-budget';
import { McpReadTools } from './mcp-read-tools';
import { McpCaller, McpTool, ToolArgumentError } from './mcp-tool';
import { McpWriteTools } from './mcp-write-tools';

/** What tools/call answers: the JSON answer as structuredContent and as text, or a tool error the model can read. */
export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: McpTool['inputSchema'];
  outputSchema: McpTool['outputSchema'];
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

interface RegisteredTool {
  tool: McpTool;
  validate: ValidateFunction;
}

/**
 * Every MCP tool, by name: lists them, checks a call's arguments against the tool's input schema (defaults filled in,
 * no coercion), refuses write tools to read keys, and turns what a tool throws into a tool error naming the argument.
 */
@Injectable()
export class McpToolbox {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly logger: Logger;

  constructor(readTools: McpReadTools, writeTools: McpWriteTools, @Inject(ROOT_LOGGER) rootLogger: Logger) {
    this.logger = rootLogger.child({ context: 'mcp' });
    for (const tool of [...readTools.list(), ...writeTools.list()] as McpTool[]) {
      this.tools.set(tool.name, { tool, validate: ajvFor('body').compile(tool.inputSchema) });
    }
  }

  list(): ListedTool[] {
    return [...this.tools.values()].map(({ tool }) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: {
        readOnlyHint: tool.access === 'read',
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    }));
  }

  async call(caller: McpCaller, name: string, rawArguments: Record<string, unknown> | undefined): Promise<ToolCallResult> {
    const registered = this.tools.get(name);
    if (!registered) return toolError(`Unknown tool ${JSON.stringify(quoteText(name, 100))}: tools/list names the tools of this server`);
    const { tool, validate } = registered;
    if (tool.access === 'write' && caller.scope !== 'write') {
      return toolError(`${tool.name} changes data, and this API key is read-only (scope read): use an API key with scope write`);
    }
    const args = withDefaults(tool, rawArguments ?? {});
    if (!validate(args)) {
      const problems = toFieldErrors(validate.errors, '', 'is not an argument of this tool').map(
        (error) => `${error.path === '' ? 'arguments' : error.path.slice(1)} ${error.message}`,
      );
      return toolError(`Invalid arguments: ${problems.join('; ')}`);
    }
    try {
      const answer = JSON.parse(JSON.stringify(await tool.run(caller, args))) as Record<string, unknown>;
      const text = JSON.stringify(answer);
      if (jsonBytes(answer) > MAX_ANSWER_BYTES)
        this.logger.warn({ tool: tool.name, bytes: jsonBytes(answer) }, 'MCP answer over its budget');
      return { content: [{ type: 'text', text }], structuredContent: answer };
    } catch (error) {
      if (error instanceof ToolArgumentError) return toolError(error.message);
      if (error instanceof ApiError && error.status < 500) return toolError(describeApiError(error));
      if (error instanceof ApiError) return toolError(`${error.message} (${error.code}); nothing was changed, retry later`);
      this.logger.error({ err: error, tool: tool.name }, 'MCP tool failed');
      return toolError(`${tool.name} failed on the server; the error is logged`);
    }
  }
}

/** Absent arguments take their schema's default; the object is copied, never the caller's changed. */
function withDefaults(tool: McpTool, given: Record<string, unknown>): Record<string, unknown> {
  const args = { ...given };
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [name, schema] of Object.entries(properties)) {
    if (args[name] === undefined && schema.default !== undefined) args[name] = schema.default;
  }
  return args;
}

/** The REST error of the service a tool reuses, its query paths (/query/cursor) named as the tool's arguments. */
function describeApiError(error: ApiError): string {
  const details = error.options.details ?? [];
  if (details.length === 0) return `${error.message} (${error.code})`;
  const problems = details.map((detail) => `${detail.path.replace(/^\/(query|body)\//, '').replace(/^\//, '')} ${detail.message}`);
  return `Invalid arguments: ${problems.join('; ')}`;
}

function toolError(message: string): ToolCallResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
