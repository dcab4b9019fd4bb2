import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';

/** One tool call the scripted model makes: `input` is the JSON text a provider sends (or text that is not JSON). */
export interface ScriptedCall {
  id: string;
  name: string;
  input: string;
}

/** One step of the script: the tool calls the model makes, or its final text. */
export type ScriptedStep = ScriptedCall[] | string;

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function generateResult(step: ScriptedStep): LanguageModelV3GenerateResult {
  if (typeof step === 'string') {
    return { content: [{ type: 'text', text: step }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] };
  }
  return {
    content: step.map((call) => ({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

function streamParts(step: ScriptedStep): LanguageModelV3StreamPart[] {
  const content: LanguageModelV3StreamPart[] =
    typeof step === 'string'
      ? [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: step },
          { type: 'text-end', id: 't' },
        ]
      : step.map((call) => ({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input }));
  const finishReason =
    typeof step === 'string' ? { unified: 'stop' as const, raw: 'stop' } : { unified: 'tool-calls' as const, raw: 'tool_calls' };
  return [{ type: 'stream-start', warnings: [] }, ...content, { type: 'finish', finishReason, usage: USAGE }];
}

/**
 * The AI SDK's own MockLanguageModelV3 playing a script, one step per model call, for generateText (doGenerate) and
 * streamText (doStream) alike; what the AI SDK sent it (the tools with their descriptions) is in
 * `doGenerateCalls` / `doStreamCalls`.
 */
export function scriptedModel(steps: ScriptedStep[], modelId = 'scripted-model'): MockLanguageModelV3 {
  let next = 0;
  const take = () => {
    if (next >= steps.length) throw new Error(`the script has ${steps.length} steps; the AI SDK asked for step ${next + 1}`);
    return steps[next++];
  };
  return new MockLanguageModelV3({
    modelId,
    doGenerate: async () => generateResult(take()),
    doStream: async () => ({ stream: convertArrayToReadableStream(streamParts(take())) }),
  });
}
