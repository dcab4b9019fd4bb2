import { LinearPatterns } from './linear-regex';
import { type Multiset, addAll, addSchema, mostRepeated, total } from './schema-multiset';
import {
  LIST_SAME_PLACE,
  MAP_SAME_PLACE,
  REFERENCES,
  type SchemaNode,
  SINGLE_SAME_PLACE,
  atPointer,
  decodeFragment,
  descends,
  isObject,
  isSchema,
  itemWildcards,
  ownValue,
  propertyWildcards,
  subschemas,
  tupleOf,
} from './schema-structure';
import { escapePointerSegment } from '@toolcoach/core';

/**
 * How much validating against a user schema can cost, measured on the schema alone.
 *
 * Ajv (with allErrors) evaluates every schema that applies to a place in the arguments: each branch of an anyOf,
 * oneOf or allOf, each `$ref` target, if/then/else, dependentSchemas. Through `$ref` these multiply: 20 levels of
 * `anyOf: [{$ref: next}, {$ref: next}]` make 2^21 schemas apply to one value, and validating `{"x": 1}` produced
 * 2,097,151 errors in 10.8 s and 1.77 GB. So this counts, for each place in the arguments, how many schemas apply
 * there after expanding references, following properties and items down to the deepest arguments we accept, and
 * reports a schema where the count passes MAX_SCHEMA_BRANCHES. A recursive `$ref` is fine when each round descends
 * into the arguments (a tree of nodes); one that refers to itself in place never ends, and one whose every round
 * doubles the schemas at the next level explodes: both are reported.
 *
 * Places are told apart by property name and array index, so `left` and `right` of a binary tree do not add up.
 * The count also weighs each schema by the work it does per character or value (its patterns' program size, a
 * format) and says whether costs outside this model exist (uniqueItems is quadratic in the array length): the caller
 * runs validations that may be expensive under a time budget and skips it for those that cannot be.
 */

export const MAX_SCHEMA_BRANCHES = 1000;
/** Regex instructions of all patterns of one schema together. */
export const MAX_SCHEMA_PROGRAM_SIZE = 20_000;
export const TOO_MANY_PATTERN_INSTRUCTIONS = `brings the schema's patterns to more than ${MAX_SCHEMA_PROGRAM_SIZE} regex instructions together: too expensive to run`;
/** Arguments deeper than this are refused at ingest (MAX_JSON_DEPTH): no need to count further down. */
export const MAX_COUNTED_DEPTH = 64;
// Bounds the measurement itself; real schemas take a few thousand steps.
const MAX_MEASURE_STEPS = 100_000;
// A format is a fixed regex or parser run over the string: counted like a mid-sized pattern.
const FORMAT_WEIGHT = 50;

export interface SchemaCostProblem {
  /**
   * explodes: validation would never end or multiply without bound; pattern: a pattern the linear engine refuses or
   * that is too big; unmeasured: the schema is too intricate to measure.
   */
  kind: 'explodes' | 'pattern' | 'unmeasured';
  /** JSON Pointer into the schema ("" for the schema itself). */
  pointer: string;
  message: string;
}

export interface SchemaCost {
  problems: SchemaCostProblem[];
  /** The most schemas that apply at one place of the arguments. */
  maxBranches: number;
  /** The most weight (schemas, pattern programs, formats) that applies at one place of the arguments. */
  maxWeight: number;
  /** Every `pattern` and `patternProperties` key of the schema. */
  patterns: string[];
  hasUniqueItems: boolean;
}

interface NodeInfo {
  pointer: string;
  weight: number;
  /** The schema resource (nearest `$id`) that `#/...` references inside this node resolve against. */
  resource: Record<string, unknown>;
}

class TooComplex extends Error {}
/** One schema that expands too much is enough to refuse: measuring its ancestors would only repeat it. */
class Exploded extends Error {}

/** `patterns`: the schema's compiled patterns, shared with its compile (each pattern is compiled once). */
export function measureSchemaCost(schema: unknown, patterns: LinearPatterns = new LinearPatterns()): SchemaCost {
  return new CostMeasure(schema, patterns).measure();
}

class CostMeasure {
  private readonly info = new Map<SchemaNode, NodeInfo>();
  private readonly closures = new Map<SchemaNode, Multiset>();
  private readonly inClosure = new Set<SchemaNode>();
  private readonly followed = new Set<string>();
  private readonly ids = new Map<SchemaNode, number>();
  private readonly anchors = new Map<string, SchemaNode[]>();
  private readonly problems: SchemaCostProblem[] = [];
  private readonly reported = new Set<string>();
  private programSize = 0;
  private isProgramBudgetSpent = false;
  private steps = 0;
  private maxBranches = 0;
  private maxWeight = 0;
  private readonly patterns = new Set<string>();
  private hasUniqueItems = false;

  constructor(
    private readonly root: unknown,
    private readonly linearPatterns: LinearPatterns,
  ) {}

  measure(): SchemaCost {
    if (!isSchema(this.root)) return this.result();
    const root = this.root;
    const resource = isObject(root) ? root : {};
    try {
      this.index(root, '', resource);
      this.explore(root);
    } catch (error) {
      if (error instanceof TooComplex) this.report('unmeasured', '', 'is too complex to measure how much validating with it costs');
      else if (!(error instanceof Exploded)) throw error;
    }
    return this.result();
  }

  private result(): SchemaCost {
    const { problems, maxBranches, maxWeight, hasUniqueItems } = this;
    return { problems, maxBranches, maxWeight, patterns: [...this.patterns], hasUniqueItems };
  }

  /** Records each schema's place, weight and resource; checks its patterns on the way. */
  private index(node: SchemaNode, pointer: string, resource: Record<string, unknown>): void {
    if (this.info.has(node)) return;
    this.step();
    if (!isObject(node)) {
      this.info.set(node, { pointer, weight: 1, resource });
      return;
    }
    const ownResource = typeof node.$id === 'string' && !node.$id.startsWith('#') && pointer !== '' ? node : resource;
    this.info.set(node, { pointer, weight: this.weigh(node, pointer), resource: ownResource });
    this.indexAnchors(node);
    for (const [child, childPointer] of subschemas(node, pointer)) this.index(child, childPointer, ownResource);
  }

  private indexAnchors(node: Record<string, unknown>): void {
    const names = [
      node.$anchor,
      node.$dynamicAnchor,
      typeof node.$id === 'string' && node.$id.startsWith('#') ? node.$id.slice(1) : undefined,
    ];
    for (const name of names) {
      if (typeof name !== 'string') continue;
      const list = this.anchors.get(name) ?? [];
      list.push(node);
      this.anchors.set(name, list);
    }
  }

  private weigh(node: Record<string, unknown>, pointer: string): number {
    let weight = 1 + jsonSize(node.enum) + jsonSize(node.const) + jsonSize(node.required);
    if (typeof node.format === 'string') weight += FORMAT_WEIGHT;
    if (node.uniqueItems === true) this.hasUniqueItems = true;
    if (typeof node.pattern === 'string') weight += this.checkPattern(node.pattern, `${pointer}/pattern`);
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) {
        weight += this.checkPattern(key, `${pointer}/patternProperties/${escapePointerSegment(key)}`);
      }
    }
    return weight;
  }

  /**
   * The pattern's program size; problems are reported. Stops compiling once the schema's patterns are too big; a
   * refused pattern counts toward that total with the compile work it was charged, so a schema of many patterns
   * refused for size cannot make registration compile them all.
   */
  private checkPattern(pattern: string, pointer: string): number {
    this.patterns.add(pattern);
    if (this.isProgramBudgetSpent) return 0;
    const check = this.linearPatterns.check(pattern);
    this.programSize += check.ok ? check.programSize : check.units;
    if (!check.ok) this.report('pattern', pointer, check.problem);
    if (this.programSize > MAX_SCHEMA_PROGRAM_SIZE) {
      this.isProgramBudgetSpent = true;
      this.report('pattern', pointer, TOO_MANY_PATTERN_INSTRUCTIONS);
    }
    return check.ok ? check.programSize : 0;
  }

  /**
   * Counts the schemas that apply at each place of the arguments, level by level, moving down one level per
   * property name or array index. What lies below a place depends only on its schemas that descend (properties,
   * items...): a set of those already followed (at this level or above, levels go in order) is not followed again,
   * so a shared or recursive definition is followed once.
   */
  private explore(root: SchemaNode): void {
    let level: Multiset[] = [new Map([[root, 1]])];
    for (let depth = 0; level.length > 0; depth++) {
      const below: Multiset[] = [];
      for (const entries of level) {
        const here = this.countPlace(entries);
        if (depth < MAX_COUNTED_DEPTH && !this.isFollowed(here)) below.push(...this.childrenOf(here));
      }
      level = below;
    }
  }

  /** The schemas that apply at one place, counted; throws when there are too many. */
  private countPlace(entries: Multiset): Multiset {
    const here: Multiset = new Map();
    for (const [node, count] of entries) addAll(here, this.closure(node), count, () => this.step());
    let branches = 0;
    let weight = 0;
    for (const [node, count] of here) {
      branches += count;
      weight += count * (this.info.get(node)?.weight ?? 1);
    }
    this.maxBranches = Math.max(this.maxBranches, branches);
    this.maxWeight = Math.max(this.maxWeight, weight);
    if (branches > MAX_SCHEMA_BRANCHES) {
      // the schema repeated most on the way down is the one that multiplies
      this.report('explodes', this.pointerOf(mostRepeated(here)), tooManyBranches());
      throw new Exploded();
    }
    return here;
  }

  /** Whether the descending schemas of `here` were followed already; marks them followed if not. */
  private isFollowed(here: Multiset): boolean {
    const parts: string[] = [];
    for (const [node, count] of here) {
      this.step();
      if (isObject(node) && descends(node)) parts.push(`${this.idOf(node)}x${count}`);
    }
    const signature = parts.sort().join(',');
    if (this.followed.has(signature)) return true;
    this.followed.add(signature);
    return false;
  }

  /**
   * The schemas of each place one level below: a value there is a property (of a name some schema here declares,
   * or of any other name), an item (at an index some tuple declares, or any other), or a property name.
   */
  private childrenOf(here: Multiset): Multiset[] {
    const objects = [...here].filter((entry): entry is [Record<string, unknown>, number] => isObject(entry[0]));
    const names = new Set<string>();
    const indexes = new Set<number>();
    for (const [node] of objects) {
      if (isObject(node.properties)) for (const name of Object.keys(node.properties)) names.add(name);
      tupleOf(node).forEach((_, index) => indexes.add(index));
    }
    const places: Multiset[] = [];
    const place = (schemasOf: (node: Record<string, unknown>) => unknown[]) => {
      const children: Multiset = new Map();
      for (const [node, count] of objects) for (const schema of schemasOf(node)) addSchema(children, schema, count, () => this.step());
      if (children.size > 0) places.push(children);
    };
    for (const name of names) place((node) => [ownValue(node.properties, name), ...propertyWildcards(node, name, this.matchesName)]);
    place((node) => propertyWildcards(node, null, this.matchesName));
    for (const index of indexes) place((node) => [tupleOf(node)[index], ...itemWildcards(node, index)]);
    place((node) => itemWildcards(node, null));
    place((node) => [node.propertyNames]);
    return places;
  }

  /** Every schema that applies at the same place as `node` (itself included), with how often it applies. */
  private closure(node: SchemaNode): Multiset {
    const cached = this.closures.get(node);
    if (cached) return cached;
    const closure: Multiset = new Map([[node, 1]]);
    if (!isObject(node)) return closure;
    this.inClosure.add(node);
    for (const [target, referencePointer] of this.samePlaceTargets(node)) {
      if (this.inClosure.has(target)) {
        this.report(
          'explodes',
          referencePointer,
          'refers back to itself without descending into the arguments: validation would never end',
        );
        continue;
      }
      addAll(closure, this.closure(target), 1, () => this.step());
    }
    this.inClosure.delete(node);
    if (total(closure) > MAX_SCHEMA_BRANCHES) {
      this.report('explodes', this.pointerOf(node), tooManyBranches());
      throw new Exploded();
    }
    this.closures.set(node, closure);
    return closure;
  }

  /** Only a pattern compiled while indexing is run: one skipped for the schema's total is counted as matching, the cautious side. */
  private readonly matchesName = (pattern: string, name: string): boolean => {
    if (!this.linearPatterns.has(pattern)) return true;
    try {
      return this.linearPatterns.engine(pattern, 'u').test(name);
    } catch {
      // a pattern the engine refuses is reported elsewhere; counting it is the cautious side
      return true;
    }
  };

  private samePlaceTargets(node: Record<string, unknown>): Array<[SchemaNode, string]> {
    const pointer = this.pointerOf(node);
    const targets: Array<[SchemaNode, string]> = [];
    for (const keyword of SINGLE_SAME_PLACE)
      if (isSchema(node[keyword])) targets.push([node[keyword] as SchemaNode, `${pointer}/${keyword}`]);
    for (const keyword of LIST_SAME_PLACE) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach((child, index) => isSchema(child) && targets.push([child, `${pointer}/${keyword}/${index}`]));
    }
    for (const keyword of MAP_SAME_PLACE) {
      const map = node[keyword];
      if (!isObject(map)) continue;
      for (const [name, child] of Object.entries(map))
        if (isSchema(child)) targets.push([child, `${pointer}/${keyword}/${escapePointerSegment(name)}`]);
    }
    for (const keyword of REFERENCES) {
      const reference = node[keyword];
      if (typeof reference !== 'string') continue;
      for (const target of this.resolve(keyword, reference, node)) targets.push([target, `${pointer}/${keyword}`]);
    }
    return targets;
  }

  /** Local references only (remote ones are refused at registration and never fetched). */
  private resolve(keyword: string, reference: string, from: Record<string, unknown>): SchemaNode[] {
    const resource = this.info.get(from)?.resource ?? (this.root as Record<string, unknown>);
    const targets: SchemaNode[] = [];
    const found = (node: unknown, pointer: string) => {
      if (!isSchema(node)) return;
      if (!this.info.has(node)) this.index(node, pointer, resource);
      targets.push(node);
    };
    if (reference === '#' || reference.startsWith('#/')) {
      const base = this.info.get(resource)?.pointer ?? '';
      const fragment = decodeFragment(reference.slice(1));
      if (fragment !== null) found(atPointer(resource, fragment), `${base}${fragment}`);
    } else if (reference.startsWith('#')) {
      for (const node of this.anchors.get(reference.slice(1)) ?? []) found(node, this.pointerOf(node));
    }
    if (keyword === '$recursiveRef' && resource !== this.root) found(this.root, '');
    if (keyword === '$dynamicRef' && reference.startsWith('#') && !reference.startsWith('#/')) {
      // every dynamic anchor of that name may be the target at run time: count them all
      for (const node of this.anchors.get(reference.slice(1)) ?? []) if (!targets.includes(node)) found(node, this.pointerOf(node));
    }
    return targets;
  }

  private pointerOf(node: SchemaNode | undefined): string {
    return (node !== undefined && this.info.get(node)?.pointer) || '';
  }

  private idOf(node: SchemaNode): number {
    let id = this.ids.get(node);
    if (id === undefined) this.ids.set(node, (id = this.ids.size));
    return id;
  }

  private report(kind: SchemaCostProblem['kind'], pointer: string, message: string): void {
    const key = `${pointer}\u0000${message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problems.push({ kind, pointer, message });
  }

  private step(): void {
    this.steps += 1;
    if (this.steps > MAX_MEASURE_STEPS) throw new TooComplex();
  }
}

function tooManyBranches(): string {
  return (
    `makes more than ${MAX_SCHEMA_BRANCHES} schemas apply to one place in the arguments once $ref, anyOf, oneOf and ` +
    'allOf are expanded: validating with it could take seconds and gigabytes'
  );
}

function jsonSize(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'object' || value === null) return 1;
  let size = 1;
  for (const inner of Object.values(value)) size += jsonSize(inner);
  return size;
}
