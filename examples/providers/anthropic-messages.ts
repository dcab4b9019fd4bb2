import Anthropic from '@anthropic-ai/sdk';
import { Toolcoach } from '@toolcoach/sdk';
import { wrapAnthropic } from '@toolcoach/sdk/anthropic';

// TOOLCOACH_URL and TOOLCOACH_API_KEY; ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if any)
export const toolcoach = new Toolcoach({ agent: 'calculator' });

const tools: Anthropic.Tool[] = [
  {
    name: 'divide',
    description: 'Divide the number a by the number b.',
    input_schema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  },
];

function divide({ a, b }: { a: number; b: number }): number {
  if (b === 0) throw new Error('division by zero');
  return a / b;
}

/** One conversation, streamed: the model calls tools until it answers; a failed tool goes back with is_error. */
export async function converse(question: string, session: string): Promise<string> {
  const anthropic = wrapAnthropic(new Anthropic(), toolcoach, { session });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }];
  for (;;) {
    const stream = anthropic.messages.stream({ model: 'claude-sonnet-5', max_tokens: 1024, messages, tools });
    const message = await stream.finalMessage();
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const results: Anthropic.ToolResultBlockParam[] = uses.map((use) => {
      try {
        if (use.name !== 'divide') throw new Error(`there is no tool named ${use.name}`);
        return { type: 'tool_result', tool_use_id: use.id, content: String(divide(use.input as { a: number; b: number })) };
      } catch (error) {
        return { type: 'tool_result', tool_use_id: use.id, content: (error as Error).message, is_error: true };
      }
    });
    messages.push({ role: 'user', content: results });
  }
}

if (require.main === module) {
  converse('What is 10 divided by 4?', 'example')
    .then(console.log, console.error)
    .finally(() => toolcoach.shutdown());
}
