import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ServerNotification,
  ServerRequest,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CallAnswer, ObservedCall, toCallEvent } from './call-event';
import { combineToolLists, ToolRoute } from './combined-tools';
import { UpstreamSpec } from './gateway-config';
import { GatewayParts } from './gateway-parts';
import { McpTool } from './live-descriptions';
import { upstreamEnvironment } from './upstream-environment';

/** Pages of one upstream's tools/list read at most: a list that never ends must not hold the client's. */
const MAX_LIST_PAGES = 50;
/** The client decides when a call has taken too long (it cancels); the gateway's own clock only stops a call that is stuck. */
const CALL_TIMEOUT_MS = 24 * 3600_000;

interface Upstream {
  name: string;
  client: Client;
}

/**
 * Several upstreams behind one stdio client session: the gateway is the client's MCP server and each upstream's
 * client. It offers tools only: their lists combined (optionally `<upstream>__<tool>`), each call routed to its
 * upstream with its progress and cancellation, answered and reported as the single-upstream relay does.
 */
export class CombinedGateway {
  private routes = new Map<string, ToolRoute>();
  private hasListedTools = false;
  private readonly server = new Server({ name: 'toolcoach-mcp', version: '0.1.0' }, { capabilities: { tools: { listChanged: true } } });
  private readonly sessionId = randomUUID();
  /** Names already said on stderr to be listed by several upstreams: once each per session. */
  private readonly shadowedNames = new Set<string>();

  constructor(
    private readonly upstreams: Upstream[],
    private readonly parts: GatewayParts,
    private readonly isPrefixingNames: boolean,
    private readonly warn: (line: string) => void,
  ) {
    this.server.setRequestHandler(ListToolsRequestSchema, () => this.listTools());
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.callTool(request.params, extra));
    const announceChange = () => {
      if (this.hasListedTools) void this.server.sendToolListChanged().catch(() => undefined);
    };
    for (const upstream of upstreams)
      upstream.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => announceChange());
    parts.descriptions.onChange(announceChange);
  }

  async start(downstream: Transport): Promise<void> {
    await this.server.connect(downstream);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.server.close(), ...this.upstreams.map((upstream) => upstream.client.close())]);
  }

  private async listTools(): Promise<{ tools: McpTool[] }> {
    const lists = await Promise.all(
      this.upstreams.map(async (upstream) => ({ upstream: upstream.name, tools: await listAll(upstream.client) })),
    );
    const combined = combineToolLists(lists, this.isPrefixingNames);
    for (const { name, upstreams } of combined.shadowed) {
      if (this.shadowedNames.has(name)) continue;
      this.shadowedNames.add(name);
      this.warn(
        `toolcoach-mcp: tool ${name} is listed by ${upstreams.join(', ')}; served from ${upstreams[0]} (--prefix-names serves each)`,
      );
    }
    this.routes = combined.routes;
    this.hasListedTools = true;
    return { tools: await this.parts.descriptions.serve(combined.tools) };
  }

  private async callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: { progressToken?: string | number } },
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult> {
    const call: ObservedCall = {
      requestId: randomUUID(),
      tool: params.name,
      arguments: params.arguments,
      descriptionVersion: this.parts.descriptions.versionOf(params.name),
      sessionId: this.sessionId,
    };
    const startedMs = performance.now();
    const report = (answer: CallAnswer) =>
      this.parts.toolcoach.report(toCallEvent(call, answer, Math.round((performance.now() - startedMs) * 1000) / 1000));
    const route = this.routes.get(params.name);
    const upstream = route && this.upstreams.find((candidate) => candidate.name === route.upstream);
    if (!route || !upstream) {
      // the wording of the SDK's own McpServer, which the categorizer reads as unknown_tool
      const error = { code: ErrorCode.InvalidParams, message: `Tool ${params.name} not found` };
      report({ error });
      throw rpcError(error.code, error.message);
    }
    const { refusal, correction } = this.parts.argumentCheck?.check(params.name, params.arguments) ?? {};
    if (refusal) {
      report({ result: refusal, isPrevented: true });
      return refusal;
    }
    call.correction = correction;
    const token = params._meta?.progressToken;
    try {
      const args = correction ? correction.corrected : params.arguments;
      const result = (await upstream.client.callTool({ name: route.tool, arguments: args }, undefined, {
        signal: extra.signal,
        timeout: CALL_TIMEOUT_MS,
        onprogress:
          token === undefined
            ? undefined
            : (progress) =>
                void extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } }),
      })) as CallToolResult;
      report({ result });
      return result;
    } catch (error) {
      // a call the client cancelled says nothing of the tool: not reported
      if (extra.signal.aborted) throw error;
      if (!(error instanceof McpError)) throw error;
      const message = error.message.replace(/^MCP error -?\d+: /, '');
      report({ error: { code: error.code, message } });
      throw rpcError(error.code, message, error.data);
    }
  }
}

/**
 * What the server answers as a JSON-RPC error (its code, message and data). Not an McpError: that one's message
 * already says "MCP error <code>: ", which the client's SDK would add a second time.
 */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

async function listAll(client: Client): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...(result.tools as McpTool[]));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/**
 * Connects to every upstream, then serves stdio. A stdio child gets the default environment, `upstreamEnv` and its own
 * `env` (see upstream-environment.ts), never the rest of the gateway's.
 */
export async function runCombinedGateway(
  specs: readonly UpstreamSpec[],
  parts: GatewayParts,
  isPrefixingNames: boolean,
  warn: (line: string) => void,
  upstreamEnv: Readonly<Record<string, string>> = {},
): Promise<CombinedGateway> {
  const upstreams = await Promise.all(
    specs.map(async (spec) => {
      const client = new Client({ name: 'toolcoach-mcp', version: '0.1.0' });
      await client.connect(upstreamTransport(spec, upstreamEnv));
      return { name: spec.name, client };
    }),
  );
  const gateway = new CombinedGateway(upstreams, parts, isPrefixingNames, warn);
  await gateway.start(new StdioServerTransport());
  return gateway;
}

function upstreamTransport(spec: UpstreamSpec, upstreamEnv: Readonly<Record<string, string>>): Transport {
  if (spec.url !== undefined) return new StreamableHTTPClientTransport(new URL(spec.url));
  const [command, ...args] = spec.command ?? [];
  return new StdioClientTransport({
    command,
    args,
    env: upstreamEnvironment(upstreamEnv, spec.env ?? {}),
    stderr: 'inherit',
  });
}
