import { Toolcoach } from '@toolcoach/sdk';
import { wrapOpenAI } from '@toolcoach/sdk/openai';
import OpenAI from 'openai';

// TOOLCOACH_URL and TOOLCOACH_API_KEY; OPENAI_API_KEY (and OPENAI_BASE_URL, if any)
export const toolcoach = new Toolcoach({ agent: 'calculator' });

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'divide',
      description: 'Divide the number a by the number b.',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
    },
  },
];

function divide({ a, b }: { a: number; b: number }): number {
  if (b === 0) throw new Error('division by zero');
  return a / b;
}

/** One conversation: the model calls tools until it answers; each tool's result (or error) goes back to it. */
export async function converse(question: string, session: string): Promise<string | null> {
  const openai = wrapOpenAI(new OpenAI(), toolcoach, { session });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  for (;;) {
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      let content: string;
      try {
        if (call.function.name !== 'divide') throw new Error(`there is no tool named ${call.function.name}`);
        content = String(divide(JSON.parse(call.function.arguments)));
      } catch (error) {
        content = `Error: ${(error as Error).message}`;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
}

if (require.main === module) {
  converse('What is 10 divided by 4?', 'example')
    .then(console.log, console.error)
    .finally(() => toolcoach.shutdown());
}
