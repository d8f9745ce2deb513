/**
 * `table[key]` when `key` is one of the table's own keys. Use it for names that come from a
 * request, a file or the database, so that "constructor" or "__proto__" finds nothing rather
 * than a member of `Object.prototype`.
 */
export function ownValue<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
