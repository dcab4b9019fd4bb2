// A model of the OpenAI Agents SDK seen through its own `Model` interface: every response passes through unchanged
// (but for the guard's corrections), and its function calls are shown to the integration before the runner acts on
// them. Only here are all of a response's calls visible as the model made them: the runner raises (or tells the model)
// when a name is no tool's, answers malformed JSON itself, and redacts the arguments that fail a tool's schema from its
// hooks and spans (`OPENAI_AGENTS_DONT_LOG_TOOL_DATA`, on by default).
import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';

/** A function call as the model made it. `arguments` may be rewritten in place (the guard's correction). */
export interface ModelFunctionCall {
  type: 'function_call';
  name: string;
  callId: string;
  arguments: string;
  namespace?: string;
}

/** What the integration is shown of each model response. */
export interface ModelTurn {
  /** The name the model was asked for by (`Agent.model`, `RunConfig.model`), when there was one. */
  modelName: string | undefined;
  /** The names a call may name: the request's function tools and handoffs; undefined when that cannot be told. */
  callableNames: ReadonlySet<string> | undefined;
  conversationId: string | undefined;
  calls: ModelFunctionCall[];
}

export type ModelTurnObserver = (turn: ModelTurn) => void;

/** Wraps a model of the Agents SDK; `observe` sees each response's function calls before the runner does. */
export class ObservedModel implements Model {
  constructor(
    private readonly inner: Model,
    private readonly modelName: string | undefined,
    private readonly observe: ModelTurnObserver,
  ) {}

  get supportsPromptModelSelection(): boolean | undefined {
    return this.inner.supportsPromptModelSelection;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const response = await this.inner.getResponse(request);
    this.show(request, response.output);
    return response;
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    for await (const event of this.inner.getStreamedResponse(request)) {
      // the runner builds the turn's items from the completed response, never from the deltas before it
      if (event.type === 'response_done') this.show(request, event.response.output);
      yield event;
    }
  }

  getRetryAdvice(...args: Parameters<NonNullable<Model['getRetryAdvice']>>): ReturnType<NonNullable<Model['getRetryAdvice']>> {
    return this.inner.getRetryAdvice?.(...args);
  }

  private show(request: ModelRequest, output: readonly unknown[]): void {
    const calls = output.filter(isFunctionCall);
    if (calls.length === 0) return;
    try {
      this.observe({
        modelName: this.modelName,
        callableNames: callableNamesOf(request),
        conversationId: request.conversationId,
        calls,
      });
    } catch {
      // Reporting never breaks the agent's run.
    }
  }
}

function isFunctionCall(item: unknown): item is ModelFunctionCall {
  const candidate = item as Partial<ModelFunctionCall> | null;
  return candidate?.type === 'function_call' && typeof candidate.name === 'string' && typeof candidate.callId === 'string';
}

/**
 * The function tools and handoffs of the request. Undefined when the request holds tools whose functions are not all
 * listed in it (tool search loads deferred ones, namespaces qualify names): then no name is called unknown here.
 */
function callableNamesOf(request: ModelRequest): ReadonlySet<string> | undefined {
  const names = new Set<string>();
  for (const tool of request.tools) {
    const { type, name, deferLoading, namespace, providerData } = tool as {
      type: string;
      name?: string;
      deferLoading?: boolean;
      namespace?: string;
      providerData?: { type?: unknown };
    };
    if (providerData?.type === 'tool_search' || deferLoading === true || namespace !== undefined) return undefined;
    if (type === 'function' && name) names.add(name);
  }
  for (const handoff of request.handoffs) names.add(handoff.toolName);
  return names;
}
