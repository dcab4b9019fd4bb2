import { agent } from '@llamaindex/workflow';
import type { Toolcoach } from '@toolcoach/sdk';
import { instrumentAgent, loadLlamaIndexTools } from '@toolcoach/sdk/llamaindex';
import type { BaseToolWithCall, ToolCallLLM } from 'llamaindex';

/**
 * One run of a LlamaIndex.TS agent with toolcoach: the served descriptions in, every tool call reported. `tc` is the
 * process's client, `new Toolcoach({ agent: 'math-agent' })` (server and key from TOOLCOACH_URL and TOOLCOACH_API_KEY).
 */
export async function runAgent(tc: Toolcoach, llm: ToolCallLLM, tools: BaseToolWithCall[], question: string) {
  // registers the tools; their descriptions (tool.metadata.description) now carry the learned warnings
  const coached = await loadLlamaIndexTools(tc, tools);
  // reports every tool call, failures LlamaIndex handles (or runs anyway) included
  const workflow = instrumentAgent(agent({ name: 'math-agent', llm, tools: coached }), tc);
  const { data } = await workflow.run(question);
  return data.result;
}
