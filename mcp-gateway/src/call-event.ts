import type { Correction, ToolEvent } from '@toolcoach/sdk';

// How one tools/call exchange becomes a toolcoach event: the same mapping as the server's `mcp` event shape
// (src/ingest/provider-shapes.ts), kept here because the gateway never imports the server. Pure.

/** What the gateway saw of a tools/call request when it passed through. */
export interface ObservedCall {
  requestId: string | number;
  tool: string;
  arguments: unknown;
  /** The registry version of the description this client was served for the tool; none for names it was not offered. */
  descriptionVersion: number | undefined;
  sessionId: string | undefined;
  /** The argument check corrected the arguments: the upstream got `corrected`, `arguments` is what the client sent. */
  correction?: Correction;
}

/** The JSON-RPC answer: a result (CallToolResult) or an error. */
export interface CallAnswer {
  result?: { content?: unknown; structuredContent?: unknown; isError?: boolean };
  error?: { code: number; message: string };
  /** The argument check refused the call: the upstream never saw it. */
  isPrevented?: boolean;
}

export const FRAMEWORK = 'mcp';

export function toCallEvent(call: ObservedCall, answer: CallAnswer, durationMs: number): ToolEvent {
  const event: ToolEvent = {
    tool: call.tool,
    status: 'success',
    framework: FRAMEWORK,
    toolCallId: String(call.requestId),
    durationMs,
  };
  if (call.arguments !== undefined) event.arguments = call.arguments;
  if (call.descriptionVersion !== undefined) event.descriptionVersion = call.descriptionVersion;
  if (call.sessionId !== undefined) event.sessionId = call.sessionId;
  if (call.correction !== undefined) event.correction = call.correction;
  if (answer.error) {
    event.status = 'error';
    // The wording of the MCP SDKs' McpError, which the categorizer reads as a JSON-RPC error (-32602: unknown tool).
    event.error = { type: 'McpError', message: `MCP error ${answer.error.code}: ${answer.error.message}` };
  } else if (answer.result?.isError) {
    event.status = 'error';
    const message = contentText(answer.result.content) || 'Tool returned isError without content';
    // a refused call is reported as the SDKs' guard reports one: the mistake, flagged as prevented
    event.error = answer.isPrevented ? { type: 'GuardRefused', message } : { message };
    if (answer.isPrevented) event.prevented = true;
  } else if (answer.result) {
    event.result = answer.result.structuredContent ?? answer.result.content;
  }
  return event;
}

/** The text blocks of an MCP content list, one per line. */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is { type: 'text'; text: string } => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n');
}
