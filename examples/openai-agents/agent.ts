import { Agent, type ModelProvider, OpenAIProvider, Runner, setTraceProcessors } from '@openai/agents';
import { Toolcoach } from '@toolcoach/sdk';
import { ToolcoachAgents } from '@toolcoach/sdk/openai-agents';
import { z } from 'zod';

// The SDK's tracing stays on (toolcoach reads its function spans) but exports nowhere; without this line it sends
// every trace to api.openai.com (OpenAI's Traces dashboard), which needs OPENAI_API_KEY.
setTraceProcessors([]);

/** The agent's tools, made with `coach.tool` (the SDK's `tool()`, which also tells toolcoach what a tool threw). */
export function mathTools(coach: ToolcoachAgents) {
  const primeFactorization = coach.tool({
    name: 'prime_factorization',
    description: 'Returns the prime factors of one integer.',
    parameters: z.object({ number: z.number().int().min(2).max(1_000_000) }),
    execute: ({ number }) => factorize(number),
  });
  const factorial = coach.tool({
    name: 'factorial',
    description: 'Returns n! for an integer n.',
    parameters: z.object({ n: z.number().int().min(0) }),
    execute: ({ n }) => {
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return product;
    },
  });
  return [primeFactorization, factorial];
}

/** One conversation of an OpenAI Agents SDK agent with toolcoach: live descriptions and the guard in, every call reported. */
export async function runAgent(question: string, conversationId: string, modelProvider: ModelProvider = new OpenAIProvider()) {
  const tc = new Toolcoach({ agent: 'math-agent' }); // the server and key from TOOLCOACH_URL and TOOLCOACH_API_KEY
  const coach = new ToolcoachAgents(tc);
  // registers the tools, then gives them their descriptions with the learned warnings; the guard corrects a bad call
  // when the correction is safe, and refuses an unsafe one with a message for the model
  const tools = await coach.loadTools(mathTools(coach), { guard: true });
  const agent = new Agent({ name: 'math-agent', model: 'gpt-4.1', instructions: 'Answer with the tools.', tools });
  const runner = coach.instrument(
    new Runner({
      // the model's every response passes by toolcoach: calls no tool sees (unknown names, malformed JSON) are reported
      modelProvider: coach.modelProvider(modelProvider),
      groupId: conversationId, // the session of every call
      toolNotFoundBehavior: 'return_error_to_model', // an unknown tool name is the model's to fix, not the end of the run
    }),
  );
  const result = await runner.run(agent, question);
  await tc.shutdown(); // delivers what is still queued
  return result.finalOutput;
}

function factorize(value: number): number[] {
  const factors: number[] = [];
  for (let divisor = 2; value > 1; divisor++) {
    while (value % divisor === 0) {
      factors.push(divisor);
      value /= divisor;
    }
  }
  return factors;
}
