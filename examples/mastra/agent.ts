import { Agent, ToolsInput } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import type { Toolcoach } from '@toolcoach/sdk';
import { loadMastraTools, ToolcoachProcessor } from '@toolcoach/sdk/mastra';

/**
 * One run of a Mastra agent with toolcoach: the served descriptions in, every tool call reported. `tc` is the
 * process's client, `new Toolcoach({ agent: 'math-agent' })` (server and key from TOOLCOACH_URL and TOOLCOACH_API_KEY).
 */
export async function runAgent(tc: Toolcoach, model: MastraModelConfig, tools: ToolsInput, question: string) {
  // registers the tools under the names the model calls them by; their descriptions now carry the learned warnings
  const coached = await loadMastraTools(tc, tools);
  const agent = new Agent({
    id: 'math-agent',
    name: 'math-agent',
    instructions: 'Answer with the tools you have.',
    model,
    tools: coached,
    outputProcessors: [new ToolcoachProcessor(tc)], // reports every tool call, failures Mastra handles included
  });
  const { text } = await agent.generate(question, { maxSteps: 12 });
  return text;
}
