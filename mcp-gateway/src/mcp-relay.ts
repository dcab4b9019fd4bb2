import { Toolcoach } from '@toolcoach/sdk';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessage,
  JSONRPCRequest,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { performance } from 'node:perf_hooks';
import { ArgumentCheck } from './argument-check';
import { CallAnswer, ObservedCall, toCallEvent } from './call-event';
import { LiveDescriptions, McpTool } from './live-descriptions';

const INTERNAL_ERROR = -32603;

export interface RelayOptions {
  descriptions: LiveDescriptions;
  toolcoach: Toolcoach;
  /** The id events carry as `sessionId`: the client's MCP session. */
  sessionId: () => string | undefined;
  argumentCheck?: ArgumentCheck;
  /** Called once when either side has closed. */
  onClose?: () => void;
}

interface PendingCall extends ObservedCall {
  startedMs: number;
}

/**
 * One client session relayed to its upstream, message by message: every JSON-RPC message passes unchanged (ids,
 * progress tokens, cancellation, sampling, resources, prompts, logging), except that tools/list answers carry the live
 * descriptions, the initialize answer says the tool list can change, and each tools/call exchange is reported.
 */
export class McpRelay {
  private readonly pendingLists = new Set<RequestId>();
  private readonly pendingCalls = new Map<RequestId, PendingCall>();
  /** Progress tokens of the client's requests in flight, so the upstream's progress goes to the request's stream. */
  private readonly progressRequests = new Map<string | number, RequestId>();
  private initializeId: RequestId | undefined;
  private hasListedTools = false;
  private isClosed = false;
  private readonly stopListening: () => void;

  constructor(
    private readonly downstream: Transport,
    private readonly upstream: Transport,
    private readonly options: RelayOptions,
  ) {
    downstream.onmessage = (message) => void this.fromClient(message);
    upstream.onmessage = (message) => void this.fromUpstream(message);
    downstream.onclose = () => void this.close();
    upstream.onclose = () => void this.close();
    this.stopListening = options.descriptions.onChange(() => {
      // Only a client that has seen a tool list has something to refresh.
      if (this.hasListedTools && !this.isClosed) void this.toClient({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    });
  }

  /** Starts the upstream first, so the client's first message has somewhere to go. */
  async start(): Promise<void> {
    await this.upstream.start();
    await this.downstream.start();
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.stopListening();
    await Promise.allSettled([this.downstream.close(), this.upstream.close()]);
    this.options.onClose?.();
  }

  private async fromClient(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCRequest(message)) {
      const token = message.params?._meta?.progressToken;
      if (token !== undefined) this.progressRequests.set(token, message.id);
      if (message.method === 'initialize') this.initializeId = message.id;
      else if (message.method === 'tools/list') this.pendingLists.add(message.id);
      else if (message.method === 'tools/call' && (await this.observeCall(message))) return;
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      // The upstream may never answer a cancelled request: nothing waits for it, and a call the client gave up on is
      // not reported (it says nothing of the tool).
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.forget(requestId);
    }
    try {
      await this.upstream.send(message);
    } catch (error) {
      if (isJSONRPCRequest(message)) {
        this.forget(message.id);
        await this.toClient({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: INTERNAL_ERROR, message: `upstream MCP server unreachable: ${(error as Error).message}` },
        });
      }
    }
  }

  /** Remembers a call to report it when its answer passes; true when the argument check answered it instead. */
  private async observeCall(request: JSONRPCRequest): Promise<boolean> {
    const { descriptions } = this.options;
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof params.name !== 'string') return false;
    const call: PendingCall = {
      requestId: request.id,
      tool: params.name,
      arguments: params.arguments,
      descriptionVersion: descriptions.versionOf(params.name),
      sessionId: this.options.sessionId(),
      startedMs: performance.now(),
    };
    const check = this.options.argumentCheck;
    if (check && descriptions.isUpstreamTool(call.tool)) {
      const { refusal, correction } = check.check(call.tool, call.arguments);
      if (refusal) {
        this.report(call, { result: refusal, isPrevented: true });
        await this.toClient({ jsonrpc: '2.0', id: request.id, result: refusal });
        return true;
      }
      // the upstream gets the corrected arguments; the event keeps what the model sent, and the correction
      if (correction) request.params = { ...request.params, arguments: correction.corrected };
      call.correction = correction;
    }
    this.pendingCalls.set(request.id, call);
    return false;
  }

  private async fromUpstream(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = message.id as RequestId;
      const call = this.pendingCalls.get(id);
      if (isJSONRPCResultResponse(message)) {
        if (id === this.initializeId) this.announceListChanges(message.result);
        if (this.pendingLists.has(id)) message = { ...message, result: await this.serveTools(message.result) };
      }
      this.forget(id);
      await this.toClient(message);
      if (call) this.report(call, message as CallAnswer);
      return;
    }
    if (isJSONRPCNotification(message) && message.method === 'notifications/progress') {
      const token = (message.params as { progressToken?: string | number } | undefined)?.progressToken;
      const relatedRequestId = token === undefined ? undefined : this.progressRequests.get(token);
      await this.toClient(message, relatedRequestId);
      return;
    }
    await this.toClient(message);
  }

  private announceListChanges(result: Record<string, unknown>): void {
    const capabilities = result.capabilities as { tools?: Record<string, unknown> } | undefined;
    // Registry changes reach the client as notifications/tools/list_changed, so the client must expect them.
    if (capabilities?.tools) capabilities.tools = { ...capabilities.tools, listChanged: true };
    const version = result.protocolVersion;
    if (typeof version === 'string') this.upstream.setProtocolVersion?.(version);
  }

  private async serveTools(result: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!Array.isArray(result.tools)) return result;
    this.hasListedTools = true;
    return { ...result, tools: await this.options.descriptions.serve(result.tools as McpTool[]) };
  }

  private report(call: PendingCall, answer: CallAnswer): void {
    const durationMs = Math.round((performance.now() - call.startedMs) * 1000) / 1000;
    this.options.toolcoach.report(toCallEvent(call, answer, durationMs));
  }

  private forget(id: RequestId): void {
    this.pendingLists.delete(id);
    this.pendingCalls.delete(id);
    if (id === this.initializeId) this.initializeId = undefined;
    for (const [token, requestId] of this.progressRequests) if (requestId === id) this.progressRequests.delete(token);
  }

  private async toClient(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<void> {
    try {
      await this.downstream.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId });
    } catch {
      // The client has gone; its transport's onclose ends the relay.
    }
  }
}
