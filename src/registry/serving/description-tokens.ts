// What a description costs an agent: its length in tokens of o200k_base, the encoding of OpenAI's GPT-4o, GPT-4.1, o1,
// o3 and o4 families (docs/description-cost.md). The ranks ship inside gpt-tokenizer: counting never goes online. Pure.

import type * as O200kBase from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { renderDescription } from './description-renderer';

let encoding: typeof O200kBase | undefined;

/**
 * Loaded on the first count, not at start-up: its ranks hold about 34 MB of heap, which every process would carry
 * whether it counts or not (the worker never does, and it may run on a small heap).
 */
function countTokens(text: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  encoding ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as typeof O200kBase;
  return encoding.countTokens(text);
}

/** The encoding every stored token count is in. */
export const TOKEN_ENCODING = 'o200k_base';

export function countDescriptionTokens(text: string): number {
  return countTokens(text);
}

/** The tokens the warnings block adds to the base description: the served text's count less the base's. */
export function countWarningTokens(baseDescription: string, description: string): number {
  return Math.max(0, countTokens(description) - countTokens(renderDescription(baseDescription, [])));
}
