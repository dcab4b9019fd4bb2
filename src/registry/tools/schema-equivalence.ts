import type { JsonObject } from '../registry.types';
import { canonicalJson } from './tool-versioning';

// Decides whether two parameters schemas of one tool accept the same arguments, so that a Python agent (pydantic:
// `title`s, a top-level `description`, `anyOf [X, null]`) and a JS agent (zod: `$schema`, `type: [X, "null"]`, bounds
// of ±(2^53 - 1) on every integer) registering the same tool do not make a new version at every start
// (docs/registration.md). Only rewrites that keep the set of accepted arguments are applied, with one named exception
// (SAFE_INTEGER); a keyword this file does not know is compared as it is. Pure.

/** What two equivalent schemas may differ in; each is named in the registration answer. */
export const SCHEMA_DIFFERENCES = [
  '$schema',
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  'key_order',
  'array_order',
  'nullable_form',
  'additionalProperties_true',
  'safe_integer_bounds',
] as const;
export type SchemaDifference = (typeof SCHEMA_DIFFERENCES)[number];

export type SchemaComparison = { isEquivalent: true; differences: SchemaDifference[] } | { isEquivalent: false };

/** Keywords that only annotate: Ajv validates nothing with them (user schemas compile without useDefaults). */
const ANNOTATIONS = ['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly'] as const;
const ANNOTATION_SET: ReadonlySet<string> = new Set(ANNOTATIONS);

/** Keywords that mean the same in draft-07, 2019-09 and 2020-12; a schema using only these validates alike in each. */
const SAME_IN_EVERY_DRAFT = new Set([
  ...ANNOTATIONS,
  ...['$schema', 'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'format', 'items', 'maxItems', 'minItems', 'uniqueItems', 'contains'],
  ...['maxProperties', 'minProperties', 'required', 'properties', 'patternProperties', 'additionalProperties'],
  ...['propertyNames', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'],
]);

/** Keywords that constrain only strings, numbers, arrays or objects: a null passes each of them. */
const NULL_PASSES = new Set([
  ...['minLength', 'maxLength', 'pattern', 'format'],
  ...['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  ...['items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains'],
  ...['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties'],
  ...['dependentRequired', 'dependentSchemas', 'dependencies'],
]);

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMAS = new Set([
  ...['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'],
  ...['unevaluatedItems', 'unevaluatedProperties', 'contentSchema', 'items'],
]);

// zod's z.number().int() always carries these bounds, pydantic's `int` never does. Not a proof: the two accept the
// same integers except those beyond 2^53 - 1 in size, which a JS reader of the arguments (the registry's validation,
// the TS SDK's guard, a JS tool) cannot tell apart from their neighbours anyway. Without this rule every integer
// argument would make the two SDKs' schemas different.
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** What a schema accepts, written one way, and what was rewritten or dropped on the way (by JSON Pointer). */
interface AcceptanceForm {
  form: unknown;
  notes: Map<SchemaDifference, Set<string>>;
  /** Description texts by the pointer of the (rewritten) schema they describe. */
  descriptions: Map<string, string[]>;
  isSameInEveryDraft: boolean;
}

/**
 * Whether `incoming` accepts exactly the arguments `current` accepts (safe-integer bounds aside), and if so what
 * they differ in. A description both schemas give the same place in different words is a change: it is what the
 * model reads, and the one way a user edits it.
 */
export function compareParametersSchemas(current: JsonObject, incoming: JsonObject): SchemaComparison {
  const before = acceptanceForm(current);
  const after = acceptanceForm(incoming);
  const isReworded = [...before.descriptions].some(
    ([pointer, texts]) => after.descriptions.has(pointer) && canonicalJson(texts) !== canonicalJson(after.descriptions.get(pointer)),
  );
  const isSameDraft = (before.isSameInEveryDraft && after.isSameInEveryDraft) || draftOf(current) === draftOf(incoming);
  const isSameAcceptance = isSameDraft && canonicalJson(before.form) === canonicalJson(after.form);
  if (!isSameAcceptance || isReworded) return { isEquivalent: false };

  const differences = new Set<SchemaDifference>();
  for (const kind of new Set([...before.notes.keys(), ...after.notes.keys()])) {
    if (canonicalJson([...(before.notes.get(kind) ?? [])].sort()) !== canonicalJson([...(after.notes.get(kind) ?? [])].sort())) {
      differences.add(kind);
    }
  }
  if (differences.size === 0 && JSON.stringify(current) !== JSON.stringify(incoming)) differences.add('key_order');
  return { isEquivalent: true, differences: [...differences].sort() };
}

/** Which parameters schema a registration keeps, and why: said in its answer. */
export interface SchemaChoice {
  kept: 'current' | 'incoming';
  /** new_tool; identical (key order aside); equivalent: accepts the same arguments; changed: accepts others, or a description was reworded. */
  reason: 'new_tool' | 'identical' | 'equivalent' | 'changed';
  /** For `equivalent`: what the two differ in. */
  differences: SchemaDifference[];
}

/**
 * The stored schema stays while an equivalent one arrives: it is what agents were served with the current version
 * (and what a running canary compares), so swapping in another spelling would change a served version in place.
 */
export function chooseParameters(current: JsonObject | null, incoming: JsonObject): { parameters: JsonObject; choice: SchemaChoice } {
  if (current === null) return { parameters: incoming, choice: { kept: 'incoming', reason: 'new_tool', differences: [] } };
  if (canonicalJson(current) === canonicalJson(incoming)) {
    return { parameters: current, choice: { kept: 'current', reason: 'identical', differences: [] } };
  }
  const comparison = compareParametersSchemas(current, incoming);
  if (!comparison.isEquivalent) return { parameters: incoming, choice: { kept: 'incoming', reason: 'changed', differences: [] } };
  return { parameters: current, choice: { kept: 'current', reason: 'equivalent', differences: comparison.differences } };
}

/** A schema rewritten to one spelling of what it accepts: annotations dropped, sets sorted, nullables as type lists. */
export function acceptanceForm(schema: JsonObject): AcceptanceForm {
  const result: AcceptanceForm = { form: null, notes: new Map(), descriptions: new Map(), isSameInEveryDraft: true };
  result.form = normalizeSchema(schema, '', result);
  return result;
}

function normalizeSchema(schema: unknown, pointer: string, out: AcceptanceForm): unknown {
  if (!isObject(schema)) return schema;
  const form: JsonObject = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const here = `${pointer}/${escape(keyword)}`;
    if (!SAME_IN_EVERY_DRAFT.has(keyword) || (keyword === 'items' && Array.isArray(value))) out.isSameInEveryDraft = false;
    if (keyword === '$schema' && pointer === '') {
      note(out, '$schema', String(value));
    } else if (keyword === 'description' && typeof value === 'string') {
      // the root's description repeats the tool's own (pydantic copies the docstring there; an SDK that re-registers a
      // tool whose description it replaced with the served one copies that): the tool's description is compared as
      // its own field, so the root's is a note, never a change that would end a running canary
      if (pointer !== '') addDescriptions(out, pointer, [value]);
      note(out, 'description', `${here}=${value}`);
    } else if (ANNOTATION_SET.has(keyword)) {
      note(out, keyword as SchemaDifference, `${here}=${canonicalJson(value)}`);
    } else if (keyword === 'additionalProperties' && (value === true || (isObject(value) && Object.keys(value).length === 0))) {
      note(out, 'additionalProperties_true', here);
    } else {
      form[keyword] = normalizeKeyword(keyword, value, here, out);
    }
  }
  dropSafeIntegerBounds(form, pointer, out);
  sortSet(form, 'required', pointer, out);
  sortSet(form, 'enum', pointer, out);
  sortSet(form, 'type', pointer, out);
  return mergeNullable(form, pointer, out);
}

function normalizeKeyword(keyword: string, value: unknown, here: string, out: AcceptanceForm): unknown {
  if (SCHEMA_MAPS.has(keyword) && isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, normalizeSchema(inner, `${here}/${escape(name)}`, out)]));
  }
  if ((SCHEMA_LISTS.has(keyword) || keyword === 'items') && Array.isArray(value)) {
    return value.map((inner, i) => normalizeSchema(inner, `${here}/${i}`, out));
  }
  if (SUBSCHEMAS.has(keyword)) return normalizeSchema(value, here, out);
  if (keyword === 'dependencies' && isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, inner]) => [
        name,
        Array.isArray(inner) ? inner : normalizeSchema(inner, `${here}/${escape(name)}`, out),
      ]),
    );
  }
  return value;
}

function dropSafeIntegerBounds(form: JsonObject, pointer: string, out: AcceptanceForm): void {
  const types = Array.isArray(form.type) ? form.type : [form.type];
  // only where integer is the one numeric type: on `number` the bounds also refuse 1e300
  if (!types.includes('integer') || types.includes('number')) return;
  if (form.minimum === -SAFE_INTEGER) {
    delete form.minimum;
    note(out, 'safe_integer_bounds', `${pointer}/minimum`);
  }
  if (form.maximum === SAFE_INTEGER) {
    delete form.maximum;
    note(out, 'safe_integer_bounds', `${pointer}/maximum`);
  }
}

/** required, enum and type are sets: their order accepts nothing different. A one-element type list is its type. */
function sortSet(form: JsonObject, keyword: 'required' | 'enum' | 'type', pointer: string, out: AcceptanceForm): void {
  const value = form[keyword];
  if (!Array.isArray(value)) return;
  const byKey = new Map(value.map((item) => [canonicalJson(item), item]));
  const sorted = [...byKey.keys()].sort().map((key) => byKey.get(key));
  const normalized = keyword === 'type' && sorted.length === 1 ? sorted[0] : sorted;
  if (canonicalJson(normalized) !== canonicalJson(value)) {
    // [X, "null"] against ["null", X] is one of the spellings of a nullable, as anyOf is
    const isNullable = keyword === 'type' && sorted.includes('null');
    note(out, isNullable ? 'nullable_form' : 'array_order', `${pointer}/${keyword}`);
  }
  form[keyword] = normalized;
}

/**
 * `anyOf: [{type: X, ...}, {type: "null"}]` (pydantic's Optional, zod's nullable with constraints) accepts what
 * `{type: [X, "null"], ...}` accepts when every other keyword of the X branch is one a null passes anyway (bounds,
 * lengths, properties: not enum, const or not). Then it is written as the latter, which zod also uses.
 */
function mergeNullable(form: JsonObject, pointer: string, out: AcceptanceForm): unknown {
  const branches = form.anyOf;
  if (Object.keys(form).length !== 1 || !Array.isArray(branches) || branches.length !== 2) return form;
  const nullAt = branches.findIndex((branch) => isObject(branch) && Object.keys(branch).length === 1 && branch.type === 'null');
  const other = branches[1 - nullAt];
  if (nullAt === -1 || !isObject(other) || typeof other.type !== 'string' || other.type === 'null') return form;
  if (!Object.keys(other).every((keyword) => keyword === 'type' || NULL_PASSES.has(keyword))) return form;
  note(out, 'nullable_form', `${pointer}/anyOf`);
  // the branch's description describes the merged schema: one place for it, however the SDK nested it
  const branchAt = `${pointer}/anyOf/${1 - nullAt}`;
  const moved = out.descriptions.get(branchAt);
  if (moved) {
    out.descriptions.delete(branchAt);
    addDescriptions(out, pointer, moved);
  }
  return { ...other, type: [other.type, 'null'].sort() };
}

/** Absent means draft-07 (parameters-schema.ts); a trailing '#' and http or https name the same draft. */
function draftOf(schema: JsonObject): string {
  const metaSchema = typeof schema.$schema === 'string' ? schema.$schema : 'https://json-schema.org/draft-07/schema';
  return metaSchema.replace(/#$/, '').replace(/^http:/, 'https:');
}

function addDescriptions(out: AcceptanceForm, pointer: string, texts: string[]): void {
  out.descriptions.set(pointer, [...(out.descriptions.get(pointer) ?? []), ...texts].sort());
}

function note(out: AcceptanceForm, kind: SchemaDifference, where: string): void {
  const notes = out.notes.get(kind) ?? new Set<string>();
  notes.add(where);
  out.notes.set(kind, notes);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
