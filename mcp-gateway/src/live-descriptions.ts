import { Toolcoach } from '@toolcoach/sdk';

/** A tool as an MCP server lists it; every field but the description is passed to the client unchanged. */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  [field: string]: unknown;
}

export interface ServedDescription {
  description: string;
  /** The registry version the description is; undefined when toolcoach was unreachable and nothing was cached. */
  version: number | undefined;
}

export interface LiveDescriptionsOptions {
  baseUrl: string;
  apiKey: string;
  pollIntervalMs: number;
  /** Load the tools with the SDK's guard (in the project's policy), for the argument check. */
  isGuarded?: boolean;
  fetch?: typeof fetch;
}

/**
 * The descriptions the gateway serves, for every client session of this process: the upstream's tools registered in
 * the registry (through the SDK's `loadTools`, which also keeps the disk cache and falls back when toolcoach is down),
 * and a poll of `GET /v1/tools` with its ETag that tells the sessions when what they were served changed. The poll
 * reads the first page only: its ETag is the whole list's, and `loadTools` follows `nextCursor` through every page.
 */
export class LiveDescriptions {
  private readonly upstreamTools = new Map<string, McpTool>();
  private readonly served = new Map<string, ServedDescription>();
  /** The upstream tools (as JSON) last offered to the registry, and last confirmed by it. */
  private attemptedTools: string | undefined;
  private registeredTools: string | undefined;
  private etag: string | undefined;
  private refreshing: Promise<boolean> | undefined;
  private isPolling = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly changeListeners = new Set<() => void>();
  private readonly fetch: typeof fetch;

  constructor(
    private readonly toolcoach: Toolcoach,
    private readonly options: LiveDescriptionsOptions,
  ) {
    this.fetch = options.fetch ?? globalThis.fetch;
    if (options.pollIntervalMs > 0) {
      this.timer = setInterval(() => void this.poll(), options.pollIntervalMs);
      // The poll alone must not keep a gateway alive whose client has gone.
      this.timer.unref();
    }
  }

  /** Called when descriptions already served may have changed: sessions then send notifications/tools/list_changed. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The upstream's tools/list page with the live descriptions; registers tools the registry has not seen like this. */
  async serve(tools: McpTool[]): Promise<McpTool[]> {
    for (const tool of tools) this.upstreamTools.set(tool.name, tool);
    // A toolcoach that is down costs one attempt per change of the upstream's tools; the poll notices its return.
    if (this.attemptedTools !== this.upstreamToolsJson()) await this.refresh();
    return tools.map((tool) => {
      const served = this.served.get(tool.name);
      return served ? { ...tool, description: served.description } : tool;
    });
  }

  /** The version of the description served for a tool the upstream listed, if it is known. */
  versionOf(toolName: string): number | undefined {
    return this.served.get(toolName)?.version;
  }

  isUpstreamTool(toolName: string): boolean {
    return this.upstreamTools.has(toolName);
  }

  /** Asks the registry once whether anything changed (what the timer does). */
  async poll(): Promise<void> {
    if (this.isPolling || this.upstreamTools.size === 0) return;
    this.isPolling = true;
    try {
      const response = await this.fetch(`${this.options.baseUrl}/v1/tools?format=raw`, {
        // the same sticky id as the SDK's loadTools, so the poll sees the canary side the gateway was served
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          ...this.toolcoach.rolloutHeaders,
          ...(this.etag ? { 'if-none-match': this.etag } : {}),
        },
        signal: AbortSignal.timeout(5000),
      });
      await response.arrayBuffer();
      if (response.status === 304 || !response.ok) return;
      const etag = response.headers.get('etag') ?? undefined;
      if (etag !== undefined && etag === this.etag && this.registeredTools === this.upstreamToolsJson()) return;
      // Registering again is a no-op for the registry when nothing changed, and it is what registers the tools
      // the first time toolcoach answers after being down.
      if (await this.refresh()) this.etag = etag;
    } catch {
      // Unreachable: loadTools has said so once; the next poll tries again.
    } finally {
      this.isPolling = false;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.changeListeners.clear();
  }

  /** Registers the upstream's tools and takes the served descriptions; true when the registry answered. */
  private refresh(): Promise<boolean> {
    this.refreshing ??= this.load().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async load(): Promise<boolean> {
    const json = this.upstreamToolsJson();
    this.attemptedTools = json;
    const tools = [...this.upstreamTools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      parameters: tool.inputSchema,
    }));
    await this.toolcoach.loadTools(tools, this.options.isGuarded ? { guard: true } : {});
    const source = this.toolcoach.descriptionSource;
    let hasChanged = false;
    for (const tool of tools) {
      const next: ServedDescription = {
        description: tool.description,
        version: source === 'given' ? undefined : this.toolcoach.descriptionVersionOf(tool.name),
      };
      const previous = this.served.get(tool.name);
      if (previous && previous.description !== next.description) hasChanged = true;
      this.served.set(tool.name, next);
    }
    if (source === 'server') this.registeredTools = json;
    if (hasChanged) for (const listener of this.changeListeners) listener();
    return source === 'server';
  }

  private upstreamToolsJson(): string {
    return JSON.stringify([...this.upstreamTools.values()].map((t) => [t.name, t.description ?? '', t.inputSchema]));
  }
}
