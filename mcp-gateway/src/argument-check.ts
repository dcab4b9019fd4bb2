import type { Toolcoach, ValidationOutcome } from '@toolcoach/sdk';

/** A tools/call answer that refuses the arguments: an MCP tool execution error the model can read and correct. */
export interface Refusal {
  [field: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError: true;
}

/**
 * The optional pre-execution check: arguments that fail the tool's schema or an active learned limit are answered
 * with what `POST /v1/tools/:name/validate` says, without calling the upstream. When toolcoach cannot be asked, or
 * could not check, the call goes through.
 */
export class ArgumentCheck {
  constructor(private readonly toolcoach: Pick<Toolcoach, 'validate'>) {}

  async refusal(tool: string, args: unknown): Promise<Refusal | undefined> {
    const outcome = await this.toolcoach.validate(tool, args ?? {});
    if (outcome.valid || !outcome.checked) return undefined;
    return { content: [{ type: 'text', text: refusalText(tool, outcome) }], isError: true };
  }
}

/** One line per problem, then the corrected arguments when the registry has a safe correction. */
export function refusalText(tool: string, outcome: Pick<ValidationOutcome, 'errors' | 'suggestion'>): string {
  const lines = [`Invalid arguments for tool ${tool} (not executed):`, ...outcome.errors.map((error) => `- ${error.message}`)];
  if (outcome.suggestion !== undefined && outcome.suggestion !== null) lines.push(`Call it with: ${JSON.stringify(outcome.suggestion)}`);
  return lines.join('\n');
}
