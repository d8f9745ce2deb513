import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { z } from "zod";

/**
 * Keyset cursors for the dashboard's lists: the sort values of a page's last row, so the next
 * page starts right after it however many rows came in meanwhile, and no page costs more than
 * the first. Opaque to callers (base64url of a JSON array).
 */
export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

type Part = "time" | "string" | "number";
type PartValue<P extends Part> = P extends "number" ? number : string;
type Values<T extends readonly Part[]> = { [K in keyof T]: PartValue<T[K]> };

/** A query parameter holding a cursor of `parts` (a time as ISO 8601, a string, a number); anything else is a 400. */
export function cursorSchema<const T extends readonly Part[]>(parts: T) {
  return z.string().transform((value, context): Values<T> => {
    try {
      const decoded = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as unknown;
      if (Array.isArray(decoded) && decoded.length === parts.length) {
        const ok = parts.every((part, index) => {
          const item = decoded[index];
          if (part === "number") return typeof item === "number" && Number.isFinite(item);
          if (part === "time") return typeof item === "string" && !Number.isNaN(Date.parse(item));
          return typeof item === "string" && item.length > 0;
        });
        if (ok) return decoded as Values<T>;
      }
    } catch {
      // Reported below.
    }
    context.addIssue({ code: "custom", message: "cursor must be the nextCursor of an earlier page" });
    return z.NEVER;
  });
}

/** A page of a list and where the next one starts (null on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** `limit` rows of `rows` (read with one extra to know whether more follow) and the cursor after the last. */
export function pageOf<R, T>(rows: R[], limit: number, toItem: (row: R) => T, cursorOf: (row: R) => (string | number)[]): Page<T> {
  const shown = rows.slice(0, limit);
  return { items: shown.map(toItem), nextCursor: rows.length > limit ? encodeCursor(cursorOf(shown.at(-1)!)) : null };
}

export const limitSchema = (fallback: number, max = 100) => z.coerce.number().int().min(1).max(max).default(fallback);

/**
 * A timestamp column as ISO 8601 text to the microsecond, for a cursor: a JavaScript Date keeps
 * only milliseconds, and a cursor rounded to them would skip rows a microsecond apart.
 */
export function exactTime(column: SQLWrapper): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
