import type {
  ChatResponse,
  ChatResponseChunk,
  JSONObject,
  LLMChatParamsNonStreaming,
  LLMChatParamsStreaming,
  LLMMetadata,
  ToolCall,
} from 'llamaindex';
import { ToolCallLLM } from 'llamaindex';

/**
 * A tool call as a model sends it: `input` is an object, or the argument text (possibly not JSON) as OpenAI's streamed
 * calls carry it, which LlamaIndex's type leaves out but its agent parses.
 */
export type ScriptedToolCall = { id: string; name: string; input: JSONObject | string };

/**
 * A LlamaIndex LLM through its public extension point (ToolCallLLM): each chat answers with the next turn's tool calls,
 * then with text. It records the tool descriptions each chat was given, as a real model would read them.
 */
export class ScriptedLlamaIndexLLM extends ToolCallLLM {
  supportToolCall = true;
  metadata: LLMMetadata;
  readonly descriptionsSeen: string[][] = [];
  private turn = 0;

  constructor(
    private readonly turns: ScriptedToolCall[][],
    model = 'scripted-llm',
  ) {
    super();
    this.metadata = { model, temperature: 0, topP: 1, contextWindow: 8192, tokenizer: undefined, structuredOutput: false };
  }

  chat(params: LLMChatParamsStreaming): Promise<AsyncIterable<ChatResponseChunk>>;
  chat(params: LLMChatParamsNonStreaming): Promise<ChatResponse>;
  async chat(params: LLMChatParamsStreaming | LLMChatParamsNonStreaming): Promise<AsyncIterable<ChatResponseChunk> | ChatResponse> {
    this.descriptionsSeen.push((params.tools ?? []).map((tool) => tool.metadata.description));
    const calls = this.turns[this.turn++];
    const options = calls ? { toolCall: calls.map((call) => ({ ...call }) as ToolCall) } : undefined;
    const text = calls ? '' : 'done';
    if (!params.stream) return { message: { role: 'assistant', content: text, ...(options ? { options } : {}) }, raw: null };
    return (async function* () {
      yield { delta: text, raw: null, ...(options ? { options } : {}) };
    })();
  }
}
