import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { z } from "zod";
import { type KeysetCursor, encodeKeysetCursor } from "./keyset-cursor";

/** A page of a list and where the next one starts (null on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** `limit` rows of `rows` (read with one extra to know whether more follow) and the cursor after the last. */
export function keysetPage<R, T>(rows: R[], limit: number, toItem: (row: R) => T, cursorOf: (row: R) => KeysetCursor): Page<T> {
  const shown = rows.slice(0, limit);
  return { items: shown.map(toItem), nextCursor: rows.length > limit ? encodeKeysetCursor(cursorOf(shown.at(-1)!)) : null };
}

/** A `limit` query parameter: 1 to `max` rows a page, `fallback` when not given. */
export const limitSchema = (fallback: number, max = 100) => z.coerce.number().int().min(1).max(max).default(fallback);

/**
 * A timestamp column as ISO 8601 text to the microsecond, for a cursor: a JavaScript Date keeps
 * only milliseconds, and a cursor rounded to them would skip rows a microsecond apart.
 */
export function exactTime(column: SQLWrapper): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
