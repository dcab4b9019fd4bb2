// What a description costs an agent: its length in tokens of o200k_base, the encoding of OpenAI's GPT-4o, GPT-4.1, o1,
// o3 and o4 families (docs/description-cost.md). The ranks ship inside gpt-tokenizer: counting never goes online. Pure.

import type * as O200kBase from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { renderDescription } from './description-renderer';

let encoding: typeof O200kBase | undefined;

/**
 * Loads the ranks (about 34 MB of heap, ~400 ms of synchronous work on a 2-core box). A process that serves the API
 * calls it at start-up, before it listens: loaded on a first registration instead, it would freeze every request of
 * every project for that long. Processes that never count (the worker, which may run on a small heap) never load it.
 */
export function loadTokenizer(): typeof O200kBase {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  encoding ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as typeof O200kBase;
  return encoding;
}

function countTokens(text: string): number {
  return loadTokenizer().countTokens(text);
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
