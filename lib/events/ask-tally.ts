import { type SQL, sql } from "drizzle-orm";
import { roomAsks } from "@/db/schema";
import type { StoredEvent } from "@/lib/protocol";
import { type AskKind, asksIn } from "@/lib/protocol/asks";

/**
 * The change that adds what `events` ask to the room's running count of who asked whom
 * (`room_asks`), or null when none of them asks anyone, as most events do not. It is made by
 * the statement that stores the events, so the count and the log never disagree.
 */
export function askTallyChange(roomId: string, events: StoredEvent[]): SQL | null {
  const counts = new Map<string, { asker: string; targetKind: "id" | "persona"; target: string; kind: AskKind; count: number }>();
  for (const ask of events.flatMap(asksIn)) {
    const [targetKind, target] = "id" in ask.to ? (["id", ask.to.id] as const) : (["persona", ask.to.persona] as const);
    const key = JSON.stringify([ask.from, targetKind, target, ask.kind]);
    const row = counts.get(key) ?? { asker: ask.from, targetKind, target, kind: ask.kind, count: 0 };
    row.count += 1;
    counts.set(key, row);
  }
  if (counts.size === 0) return null;
  const rows = [...counts.values()].map(
    (row) => sql`(${roomId}, ${row.asker}, ${row.targetKind}, ${row.target}, ${row.kind}, ${row.count}::int)`,
  );
  return sql`insert into ${roomAsks} (room_id, asker, target_kind, target, kind, count) values ${sql.join(rows, sql`, `)}
    on conflict (room_id, asker, target_kind, target, kind) do update set count = ${roomAsks}.count + excluded.count`;
}
