/** `db.execute` returns an array on postgres.js and `{ rows }` on PGlite; this reads both. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
