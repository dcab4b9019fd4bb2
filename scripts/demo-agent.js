// The demo's agent: two real LangChain.js tools and a scripted chat model that reads what it is given. It has three
// habits a real model shows (batching a list into a one-integer parameter, asking for a factorial too large, calling
// a tool by a name that does not exist) and drops a habit only when a tool description it was given warns against it
// (the wrong name or argument quoted, or a largest 'n' stated), or when a tool's error told it so in this session.
'use strict';
const { BaseChatModel } = require('@langchain/core/language_models/chat_models');
const { AIMessage } = require('@langchain/core/messages');
const { tool } = require('langchain');
const { z } = require('zod');

const MODEL_NAME = 'scripted-reader-1';
const MISSPELLED_TOOL = 'prime_factorise';

function mathTools() {
  const primeFactorization = tool(({ number }) => factorize(number), {
    name: 'prime_factorization',
    description: 'Returns the prime factors of a single integer between 2 and 1,000,000.',
    schema: z.object({ number: z.number().int().min(2).max(1_000_000).describe('the integer to factor') }),
  });
  const factorial = tool(
    ({ n }) => {
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return product;
    },
    {
      name: 'factorial',
      description: 'Returns n! for a non-negative integer n.',
      schema: z.object({ n: z.number().int().min(0).describe('n') }),
    },
  );
  return [primeFactorization, factorial];
}

function factorize(value) {
  const factors = [];
  for (let d = 2; value > 1; d++) {
    while (value % d === 0) {
      factors.push(d);
      value /= d;
    }
  }
  return factors;
}

/** Does any description quote this name ('x', "x" or `x`)? Warnings quote the names they are about. */
function isQuoted(descriptions, name) {
  return descriptions.some((text) => [`'${name}'`, `"${name}"`, `\`${name}\``].some((quoted) => text.includes(quoted)));
}

/** The largest value a description states for a quoted argument, in a sentence that names both. */
function statedLimit(descriptions, argument) {
  for (const text of descriptions) {
    for (const sentence of text.split(/[.\n]/)) {
      if (!isQuoted([sentence], argument)) continue;
      const number = sentence.match(/\b(\d[\d,]*)\b/);
      if (number) return Number(number[1].replace(/,/g, ''));
    }
  }
  return undefined;
}

/**
 * One session's task: factor two numbers (and, in every other session, a third that the model asks for under a
 * misspelled tool name), compute a small factorial and a large one.
 */
function taskOf(session) {
  return {
    a: 12 + session,
    b: 18 + session,
    c: session % 2 === 1 ? 30 + session : undefined,
    small: 3 + (session % 8),
    large: 100 + session,
  };
}

let callCounter = 0;
const call = (name, args) => ({ id: `demo_call_${++callCounter}`, name, args, type: 'tool_call' });

/** A chat model that plans its tool calls from the descriptions of the tools bound to it and the errors it saw. */
class ReaderModel extends BaseChatModel {
  constructor(session, tools = []) {
    super({});
    this.session = session;
    this.boundTools = tools;
  }

  _llmType() {
    return 'scripted-reader';
  }

  // provider packages name their model this way; the toolcoach handler reads it from the run's metadata
  getLsParams(options) {
    return { ...super.getLsParams(options), ls_model_name: MODEL_NAME };
  }

  bindTools(tools) {
    return new ReaderModel(this.session, tools);
  }

  async _generate(messages) {
    const turn = messages.filter((m) => m.getType() === 'ai').length;
    const message = turn === 0 ? this.firstCalls() : turn === 1 ? this.corrections(messages) : undefined;
    const reply = message ?? new AIMessage(`Done with session ${this.session}.`);
    return { generations: [{ text: typeof reply.content === 'string' ? reply.content : '', message: reply }] };
  }

  descriptionsOf(name) {
    return this.boundTools.filter((t) => name === undefined || t.name === name).map((t) => t.description ?? '');
  }

  firstCalls() {
    const { a, b, c, small, large } = taskOf(this.session);
    const calls = isQuoted(this.descriptionsOf('prime_factorization'), 'numbers')
      ? [call('prime_factorization', { number: a }), call('prime_factorization', { number: b })]
      : [call('prime_factorization', { numbers: [a, b] })];
    if (c !== undefined) {
      calls.push(call(isQuoted(this.descriptionsOf(), MISSPELLED_TOOL) ? 'prime_factorization' : MISSPELLED_TOOL, { number: c }));
    }
    const limit = statedLimit(this.descriptionsOf('factorial'), 'n');
    calls.push(call('factorial', { n: small }), call('factorial', { n: limit === undefined ? large : Math.min(large, limit) }));
    return new AIMessage({ content: '', tool_calls: calls });
  }

  /** What a model does after reading its tools' errors: the same requests, in the form the errors asked for. */
  corrections(messages) {
    const failed = messages.filter((m) => m.getType() === 'tool' && m.status === 'error').map((m) => m.name);
    if (failed.length === 0) return undefined;
    const { a, b, c } = taskOf(this.session);
    const calls = [];
    if (failed.includes('prime_factorization'))
      calls.push(call('prime_factorization', { number: a }), call('prime_factorization', { number: b }));
    if (failed.includes(MISSPELLED_TOOL)) calls.push(call('prime_factorization', { number: c }));
    if (failed.includes('factorial')) calls.push(call('factorial', { n: 20 }));
    return new AIMessage({ content: '', tool_calls: calls });
  }
}

module.exports = { mathTools, ReaderModel, MODEL_NAME };
