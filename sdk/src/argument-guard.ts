// The guard's check, run in the agent's process before a tool runs (docs/guard.md): arguments against the
// tool's JSON Schema (Ajv, compiled once per description version) and the renames and limits the registry learned.
// What is wrong, its words and the correction are the guard core's (@toolcoach/core, bundled in dist/core), the same
// that POST /v1/tools/:name/validate answers with; test/fixtures/guard-conformance.json pins them. Pure.
import {
  type ArgumentAnswer,
  type GuardMode,
  type GuardSection,
  type GuardVerdict,
  type SchemaError,
  checkArgumentsLocally,
  guardVerdict,
} from '@toolcoach/core';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';

export type { ArgumentAnswer, Correction, CorrectionKind, GuardVerdict } from '@toolcoach/core';

/** One tool's guard: built once per description version, then `check` per call. */
export class ArgumentGuard {
  private readonly validate: ValidateFunction | null;
  private readonly learnedRenames: Map<string, string>;

  /** `compileError` is set when the schema could not be compiled: then only learned limits are checked. */
  readonly compileError: string | null;

  constructor(
    readonly toolName: string,
    private readonly parameters: Record<string, unknown>,
    private readonly section: GuardSection | null,
    readonly mode: GuardMode,
  ) {
    const compiled = compileSchema(parameters);
    this.validate = compiled.validate;
    this.compileError = compiled.error;
    this.learnedRenames = new Map((section?.renames ?? []).map((rename) => [rename.wrong, rename.intended]));
  }

  check(args: unknown): GuardVerdict {
    if (this.mode === 'off') return { action: 'run' };
    return guardVerdict(this.toolName, args, this.answer(args), this.mode);
  }

  /**
   * What validate would answer, whatever the mode: the findings (each with validate's category, subtype, path and
   * words) and the safe correction. The local check a client falls back to when the server did not check a call.
   */
  answer(args: unknown): ArgumentAnswer {
    return checkArgumentsLocally({
      args,
      schemaJson: this.parameters,
      schemaErrorsOf: (value) => this.schemaErrorsOf(value),
      learnedRenames: this.learnedRenames,
      limits: this.section?.limits ?? [],
    });
  }

  private schemaErrorsOf(value: Record<string, unknown>): readonly SchemaError[] | null {
    if (!this.validate) return null;
    return this.validate(value) ? [] : (this.validate.errors ?? []);
  }
}

function compileSchema(parameters: Record<string, unknown>): { validate: ValidateFunction | null; error: string | null } {
  try {
    const dialect = typeof parameters.$schema === 'string' ? parameters.$schema : '';
    // the server's options (src/diagnosis/user-schema-compiler.ts), but formats: the SDK ships without ajv-formats
    const options = {
      allErrors: true,
      allowUnionTypes: true,
      strict: false,
      ownProperties: true,
      inlineRefs: false,
      validateFormats: false,
      validateSchema: false,
    } as const;
    const ajv = dialect.includes('2020-12') ? new Ajv2020(options) : dialect.includes('2019-09') ? new Ajv2019(options) : new Ajv(options);
    const { $schema: _dialect, ...schema } = parameters;
    return { validate: ajv.compile(schema), error: null };
  } catch (error) {
    return { validate: null, error: error instanceof Error ? error.message : String(error) };
  }
}
