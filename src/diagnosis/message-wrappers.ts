import { isPlainObject, parseJsonOrPythonLiteral } from './argument-values';
import { lastDottedSegment } from './cause-chain';

// The wrappers frameworks put around a tool's error (LangGraph, MCP, LangChain, a printed repr or JSON-RPC object):
// peeled off so the message underneath is read, and the call's arguments kept when the wrapper printed them.

const MAX_UNWRAP_DEPTH = 6;

export interface Unwrapped {
  text: string;
  printedArguments?: unknown;
  /** The wrapper prints pydantic errors as "loc: message" lines (LangGraph, FastMCP). */
  hasLocLines?: boolean;
}

/** Peels known framework wrappers, innermost last. Each pattern is anchored, so it runs once per level. */
export function unwrap(message: string, typeNames: Set<string>): Unwrapped {
  let text = message.trim();
  let printedArguments: unknown;
  let hasLocLines = false;
  for (let depth = 0; depth < MAX_UNWRAP_DEPTH; depth++) {
    const next = unwrapOnce(text, typeNames);
    if (next === null) break;
    if (next.printedArguments !== undefined) printedArguments = next.printedArguments;
    hasLocLines ||= next.hasLocLines === true;
    text = next.text.trim();
  }
  return { text, printedArguments, hasLocLines };
}

function unwrapOnce(text: string, typeNames: Set<string>): Unwrapped | null {
  // LangGraph TOOL_INVOCATION_ERROR_TEMPLATE / TOOL_EXECUTION_ERROR_TEMPLATE, also LangChain JS ToolInvocationError.
  const langgraph = /^Error (?:invoking|executing) tool '([^'\n]{0,200})' with kwargs ([^\n]{0,4000}?) with error:\s?\n?([\s\S]*)$/.exec(
    text,
  );
  if (langgraph) {
    const body = withoutClosingSentence(langgraph[3], 'Please fix the error and try again') ?? langgraph[3];
    const kwargs = parseJsonOrPythonLiteral(langgraph[2]);
    return { text: body, printedArguments: kwargs.ok ? kwargs.value : undefined, hasLocLines: true };
  }
  // LangGraph TOOL_CALL_ERROR_TEMPLATE and the JS ToolNode fallback: "Error: <e>\n Please fix your mistakes."
  const fixMistakes = withoutClosingSentence(text, 'Please fix your mistakes');
  if (fixMistakes !== null) return { text: fixMistakes.replace(/^Error: /, '') };
  // MCP Python FastMCP: "Error executing tool <name>: <e>"; MCP TypeScript SDK input validation wrapper.
  const fastMcp = /^Error executing tool [\w.-]{1,128}: ([\s\S]*)$/.exec(text);
  if (fastMcp) return { text: fastMcp[1], hasLocLines: true };
  const mcpValidation = /^(?:MCP error -?\d{1,6}: )?Input validation error: Invalid arguments for tool [\w.-]{1,128}: ([\s\S]*)$/.exec(
    text,
  );
  if (mcpValidation) return { text: `Invalid arguments: ${mcpValidation[1]}` };
  const mcpError = /^MCP error (-?\d{1,6}): ([\s\S]*)$/.exec(text);
  if (mcpError) return { text: `${mcpError[2]} (JSON-RPC ${mcpError[1]})` };
  // LangChain JS ToolInputParsingException: the zod report follows the fixed sentence.
  const parsing = /^Received tool input did not match expected schema\s*\n([\s\S]+)$/.exec(text);
  if (parsing) return { text: parsing[1] };
  // Python repr of an exception, as LangGraph prints it with handle_tool_errors=True: ValueError('kaboom').
  const repr = /^((?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,60})\(([\s\S]*)\)$/.exec(text);
  if (repr) {
    const name = lastDottedSegment(repr[1]);
    typeNames.add(name);
    const quoted = /^(['"])([\s\S]*)\1$/.exec(repr[2].trim());
    const body = quoted ? quoted[2].replace(/\\n/g, '\n').replace(/\\'/g, "'") : repr[2];
    return { text: `${name}: ${body}` };
  }
  // A JSON-RPC error object or response printed as text, or a tool result that packs its failure as JSON.
  if (text.startsWith('{')) {
    const parsed = parseJsonOrPythonLiteral(text);
    if (parsed.ok && isPlainObject(parsed.value)) return unwrapJsonError(parsed.value);
  }
  return null;
}

/** Messages read from a packed list; a validator reports one or a few per argument. */
const MAX_PACKED_MESSAGES = 50;

/**
 * JSON-RPC errors keep their code in the text; a failure packed as {"status": "Failed", "message": ...} (Letta),
 * {"error": "..."} or {"detail": "..."} is read as its text. Objects of issues (FastAPI's detail list) are left to
 * the structured readers.
 */
function unwrapJsonError(value: Record<string, unknown>): Unwrapped | null {
  const errorObject = isPlainObject(value.error) ? value.error : value;
  if (typeof errorObject.message === 'string' && (typeof errorObject.code === 'number' || 'jsonrpc' in value)) {
    return { text: `${errorObject.message} (JSON-RPC ${String(errorObject.code)})` };
  }
  const isFailureReport = typeof value.status === 'string' && /^(?:failed|failure|error)$/i.test(value.status);
  if (isFailureReport && typeof value.message === 'string') return { text: value.message };
  // NestJS's ValidationPipe answers {"message": ["n must be an integer number", ...], "error": "Bad Request"}.
  if (Array.isArray(value.message) && value.message.length > 0 && value.message.every((line) => typeof line === 'string')) {
    return { text: value.message.slice(0, MAX_PACKED_MESSAGES).join('\n') };
  }
  if (typeof value.error === 'string') return { text: value.error };
  if (typeof value.detail === 'string') return { text: value.detail };
  return null;
}

/**
 * The text before a fixed closing sentence (an optional final period, white space around it), or null when the text
 * does not end with it. A regex like /\s*Sentence$/ retries from every offset of a long run of blanks: quadratic.
 */
function withoutClosingSentence(text: string, sentence: string): string | null {
  let end = text.trimEnd();
  if (end.endsWith('.')) end = end.slice(0, -1);
  if (!end.endsWith(sentence)) return null;
  return end.slice(0, end.length - sentence.length).trimEnd();
}
