// The attribute sets agent frameworks put on the span of one tool call, one declarative row per convention, each quoted
// from the framework's source at the commit (or npm release) named in its comment. docs/span-conventions.md has the
// longer excerpts, the user-facing summary and what each framework never puts on a span.
//
// A span is read by the FIRST row whose `when` holds; when its `unless` holds too, the span is not a tool call. So
// a span that two conventions describe (the AI SDK's `ai.toolCall` with the OpenInference processor's `openinference.span.kind`, Mastra's and
// Pydantic AI's spans that also carry `gen_ai.operation.name`) becomes one event, read the more specific way. The
// generic rows (GenAI, OpenInference) come last.

/** Holds when every condition holds: the span name matches, and each attribute equals, matches or (true) is present. */
export interface SpanRule {
  name?: RegExp;
  scope?: RegExp;
  attributes?: Record<string, string | boolean | RegExp>;
}

/** Where a value is: an attribute of the span, or an attribute of the span's last event of that name. */
export type ValueSource = string | { event: string; attribute: string };

export interface ToolSpanConvention {
  /** The framework or convention, as docs/span-conventions.md names it. */
  convention: string;
  when: SpanRule[];
  unless?: SpanRule[];
  tool: string[];
  /** The tool name in the span name (first group), when no `tool` attribute is set. */
  toolFromSpanName?: RegExp;
  arguments: ValueSource[];
  result: ValueSource[];
  toolCallId: string[];
  /** Read on the span, then on its ancestors in the same export, nearest first. */
  sessionId: string[];
  agent: string[];
  model: string[];
  /** Attributes whose presence marks a failure even without an ERROR status (their value is the error's type). */
  errorType: string[];
  errorMessage: string[];
  /** Further failure signals than status ERROR and `errorType`. */
  failedWhen?: SpanRule[];
  /** Values a framework writes for "none"; read as absent. */
  placeholders?: string[];
  /** A failure the framework catches and returns to the model as the result: `{ [flag]: true, [message]: "..." }`. */
  failureInResult?: { flag: string; message: string };
  /** A failure whose status message wraps the tool's own error: returns that error. */
  unwrapErrorMessage?: (message: string) => string | undefined;
}

const GENAI_SESSION = ['gen_ai.conversation.id', 'session.id'];
const GENAI_AGENT = ['gen_ai.agent.name', 'agent.name'];
const GENAI_MODEL = ['gen_ai.request.model', 'gen_ai.response.model', 'llm.model_name'];

export const TOOL_SPAN_CONVENTIONS: readonly ToolSpanConvention[] = [
  {
    // vercel/ai packages/ai/src/generate-text/execute-tool-call.ts at ai@6.0.264 (526e8a54d6bf2ef8f0d777375d0156bffc48a48e),
    // and the same in the npm release ai@6.0.326 dist/index.js, which adds the metadata to the tool span:
    //   recordSpan({ name: "ai.toolCall", attributes: selectTelemetryAttributes({ telemetry, attributes: {
    //     ...assembleOperationName({ operationId: "ai.toolCall", telemetry }),
    //     ...Object.fromEntries(Object.entries(telemetry?.metadata ?? {}).map(([key, value]) => [`ai.telemetry.metadata.${key}`, value])),
    //     "ai.toolCall.name": toolName, "ai.toolCall.id": toolCallId, "ai.toolCall.args": { output: () => JSON.stringify(input) } } }), ...
    //   span.setAttributes(... { "ai.toolCall.result": { output: () => JSON.stringify(output) } })
    // Errors (telemetry/record-span.ts recordErrorOnSpan): span.recordException({ name: error.name, message: error.message,
    //   stack: error.stack }); span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
    // assembleOperationName: 'ai.operationId': operationId, 'ai.telemetry.functionId': telemetry?.functionId.
    // The model is on the parent ai.generateText / ai.streamText span: 'ai.model.id': model.modelId (and the do* spans:
    // 'gen_ai.request.model': stepModel.modelId). The SDK has no session attribute: users pass one as metadata.
    convention: 'Vercel AI SDK',
    when: [{ name: /^ai\.toolCall$/ }, { attributes: { 'ai.operationId': 'ai.toolCall' } }],
    tool: ['ai.toolCall.name'],
    arguments: ['ai.toolCall.args'],
    result: ['ai.toolCall.result'],
    toolCallId: ['ai.toolCall.id'],
    sessionId: ['ai.telemetry.metadata.sessionId', 'ai.telemetry.metadata.conversationId', 'ai.telemetry.metadata.threadId'],
    agent: ['ai.telemetry.metadata.agent', 'ai.telemetry.functionId'],
    model: ['ai.model.id', 'gen_ai.request.model'],
    errorType: [],
    errorMessage: [],
  },
  {
    // mastra-ai/mastra observability/otel-exporter, npm release @mastra/otel-exporter@1.4.0 dist/index.js getAttributes:
    //   attributes["mastra.span.type"] = span.type; ... attributes["gen_ai.tool.call.arguments"] = inputStr;
    //   attributes["gen_ai.tool.call.result"] = outputStr; attributes[ATTR_GEN_AI_TOOL_NAME] = span.entityName ?? span.entityId;
    //   const toolCallId = span.attributes?.toolCallId ?? span.metadata?.toolCallId; ... attributes["gen_ai.tool.call.id"] = toolCallId;
    //   if (span.errorInfo) { attributes[ATTR_ERROR_TYPE] = span.errorInfo.id || "unknown"; attributes[ATTR_ERROR_MESSAGE] = span.errorInfo.message;
    //   const threadId = span.metadata?.threadId; ... attributes[ATTR_GEN_AI_CONVERSATION_ID] = threadId;
    // and buildStatusAndEvents: { code: SpanStatusCode.ERROR, message: span.errorInfo.message }, an "exception" event
    // whose "exception.type" is always "Error". The older exporter (span-converter.ts at 08c683c3d35d372ca2cc9653e71c3cf8c6f154be):
    //   attributes['gen_ai.tool.input'] = inputStr; attributes['gen_ai.tool.output'] = outputStr;
    //   attributes['gen_ai.tool.success'] = toolAttrs.success; attributes['error.type'] = aiSpan.errorInfo.id || 'unknown';
    // Agent and model are on the agent run and model spans above (gen_ai.agent.name, gen_ai.request.model).
    convention: 'Mastra',
    when: [{ attributes: { 'mastra.span.type': /^(tool_call|mcp_tool_call|provider_tool_call)$/ } }],
    tool: ['gen_ai.tool.name'],
    toolFromSpanName: /^(?:execute_tool|tool\.execute) (\S.*)$/,
    arguments: ['gen_ai.tool.call.arguments', 'gen_ai.tool.input', 'input'],
    result: ['gen_ai.tool.call.result', 'gen_ai.tool.output', 'output'],
    toolCallId: ['gen_ai.tool.call.id'],
    sessionId: ['gen_ai.conversation.id', 'mastra.metadata.threadId'],
    agent: ['gen_ai.agent.name', 'gen_ai.agent.id', 'agent.id'],
    model: ['gen_ai.request.model', 'gen_ai.response.model'],
    errorType: ['error.type'],
    errorMessage: ['error.message'],
    failedWhen: [{ attributes: { 'gen_ai.tool.success': false } }],
    // @mastra/core 1.71.0 (npm release, dist/utils-CBwueaDv.js) validates the input inside the TOOL_CALL span and
    // returns the failure to the model as the result, which exporter 1.4.0 writes as gen_ai.tool.call.result on a span
    // that ends OK:
    //   const { data, error } = validateToolInput(parameters, args, options.name); ...
    //   toolSpan?.end({ output: error, attributes: { success: false } }); return error;
    // where error is {"error":true,"message":"Tool input validation failed for getWeather. ...","validationErrors":{...}}
    failureInResult: { flag: 'error', message: 'message' },
    placeholders: ['unknown'],
  },
  {
    // pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/_tool_manager.py at v1.0.0 (78f3b7a64556d25414739fa6f2379730952ca251):
    //   span_attributes = { 'gen_ai.tool.name': call.tool_name, 'gen_ai.tool.call.id': call.tool_call_id,
    //     **({'tool_arguments': call.args_as_json_str()} if include_content else {}), 'logfire.msg': f'running tool: {call.tool_name}', ...}
    //   with tracer.start_as_current_span('running tool', attributes=span_attributes) as span: ...
    //     span.set_attribute('tool_response', ...)
    // v1.86.0 (c1d060dbe996eee1fccba2161c9f0fb107c47d91) adds **get_agent_run_baggage_attributes() (gen_ai.agent.name),
    // v1.87.0 (2b0aa93a9aea08ddfcdae03605fdb0d5a2486eec) adds 'gen_ai.operation.name': 'execute_tool'. v2 spans are
    // `execute_tool {name}` with the GenAI keys (read by the GenAI row).
    convention: 'Pydantic AI (instrumentation version 2)',
    when: [
      { name: /^running tool$/, attributes: { 'gen_ai.tool.name': true } },
      { attributes: { 'logfire.msg': /^running tool: /, 'gen_ai.tool.name': true } },
    ],
    tool: ['gen_ai.tool.name'],
    arguments: ['tool_arguments', 'gen_ai.tool.call.arguments'],
    result: ['tool_response', 'gen_ai.tool.call.result'],
    toolCallId: ['gen_ai.tool.call.id'],
    sessionId: GENAI_SESSION,
    agent: GENAI_AGENT,
    model: GENAI_MODEL,
    errorType: ['error.type'],
    errorMessage: [],
  },
  {
    // google/adk-python src/google/adk/telemetry/tracing.py at 692af95004ffa46d33facbeb2e946a560fb4ac79:
    //   span.set_attribute(GEN_AI_OPERATION_NAME, 'execute_tool') ... span.set_attribute(GEN_AI_TOOL_NAME, tool.name)
    //   span.set_attribute('gcp.vertex.agent.tool_call_args', _safe_json_serialize(args))
    //   tool_call_id = '<not specified>'; tool_response = '<not specified>' ... span.set_attribute(GEN_AI_TOOL_CALL_ID, tool_call_id)
    //   if not isinstance(tool_response, dict): tool_response = {'result': tool_response}
    //   span.set_attribute('gcp.vertex.agent.tool_response', _safe_json_serialize(tool_response))
    // trace_merged_tool_calls repeats the parallel calls of a step under gen_ai.tool.name '(merged tools)': not a call.
    // Session and model are on invoke_agent (gen_ai.conversation.id) and call_llm (gen_ai.request.model,
    // gcp.vertex.agent.session_id) above the tool span.
    convention: 'Google ADK',
    when: [
      { scope: /^gcp\.vertex\.agent$/, attributes: { 'gen_ai.operation.name': 'execute_tool' } },
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gcp.vertex.agent.tool_call_args': true } },
    ],
    unless: [{ attributes: { 'gen_ai.tool.name': '(merged tools)' } }],
    tool: ['gen_ai.tool.name'],
    toolFromSpanName: /^execute_tool (\S.*)$/,
    arguments: ['gcp.vertex.agent.tool_call_args'],
    result: ['gcp.vertex.agent.tool_response'],
    toolCallId: ['gen_ai.tool.call.id'],
    sessionId: ['gen_ai.conversation.id', 'gcp.vertex.agent.session_id'],
    agent: GENAI_AGENT,
    model: GENAI_MODEL,
    errorType: ['error.type'],
    errorMessage: [],
    placeholders: ['<not specified>', '{"result": "<not specified>"}', '{"result":"<not specified>"}'],
  },
  {
    // strands-agents/sdk-python src/strands/telemetry/tracer.py at 1232230daa4385fd6470be29013eb2375d7a307c:
    //   attributes = self._get_common_attributes(operation_name="execute_tool")   (gen_ai.system = "strands-agents",
    //   or gen_ai.provider.name with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental)
    //   attributes.update({"gen_ai.tool.name": tool["name"], "gen_ai.tool.call.id": tool["toolUseId"]})
    //   self._add_event(span, "gen_ai.tool.message", event_attributes={"role": "tool", "content": serialize(tool["input"]), ...})
    //   self._add_event(span, "gen_ai.choice", event_attributes={"message": serialize(content), ...})
    //   span.set_status(StatusCode.ERROR, status_description); span.record_exception(error)
    // Agent(trace_attributes=...) (session.id in Strands' docs) is copied onto the tool span; gen_ai.agent.name and
    // gen_ai.request.model are on the invoke_agent span.
    convention: 'Strands Agents',
    when: [
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.system': 'strands-agents' } },
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.provider.name': 'strands-agents' } },
    ],
    tool: ['gen_ai.tool.name'],
    toolFromSpanName: /^execute_tool (\S.*)$/,
    arguments: ['gen_ai.tool.call.arguments', { event: 'gen_ai.tool.message', attribute: 'content' }],
    result: ['gen_ai.tool.call.result', { event: 'gen_ai.choice', attribute: 'message' }],
    toolCallId: ['gen_ai.tool.call.id'],
    sessionId: GENAI_SESSION,
    agent: GENAI_AGENT,
    model: GENAI_MODEL,
    errorType: ['error.type'],
    errorMessage: [],
  },
  {
    // pydantic/logfire logfire/_internal/integrations/openai_agents.py at e484a6b53a0df3062d304ce258573e387cf3140a (v4.41.0):
    //   elif isinstance(span_data, FunctionSpanData): msg_template = 'Function: {name}'
    // with span_data.export() as attributes ('name', 'input', 'output', 'mcp_data') and, on a tool error (its test
    // snapshot): 'error': {'message': 'Error running tool (non-fatal)', 'data': {'tool_name': 'tool', 'error': "..."}}.
    convention: 'OpenAI Agents SDK via Logfire',
    when: [{ name: /^Function: \{name\}$/, attributes: { name: true } }],
    tool: ['name'],
    arguments: ['input'],
    result: ['output'],
    toolCallId: [],
    sessionId: GENAI_SESSION,
    agent: GENAI_AGENT,
    model: GENAI_MODEL,
    errorType: [],
    errorMessage: [],
    failedWhen: [{ attributes: { error: true } }],
  },
  {
    // Arize-ai/openinference js/packages/openinference-instrumentation-openai-agents/src/processor.ts at
    // 0071b376e1d64a62cb84746e0c763262a2c2781e: the span is named for the tool ('name' in data), kind TOOL for
    //   case "function": case "handoff": case "mcp_tools": return OpenInferenceSpanKind.TOOL;
    // with attributes[TOOL_NAME] = data.name; attributes[INPUT_VALUE] = data.input; attributes[OUTPUT_VALUE] = data.output
    // and, on an error: let description = span.error.message || "Unknown error"; ... description = `${description}: ${errorDataString}`;
    //   otelSpan.recordException({ message: description }); otelSpan.setStatus({ code: SpanStatusCode.ERROR, message: description });
    // where the SDK's error is (openai/openai-agents-js packages/agents-core/src/tool.ts at 6d0c61a5f62a5ed8142996a25b33446c810f84b3)
    //   currentSpan?.setError({ message: 'Error running tool (non-fatal)', data: { tool_name: name, error: callbackError.toString() } });
    // Handoffs (`handoff to <agent>`) and MCP list-tools spans are TOOL spans too, and not tool calls.
    convention: 'OpenAI Agents SDK via OpenInference',
    when: [{ attributes: { 'openinference.span.kind': 'TOOL', 'llm.system': 'openai', 'tool.name': true } }],
    unless: [{ name: /^handoff to / }, { name: /^mcp_tools$/ }],
    tool: ['tool.name'],
    arguments: ['input.value'],
    result: ['output.value'],
    toolCallId: ['tool.id'],
    sessionId: ['session.id'],
    agent: ['agent.name', 'graph.node.id'],
    model: ['llm.model_name'],
    errorType: [],
    errorMessage: [],
    unwrapErrorMessage: (message) => {
      const wrapped = /^Error running tool(?: \(non-fatal\))?: (\{.*\})$/s.exec(message);
      if (!wrapped) return undefined;
      try {
        const data: unknown = JSON.parse(wrapped[1]);
        const error = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).error : undefined;
        return typeof error === 'string' && error !== '' ? error : undefined;
      } catch {
        return undefined;
      }
    },
  },
  {
    // Arize-ai/openinference python/openinference-semantic-conventions/src/openinference/semconv/trace/__init__.py at
    // 1fe497f1d9f45a07eee55d97fe185e020560f9c7:
    //   TOOL_NAME = "tool.name"  TOOL_PARAMETERS = "tool.parameters" (the tool's schema, NOT the arguments)
    //   TOOL_ID = "tool.id"  OPENINFERENCE_SPAN_KIND = "openinference.span.kind"  SESSION_ID = "session.id"  AGENT_NAME = "agent.name"
    // and spec/semantic_conventions.md: input.value "The input value to an operation", output.value "The output value
    // of an operation"; llm.model_name on LLM spans.
    convention: 'OpenInference',
    when: [{ attributes: { 'openinference.span.kind': 'TOOL' } }],
    // the OpenAI Agents processor's handoffs and MCP list-tools spans have no tool.name (see the row above)
    unless: [{ name: /^handoff to / }, { name: /^mcp_tools$/ }],
    tool: ['tool.name', 'gen_ai.tool.name'],
    // an instrumentation may also write the GenAI keys on its TOOL span
    arguments: ['input.value', 'gen_ai.tool.call.arguments'],
    result: ['output.value', 'gen_ai.tool.call.result'],
    toolCallId: ['tool.id', 'tool_call.id', 'gen_ai.tool.call.id'],
    sessionId: ['session.id', 'gen_ai.conversation.id'],
    agent: ['agent.name', 'gen_ai.agent.name'],
    model: ['llm.model_name', 'gen_ai.request.model'],
    errorType: ['error.type'],
    errorMessage: [],
  },
  {
    // OpenTelemetry semantic conventions for GenAI, "Execute tool span" (gen-ai-spans.md): span name
    // `execute_tool {gen_ai.tool.name}`, gen_ai.operation.name = execute_tool, gen_ai.tool.name, gen_ai.tool.call.id,
    // gen_ai.tool.call.arguments, gen_ai.tool.call.result, error.type. Used as is by the AI SDK 7 (@ai-sdk/otel),
    // Pydantic AI v2, and others; `tool_arguments`/`tool_response` are Pydantic AI 1.87-1.107's keys on these spans.
    convention: 'OpenTelemetry GenAI',
    when: [{ attributes: { 'gen_ai.operation.name': 'execute_tool' } }],
    tool: ['gen_ai.tool.name', 'tool.name'],
    toolFromSpanName: /^execute_tool (\S.*)$/,
    arguments: ['gen_ai.tool.call.arguments', 'tool_arguments', 'input.value'],
    result: ['gen_ai.tool.call.result', 'tool_response', 'output.value'],
    toolCallId: ['gen_ai.tool.call.id', 'tool.id', 'tool_call.id'],
    sessionId: GENAI_SESSION,
    agent: GENAI_AGENT,
    model: GENAI_MODEL,
    errorType: ['error.type'],
    errorMessage: [],
    placeholders: ['_OTHER'],
  },
];
