import { Toolcoach } from '@toolcoach/sdk';
import { coachTools } from '@toolcoach/sdk/ai';
import { type LanguageModel, stepCountIs, ToolLoopAgent, type ToolSet } from 'ai';

/** One conversation of an AI SDK agent with toolcoach: the learned descriptions in, every tool call reported. */
export async function runAgent(model: LanguageModel, tools: ToolSet, question: string, conversationId: string) {
  const tc = new Toolcoach({ agent: 'math-agent' }); // the server and key from TOOLCOACH_URL and TOOLCOACH_API_KEY
  // registers the tools and serves them back (copies) with the descriptions the server learned, for this conversation
  const coach = await coachTools(tc.forSession(conversationId), tools);
  const agent = new ToolLoopAgent({
    model,
    tools: coach.tools,
    stopWhen: stepCountIs(10),
    // reports every tool call once, also those no tool sees: unknown tools, invalid input, malformed JSON
    experimental_telemetry: { integrations: [coach.integration] },
    // with coachTools(..., { guard: true }), the guard corrects arguments the schema refuses when that is safe
    experimental_repairToolCall: coach.repairToolCall,
  });
  const { text } = await agent.generate({ prompt: question });
  await tc.shutdown(); // delivers what is still queued
  return text;
}
