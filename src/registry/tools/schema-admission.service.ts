import { Injectable } from '@nestjs/common';
import { estimatePatternUnits, LinearPatterns, MAX_SCHEMA_PROGRAM_SIZE, TOO_MANY_PATTERN_INSTRUCTIONS } from '../../diagnosis/index';
import { SharedTimeSlice } from '../../infra/event-loop/shared-time-slice';
import { ApiError, FieldError } from '../../infra/http/api-error';
import { checkSchemaShape, schemaCompileSteps } from './parameters-schema';
import {
  MAX_SCHEMA_COMPILE_UNITS,
  patternsOf,
  RegistrationBudget,
  schemaCompileUnits,
  shapeCheckUnits,
  Spent,
} from './registration-budget';
import { AdmittedSchemas } from './admitted-schemas';
import { RegistrationTurns } from './registration-turns';
import type { JsonObject, RegistrationCandidate } from '../registry.types';

type SchemaOutcome = { problems: FieldError[] } | { spent: Spent };

// A 400 names at most this many schema problems (per tool, see parameters-schema.ts, and per request).
const MAX_REPORTED_PROBLEMS = 100;

/**
 * Checks the schemas of a registration request before anything is written, in bounded pieces: one pattern compile
 * (MAX_PATTERN_COMPILE_UNITS) or one schema's Ajv compile (REGISTRATION_COMPILE_BUDGET_MS) at a time, the event loop
 * polled between them (SharedTimeSlice), every piece charged to the request's RegistrationBudget before it runs, and
 * each project's requests checked one after another (RegistrationTurns).
 */
@Injectable()
export class SchemaAdmissionService {
  private readonly turns = new RegistrationTurns();
  private readonly admitted = new AdmittedSchemas();

  constructor(private readonly timeSlice: SharedTimeSlice) {}

  /**
   * Resolves when every schema is fine. Throws 400 `invalid_schema` naming each problem, 422
   * `registration_too_expensive` naming each tool not checked when the budget ran out, or 429 when too many of the
   * project's registrations wait already.
   */
  async admit(
    projectId: string,
    candidates: readonly RegistrationCandidate[],
    nowMs: () => number = () => performance.now(),
  ): Promise<void> {
    const turn = await this.turns.run(projectId, () => this.checkAll(projectId, candidates, new RegistrationBudget(nowMs)));
    if (!turn) {
      throw new ApiError(429, 'too_many_registrations', 'Too many registrations of this project are being checked; retry shortly', {
        headers: { 'retry-after': '1' },
      });
    }
  }

  private async checkAll(projectId: string, candidates: readonly RegistrationCandidate[], budget: RegistrationBudget): Promise<void> {
    const problems: FieldError[] = [];
    for (const [index, candidate] of candidates.entries()) {
      await this.timeSlice.yieldIfDue();
      const schemaJson = JSON.stringify(candidate.definition.parameters);
      const digest = AdmittedSchemas.digestOf(schemaJson);
      if (this.admitted.has(projectId, digest)) {
        // the text was read to hash it: charged as the shape check the hit skips
        const spent = budget.charge(shapeCheckUnits(Buffer.byteLength(schemaJson, 'utf8')));
        if (spent) throw tooExpensive(candidates.slice(index), budget.describe(spent), problems);
        continue;
      }
      const outcome = await this.checkSchema(candidate, budget);
      if ('spent' in outcome) throw tooExpensive(candidates.slice(index), budget.describe(outcome.spent), problems);
      problems.push(...outcome.problems);
      if (outcome.problems.length === 0) this.admitted.remember(projectId, digest);
    }
    if (problems.length > 0) {
      const details = problems.slice(0, MAX_REPORTED_PROBLEMS);
      throw new ApiError(400, 'invalid_schema', `Invalid JSON Schema at ${details[0].path}: ${details[0].message}`, { details });
    }
  }

  private async checkSchema({ definition, parametersPath }: RegistrationCandidate, budget: RegistrationBudget): Promise<SchemaOutcome> {
    const schema: unknown = definition.parameters;
    const shapeProblems = checkSchemaShape(schema, parametersPath);
    // reading the shape is linear in the request, bounded by its size: charged once done
    const spentOnShape = budget.charge(shapeCheckUnits(Buffer.byteLength(JSON.stringify(schema), 'utf8')));
    if (spentOnShape) return { spent: spentOnShape };
    if (shapeProblems.length > 0) return { problems: shapeProblems };
    const codeUnits = schemaCompileUnits(schema);
    if (codeUnits > MAX_SCHEMA_COMPILE_UNITS) {
      const message = `has too many subschemas to generate validation code for in one piece (${codeUnits} work units, at most ${MAX_SCHEMA_COMPILE_UNITS}, about 140 properties)`;
      return { problems: [{ path: parametersPath, message }] };
    }
    const spentOnCode = budget.charge(codeUnits);
    if (spentOnCode) return { spent: spentOnCode };

    // Each pattern compiled in a piece of its own, charged before it runs; refused ones count toward the schema's total.
    const patterns = new LinearPatterns();
    const refused: FieldError[] = [];
    let programSize = 0;
    for (const { pattern, path } of patternsOf(schema, parametersPath)) {
      if (patterns.has(pattern)) continue;
      const spent = budget.charge(estimatePatternUnits(pattern));
      if (spent) return { spent };
      const check = patterns.check(pattern);
      programSize += check.ok ? check.programSize : check.units;
      if (!check.ok) refused.push({ path, message: check.problem });
      // the cost measure would stop here too, but in its own order: it must not compile what was not charged
      if (programSize > MAX_SCHEMA_PROGRAM_SIZE) return { problems: [...refused, { path, message: TOO_MANY_PATTERN_INSTRUCTIONS }] };
      await this.timeSlice.yieldIfDue();
    }
    // Every pattern of the schema is compiled or refused by now: the measure and Ajv's compile only look them up.
    for (const step of schemaCompileSteps(schema as JsonObject, parametersPath, patterns)) {
      await this.timeSlice.yieldIfDue();
      const problems = step();
      if (problems.length > 0) return { problems };
    }
    return { problems: [] };
  }
}

function tooExpensive(unchecked: readonly RegistrationCandidate[], why: string, problems: readonly FieldError[]): ApiError {
  const notChecked = unchecked.map(({ definition, parametersPath }) => ({
    path: parametersPath,
    message: `not checked (tool ${JSON.stringify(definition.name)}): ${why}`,
  }));
  return new ApiError(
    422,
    'registration_too_expensive',
    `Nothing was registered: ${why} before ${unchecked.length} of the tools were checked; register them in smaller requests`,
    { details: [...problems.slice(0, MAX_REPORTED_PROBLEMS), ...notChecked] },
  );
}
