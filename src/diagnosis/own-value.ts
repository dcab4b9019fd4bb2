/**
 * `record[key]` when `key` is the record's own property, else undefined. Names that come from events or user schemas
 * ("constructor", "toString", "__proto__") must never read what every object inherits from Object.prototype.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
