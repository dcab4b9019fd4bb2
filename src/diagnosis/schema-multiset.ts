import { type SchemaNode, isSchema } from './schema-structure';

// The schemas that apply at one place of the arguments, with how often each applies (through anyOf branches and
// references the same schema can apply many times). Counts saturate: they only need to tell "over the cap".

export type Multiset = Map<SchemaNode, number>;

export function mostRepeated(set: Multiset): SchemaNode | undefined {
  let best: SchemaNode | undefined;
  let bestCount = 0;
  for (const [node, count] of set) if (count > bestCount) [best, bestCount] = [node, count];
  return best;
}

function add(set: Multiset, node: SchemaNode, count: number): void {
  set.set(node, saturate((set.get(node) ?? 0) + count));
}

export function addSchema(set: Multiset, node: unknown, count: number, step: () => void): void {
  step();
  if (isSchema(node)) add(set, node, count);
}

export function addAll(into: Multiset, from: Multiset, times: number, step: () => void): void {
  for (const [node, count] of from) {
    step();
    add(into, node, saturate(count * times));
  }
}

export function total(set: Multiset): number {
  let sum = 0;
  for (const count of set.values()) sum = saturate(sum + count);
  return sum;
}

function saturate(count: number): number {
  return Math.min(count, 1e12);
}
