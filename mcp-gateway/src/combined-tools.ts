import type { McpTool } from './live-descriptions';

// How the tool lists of several upstreams become the one list a client sees, and where each served name goes. Pure.

/** Between an upstream's name and its tool's in a prefixed name: valid in MCP, OpenAI and Anthropic tool names. */
export const PREFIX_SEPARATOR = '__';

export interface ToolRoute {
  upstream: string;
  /** The tool's own name at its upstream. */
  tool: string;
}

export interface CombinedTools {
  tools: McpTool[];
  routes: Map<string, ToolRoute>;
  /** Served names more than one upstream lists (unprefixed only): served from the first upstream, in config order. */
  shadowed: Array<{ name: string; upstreams: string[] }>;
}

export function servedToolName(upstream: string, tool: string, isPrefixed: boolean): string {
  return isPrefixed ? `${upstream}${PREFIX_SEPARATOR}${tool}` : tool;
}

/** Lists in the order the upstreams were configured; each tool keeps every field but its name. */
export function combineToolLists(
  lists: ReadonlyArray<{ upstream: string; tools: readonly McpTool[] }>,
  isPrefixed: boolean,
): CombinedTools {
  const tools: McpTool[] = [];
  const routes = new Map<string, ToolRoute>();
  const listedBy = new Map<string, string[]>();
  for (const { upstream, tools: upstreamTools } of lists) {
    for (const tool of upstreamTools) {
      const name = servedToolName(upstream, tool.name, isPrefixed);
      listedBy.set(name, [...(listedBy.get(name) ?? []), upstream]);
      if (routes.has(name)) continue;
      routes.set(name, { upstream, tool: tool.name });
      tools.push({ ...tool, name });
    }
  }
  const shadowed = [...listedBy.entries()]
    .filter(([, upstreams]) => upstreams.length > 1)
    .map(([name, upstreams]) => ({ name, upstreams }));
  return { tools, routes, shadowed };
}
