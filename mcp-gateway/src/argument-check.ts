import type { Correction, Toolcoach } from '@toolcoach/sdk';

/** A tools/call answer that refuses the arguments: an MCP tool execution error the model can read and correct. */
export interface Refusal {
  [field: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError: true;
}

/** What the check does with a call: answer it with a refusal, or pass it on (with corrected arguments, if any). */
export type CheckedCall = { refusal: Refusal; correction?: undefined } | { refusal?: undefined; correction?: Correction };

/**
 * The optional pre-execution check (`--check-arguments`): the SDK's guard checks each call where the gateway is, with
 * no request, in the project's guard policy (GET /v1/guard/policy), against the tool's schema as the registry serves
 * it and the renames and limits it learned, or against the schema the upstream lists when toolcoach could not be
 * reached. A refused call is answered with the guard core's words, the ones the SDKs give a model, and never reaches
 * the upstream; a corrected one reaches it corrected.
 */
export class ArgumentCheck {
  constructor(private readonly toolcoach: Pick<Toolcoach, 'checkArguments'>) {}

  check(tool: string, args: unknown): CheckedCall {
    const verdict = this.toolcoach.checkArguments(tool, args ?? {});
    if (verdict.action === 'refuse') return { refusal: { content: [{ type: 'text', text: verdict.message }], isError: true } };
    return verdict.action === 'correct' ? { correction: verdict.correction } : {};
  }
}
