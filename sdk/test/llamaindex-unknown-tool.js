// A LlamaIndex agent run whose model calls a tool that does not exist, run in a process of its own: LlamaIndex
// (@llamaindex/workflow 1.1) then throws "Tools not found" out of an agent step nobody awaits, an unhandled rejection
// that Jest would count against any test. Uses the built SDK, as agents install it. With TOOLCOACH_URL and
// TOOLCOACH_API_KEY set the events go to that server; either way, when the process has nothing left to do (the run
// can never settle then), it prints {events, rejection, isSettled} as JSON.
const { agent } = require('@llamaindex/workflow');
const { tool, ToolCallLLM } = require('llamaindex');
const { z } = require('zod');
const { Toolcoach } = require('@toolcoach/sdk');
const { instrumentAgent } = require('@toolcoach/sdk/llamaindex');

class OneCallLLM extends ToolCallLLM {
  supportToolCall = true;
  metadata = { model: 'scripted-llm', temperature: 0, topP: 1, contextWindow: 8192, tokenizer: undefined, structuredOutput: false };

  async chat() {
    return (async function* () {
      yield { delta: '', raw: null, options: { toolCall: [{ id: 'call-unknown', name: 'factorial_of', input: '{"n": 5}' }] } };
    })();
  }
}

const factorial = tool({
  name: 'factorial',
  description: 'Returns n! for an integer n.',
  parameters: z.object({ n: z.number().int().min(0) }),
  execute: ({ n }) => n,
});

const isOnline = Boolean(process.env.TOOLCOACH_URL);
const tc = new Toolcoach({
  agent: 'math-agent',
  cacheDir: false,
  ...(isOnline ? {} : { baseUrl: 'http://127.0.0.1:9', apiKey: 'offline', flushOnExit: false }),
});
const conversation = tc.forSession('conversation-unknown');
const outcome = { events: [], rejection: null, isSettled: false };
const report = conversation.report.bind(conversation);
conversation.report = (event) => {
  outcome.events.push(event);
  if (isOnline) report(event);
};
process.on('unhandledRejection', (reason) => (outcome.rejection = String(reason)));
// after the client's own exit flush (beforeExit), when the loop is empty for good
process.on('exit', () => process.stdout.write(JSON.stringify(outcome)));

instrumentAgent(agent({ name: 'math-agent', llm: new OneCallLLM(), tools: [factorial] }), conversation)
  .run('Compute 5!')
  .finally(() => (outcome.isSettled = true));
