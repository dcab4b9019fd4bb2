import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Toolcoach } from '@toolcoach/sdk';
import { ToolcoachCallbackHandler } from '@toolcoach/sdk/langchain';
import { createAgent } from 'langchain';

/** One run of a LangChain.js agent with toolcoach: live descriptions and the guard in, every tool call reported. */
export async function runAgent(model: BaseChatModel, tools: StructuredToolInterface[], question: string) {
  const tc = new Toolcoach({ agent: 'math-agent' }); // the server and key from TOOLCOACH_URL and TOOLCOACH_API_KEY
  // registers the tools, then serves them their descriptions with the learned warnings; the guard corrects a bad
  // call before the tool runs when the correction is safe, and refuses it with a message for the model when not
  const coached = await tc.loadTools(tools, { guard: true });
  const agent = createAgent({ model, tools: coached });
  const answer = await agent.invoke({ messages: [{ role: 'user', content: question }] }, { callbacks: [new ToolcoachCallbackHandler(tc)] });
  await tc.shutdown(); // delivers what is still queued
  return answer;
}
