/**
 * Structural sharing between two moments of a room. A replay folds each moment afresh from its
 * nearest kept state, so even what did not change between two moments comes back as new objects;
 * handed to React as they are, every note, link and feed entry would be drawn again at each step
 * through the history. `keepUnchanged` gives back the earlier moment's objects wherever the new
 * one holds the same values, at any depth, so the page redraws only what differs.
 */
export function keepUnchanged<T>(previous: T, next: T): T {
  return share(previous, next) as T;
}

function share(previous: unknown, next: unknown): unknown {
  if (Object.is(previous, next)) return previous;
  if (typeof previous !== "object" || typeof next !== "object" || previous === null || next === null) return next;
  if (Array.isArray(previous) !== Array.isArray(next)) return next;
  if (Array.isArray(next)) {
    const before = previous as unknown[];
    // Lists of things with an id (or a sequence number, as events have) are matched by it: a feed
    // that moved on by one event still holds the same entries, one place further along.
    const earlier = before.every((item) => keyOf(item) !== undefined) ? new Map(before.map((item) => [keyOf(item), item])) : null;
    let same = before.length === next.length;
    const merged = next.map((item, index) => {
      const key = earlier ? keyOf(item) : undefined;
      const match = key === undefined ? (earlier ? undefined : before[index]) : earlier!.get(key);
      const kept = match === undefined ? item : share(match, item);
      if (kept !== before[index]) same = false;
      return kept;
    });
    return same ? before : merged;
  }
  const before = previous as Record<string, unknown>;
  const after = next as Record<string, unknown>;
  const keys = Object.keys(after);
  let same = keys.length === Object.keys(before).length;
  const merged: Record<string, unknown> = {};
  for (const key of keys) {
    const kept = key in before ? share(before[key], after[key]) : after[key];
    if (kept !== before[key] || !(key in before)) same = false;
    merged[key] = kept;
  }
  return same ? before : merged;
}

function keyOf(item: unknown): string | number | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const { id, seq } = item as { id?: unknown; seq?: unknown };
  if (typeof id === "string" || typeof id === "number") return id;
  return typeof seq === "number" ? seq : undefined;
}
