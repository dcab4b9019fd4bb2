// What an integration remembers between a framework's callbacks (runs, tool calls, their ids) lives only until the
// call ends; the bound keeps a leak of calls that never end (an abandoned run, a crashed turn) finite.
export const MAX_TRACKED = 10_000;

/** Sets `key`, evicting the oldest entry when the map holds MAX_TRACKED already. */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_TRACKED) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** Adds `id`, evicting the oldest when the set holds MAX_TRACKED already. */
export function rememberId(set: Set<string>, id: string): void {
  if (set.size >= MAX_TRACKED) set.delete(set.values().next().value!);
  set.add(id);
}
