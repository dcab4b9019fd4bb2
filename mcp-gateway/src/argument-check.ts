import { ArgumentGuard, type Toolcoach, type ValidationOutcome } from '@toolcoach/sdk';

/** A tools/call answer that refuses the arguments: an MCP tool execution error the model can read and correct. */
export interface Refusal {
  [field: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError: true;
}

/** The tool's JSON Schema as the upstream lists it, if the gateway has seen it. */
export type InputSchemaOf = (tool: string) => Record<string, unknown> | undefined;

// One local guard per schema text: compiled once, rebuilt when the upstream lists a changed schema.
const MAX_LOCAL_GUARDS = 1000;

/**
 * The optional pre-execution check: arguments that fail the tool's schema or an active learned limit are answered
 * with what `POST /v1/tools/:name/validate` says, without calling the upstream. When toolcoach did not check them
 * (it answered `checked: false`, any 4xx or 5xx, or could not be asked), they are checked here against the schema the
 * upstream lists for the tool, and refused in the same words; only a call that nothing could check goes through
 * unchecked, and the gateway says so on stderr.
 */
export class ArgumentCheck {
  private readonly localGuards = new Map<string, ArgumentGuard>();

  constructor(
    private readonly toolcoach: Pick<Toolcoach, 'validate'>,
    private readonly inputSchemaOf: InputSchemaOf = () => undefined,
    private readonly logger: { warn(message: string): void } = console,
  ) {}

  async refusal(tool: string, args: unknown): Promise<Refusal | undefined> {
    const outcome = await this.toolcoach.validate(tool, args ?? {});
    const checked = outcome.checked ? outcome : this.checkLocally(tool, args ?? {}, outcome.reason ?? 'toolcoach could not check them');
    if (!checked || checked.valid) return undefined;
    return { content: [{ type: 'text', text: refusalText(tool, checked) }], isError: true };
  }

  private checkLocally(tool: string, args: unknown, notChecked: string): Pick<ValidationOutcome, 'valid' | 'errors'> | undefined {
    const schema = this.inputSchemaOf(tool);
    const guard = schema && this.localGuard(tool, schema);
    if (!guard || guard.compileError) {
      this.logger.warn(
        `toolcoach-mcp: arguments of ${tool} not checked (${notChecked}), and no local schema to check them; letting them through`,
      );
      return undefined;
    }
    const errors = guard.findProblems(args).map((problem) => ({ ...problem, subtype: null }));
    return { valid: errors.length === 0, errors };
  }

  private localGuard(tool: string, schema: Record<string, unknown>): ArgumentGuard {
    const key = `${tool}\u0000${JSON.stringify(schema)}`;
    let guard = this.localGuards.get(key);
    if (!guard) {
      guard = new ArgumentGuard(tool, schema, null, 'strict');
      if (this.localGuards.size >= MAX_LOCAL_GUARDS) this.localGuards.delete(this.localGuards.keys().next().value!);
      this.localGuards.set(key, guard);
    }
    return guard;
  }
}

/** One line per problem, then the corrected arguments when the registry has a safe correction. */
export function refusalText(tool: string, outcome: Pick<ValidationOutcome, 'errors' | 'suggestion'>): string {
  const lines = [`Invalid arguments for tool ${tool} (not executed):`, ...outcome.errors.map((error) => `- ${error.message}`)];
  if (outcome.suggestion !== undefined && outcome.suggestion !== null) lines.push(`Call it with: ${JSON.stringify(outcome.suggestion)}`);
  return lines.join('\n');
}
