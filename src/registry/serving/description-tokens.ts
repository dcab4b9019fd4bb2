// What a description costs an agent: its length in tokens of o200k_base, the encoding of OpenAI's GPT-4o, GPT-4.1, o1,
// o3 and o4 families (docs/description-cost.md). The ranks ship inside gpt-tokenizer: counting never goes online. Pure.

import { countTokens } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { renderDescription } from './description-renderer';

/** The encoding every stored token count is in. */
export const TOKEN_ENCODING = 'o200k_base';

export function countDescriptionTokens(text: string): number {
  return countTokens(text);
}

/** The tokens the warnings block adds to the base description: the served text's count less the base's. */
export function countWarningTokens(baseDescription: string, description: string): number {
  return Math.max(0, countTokens(description) - countTokens(renderDescription(baseDescription, [])));
}
