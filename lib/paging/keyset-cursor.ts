import { z } from "zod";

/**
 * Where a page ends in a list ordered by time, newest first: the time and id of its last row.
 * Rows sharing a time are ordered by id, so the next page starts right after that row — none
 * repeated, none skipped — however many rows share its millisecond. Opaque to callers
 * (base64url of a JSON array); written and read the same way in the browser and on the server.
 */
export interface KeysetCursor {
  /** ISO 8601 in UTC, to the microsecond where the database keeps one (see `exactTime`). */
  at: string;
  id: string;
}

/**
 * A time as a cursor holds it: kept exactly as written, since a JavaScript Date keeps only
 * milliseconds and a cursor rounded to them would skip rows a microsecond apart.
 */
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

export function encodeKeysetCursor(cursor: KeysetCursor): string {
  const bytes = new TextEncoder().encode(JSON.stringify([cursor.at, cursor.id]));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

function decodeKeysetCursor(value: string): KeysetCursor | null {
  try {
    const binary = atob(value.replaceAll("-", "+").replaceAll("_", "/"));
    const [at, id, ...rest] = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)))) as unknown[];
    if (
      rest.length === 0 &&
      typeof at === "string" &&
      CURSOR_TIME.test(at) &&
      !Number.isNaN(Date.parse(at)) &&
      typeof id === "string" &&
      id
    ) {
      return { at, id };
    }
  } catch {
    // Not a cursor: reported by the caller.
  }
  return null;
}

/** A `cursor` query parameter: the `nextCursor` of an earlier page; anything else is refused. */
export const keysetCursorSchema = z.string().transform((value, context): KeysetCursor => {
  const cursor = decodeKeysetCursor(value);
  if (cursor) return cursor;
  context.addIssue({ code: "custom", message: "cursor must be the nextCursor of an earlier page" });
  return z.NEVER;
});
