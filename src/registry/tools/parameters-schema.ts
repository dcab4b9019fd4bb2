import Ajv, { type ErrorObject } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import {
  compileUserSchema,
  LinearPatterns,
  measureSchemaCost,
  SCHEMA_COMPILE_BUDGET_MS,
  type UserSchemaDraft,
} from '../../diagnosis/index';
import type { FieldError } from '../../infra/http/api-error';
import { toFieldError } from '../../infra/validation/ajv-factory';
import type { JsonObject } from '../registry.types';

// Checks a user-supplied JSON Schema for a tool's arguments at registration: what validating with it may cost
// (patterns the linear-time engine cannot run or that compile too big, $ref/anyOf expansions), the meta-schema of
// its draft, then Ajv's strict mode (unknown keywords, `properties` without `type: object`, required names never
// declared), compiled the way the worker compiles it, so a schema that would silently validate nothing, or that the
// worker could not afford to run, is refused with the problem named. Pure apart from Ajv's own caches.

export const MAX_SCHEMA_BYTES = 64 * 1024;
export const MAX_SCHEMA_DEPTH = 32;
const MAX_REPORTED_PROBLEMS = 20;

// One meta-schema validator per draft, built once: Ajv compiles its meta-schemas per instance. Not ajvFor(): that is
// a draft-07 Ajv for our own schemas, while these judge users' schemas of three drafts by each draft's meta-schema.
const options = { strict: true, allErrors: true } as const;
const metaValidatorByDraft: Record<UserSchemaDraft, Ajv> = {
  draft7: addFormats(new Ajv(options)),
  draft2019: addFormats(new Ajv2019(options)),
  draft2020: addFormats(new Ajv2020(options)),
};

/** Problems with `schema`, each at a JSON Pointer under `path` (e.g. /parameters/properties/n/type); empty when fine. */
export function checkParametersSchema(schema: unknown, path: string): FieldError[] {
  const shapeProblems = checkSchemaShape(schema, path);
  if (shapeProblems.length > 0) return shapeProblems;
  for (const step of schemaCompileSteps(schema as JsonObject, path, new LinearPatterns())) {
    const problems = step();
    if (problems.length > 0) return problems;
  }
  return [];
}

/** What can be judged without compiling anything (linear in the schema's size): an object, its size, depth and references. */
export function checkSchemaShape(schema: unknown, path: string): FieldError[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return [{ path, message: 'must be a JSON Schema object' }];
  }
  if (Buffer.byteLength(JSON.stringify(schema), 'utf8') > MAX_SCHEMA_BYTES) {
    return [{ path, message: `must be at most ${MAX_SCHEMA_BYTES / 1024} KB as JSON` }];
  }
  const tooDeep = findTooDeep(schema, path, 0);
  if (tooDeep) return [{ path: tooDeep, message: `nests deeper than ${MAX_SCHEMA_DEPTH} levels` }];
  const remoteRefs = findRemoteRefs(schema, path);
  return remoteRefs.slice(0, MAX_REPORTED_PROBLEMS);
}

/**
 * The rest, for a schema whose shape is fine: what validating with it costs, its meta-schema, Ajv's strict compile.
 * Steps, each a piece of synchronous work, run in order until one finds problems: the caller may let the event loop
 * turn between them. `patterns`: its patterns compiled so far (the caller may compile them one by one beforehand);
 * any other is compiled here.
 */
export function schemaCompileSteps(schema: JsonObject, path: string, patterns: LinearPatterns): Array<() => FieldError[]> {
  let draft: UserSchemaDraft | null = null;
  return [
    () =>
      measureSchemaCost(schema, patterns)
        .problems.map((problem) => ({ path: `${path}${problem.pointer}`, message: problem.message }))
        .slice(0, MAX_REPORTED_PROBLEMS),
    () => {
      // Every provider sends tool arguments as one JSON object, so the schema must describe one.
      if (schema.type !== 'object') {
        return [{ path: `${path}/type`, message: 'must be "object": a tool takes its arguments as one JSON object' }];
      }
      draft = draftOf(schema.$schema);
      if (!draft) {
        return [{ path: `${path}/$schema`, message: 'must be JSON Schema draft-07, 2019-09 or 2020-12 (or absent, meaning draft-07)' }];
      }
      const metaValidator = metaValidatorByDraft[draft];
      return metaValidator.validateSchema(schema) ? [] : fromMetaSchemaErrors(metaValidator.errors ?? [], path);
    },
    () => strictModeProblems(draft!, schema, path, patterns),
  ];
}

function draftOf(metaSchema: unknown): UserSchemaDraft | null {
  if (metaSchema === undefined) return 'draft7';
  if (typeof metaSchema !== 'string') return null;
  const uri = metaSchema.replace(/#$/, '');
  if (/^https?:\/\/json-schema\.org\/draft-07\/schema$/.test(uri)) return 'draft7';
  if (/^https:\/\/json-schema\.org\/draft\/2019-09\/schema$/.test(uri)) return 'draft2019';
  if (/^https:\/\/json-schema\.org\/draft\/2020-12\/schema$/.test(uri)) return 'draft2020';
  return null;
}

function fromMetaSchemaErrors(errors: readonly ErrorObject[], path: string): FieldError[] {
  // The meta-schema reports one mistake several times (enum, then type array, then anyOf); the first says it best.
  const byPath = new Map<string, FieldError>();
  for (const error of errors) {
    const problem = toFieldError(error, path);
    if (!byPath.has(problem.path)) byPath.set(problem.path, problem);
  }
  return [...byPath.values()].slice(0, MAX_REPORTED_PROBLEMS);
}

function strictModeProblems(draft: UserSchemaDraft, json: JsonObject, path: string, patterns: LinearPatterns): FieldError[] {
  // Ajv registers a schema under its $id; an id-less copy keeps two versions of one tool from colliding.
  const { $id: _id, ...schema } = json;
  const compiled = compileUserSchema(schema, draft, { isStrict: true, patterns });
  if (compiled.status === 'compiled') return [];
  if (compiled.status === 'too_expensive') {
    return [{ path, message: `takes more than ${SCHEMA_COMPILE_BUDGET_MS} ms to compile: too expensive to validate with` }];
  }
  return [{ path: locateStrictProblem(compiled.message, schema, path), message: compiled.message.replace(/^strict mode: /, '') }];
}

/** Strict-mode errors name a place as `at "#/properties/a"`, or only the keyword; find it either way. */
function locateStrictProblem(message: string, schema: JsonObject, path: string): string {
  const at = /at (?:path )?"#([^"]*)"/.exec(message);
  if (at) return `${path}${decodeURIComponent(at[1])}`;
  const keyword = /unknown keyword: "([^"]+)"/.exec(message);
  if (keyword) return findKey(schema, keyword[1], path) ?? path;
  return path;
}

function findKey(value: unknown, key: string, at: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (!Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, key)) return `${at}/${escape(key)}`;
  for (const [child, inner] of Object.entries(value)) {
    const found = findKey(inner, key, `${at}/${escape(child)}`);
    if (found) return found;
  }
  return null;
}

function findTooDeep(value: unknown, at: string, depth: number): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_SCHEMA_DEPTH) return at;
  for (const [key, inner] of Object.entries(value)) {
    const found = findTooDeep(inner, `${at}/${escape(key)}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Only local references: resolving a URL would make registration fetch, or silently ignore, someone else's schema. */
function findRemoteRefs(value: unknown, at: string): FieldError[] {
  if (typeof value !== 'object' || value === null) return [];
  const problems: FieldError[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const here = `${at}/${escape(key)}`;
    if ((key === '$ref' || key === '$dynamicRef') && !Array.isArray(value)) {
      if (typeof inner === 'string' && !inner.startsWith('#')) {
        problems.push({ path: here, message: 'must be a local reference starting with "#"; remote schemas are not fetched' });
      }
      continue;
    }
    problems.push(...findRemoteRefs(inner, here));
  }
  return problems;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
