// What an integration remembers between the hooks of one tool call (its start, its end, its model's answer) is kept
// only until the call is reported; the bound keeps a leak of calls that never end finite.
const MAX_TRACKED = 10_000;

/** Sets `key`, forgetting the oldest entry first when the map holds MAX_TRACKED. */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_TRACKED) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** Adds `id`, forgetting the oldest first when the set holds MAX_TRACKED. */
export function rememberId(set: Set<string>, id: string): void {
  if (set.size >= MAX_TRACKED) set.delete(set.values().next().value!);
  set.add(id);
}
