import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

// A scripted AI SDK v6 model (the AI SDK's own MockLanguageModelV3), for frameworks that take AI SDK models (Mastra):
// each step answers with the next turn's tool calls, then with text, by generate or by stream.
/** A tool call as the model sends it: `input` is the argument text, JSON or not. */
export type ScriptedCall = { id: string; name: string; input: string };

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** The model's turns, in order; it records what each turn was given (the tools' descriptions among it). */
export function scriptedModel(turns: ScriptedCall[][], modelId = 'scripted-model') {
  const seen: LanguageModelV3CallOptions[] = [];
  let turn = 0;
  const next = (options: LanguageModelV3CallOptions): LanguageModelV3Content[] => {
    seen.push(options);
    const calls = turns[turn++];
    if (!calls) return [{ type: 'text', text: 'done' }];
    return calls.map((call) => ({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input }));
  };
  const finishOf = (content: LanguageModelV3Content[]) =>
    content.some((part) => part.type === 'tool-call')
      ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
      : { unified: 'stop' as const, raw: 'stop' };
  const model = new MockLanguageModelV3({
    modelId,
    doGenerate: async (options) => {
      const content = next(options);
      return { content, finishReason: finishOf(content), usage: USAGE, warnings: [] };
    },
    doStream: async (options) => {
      const content = next(options);
      const chunks: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        ...content.flatMap((part): LanguageModelV3StreamPart[] =>
          part.type === 'text'
            ? [
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: part.text },
                { type: 'text-end', id: 't' },
              ]
            : [part as LanguageModelV3StreamPart],
        ),
        { type: 'finish', finishReason: finishOf(content), usage: USAGE },
      ];
      return { stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
  return {
    model,
    seen,
    descriptionsSeen: () => seen.map((options) => options.tools?.map((t) => ('description' in t ? (t.description ?? '') : ''))),
  };
}
