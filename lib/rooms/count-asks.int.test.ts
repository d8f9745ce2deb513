import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { migrationsFolder } from "@/db/client";
import { events, roomAsks } from "@/db/schema";
import { type EventDraft, SYSTEM_ACTOR, writeRoomEvents } from "@/lib/events/write-room-events";
import { readEventsAfter } from "@/lib/events/read-events";
import { type AskEdge, askEdges } from "@/lib/protocol/asks";
import type { StoredEvent } from "@/lib/protocol";
import { agentByPersona } from "@/test/agents";
import { boardEntryDto, broadcastDto } from "@/test/builders";
import { createTestRoom } from "@/test/fixtures";
import { params, useTestRuntime } from "@/test/test-runtime";
import { GET } from "@/app/api/rooms/[roomId]/asks/route";
import { countAsks } from "./count-asks";

/** The statements of the migration that brought in the running count which count a room's history so far. */
async function countHistory() {
  const migration = fs.readFileSync(path.join(migrationsFolder, "0017_count_asks_as_they_happen.sql"), "utf8");
  const statements = migration.split("--> statement-breakpoint").filter((statement) => /INSERT INTO "room_asks"/.test(statement));
  expect(statements).toHaveLength(1);
  for (const statement of statements) await context.database.db.execute(sql.raw(statement));
}

const context = useTestRuntime();

const line = ({ from, to, kind, count }: AskEdge) => `${from}→${to} ${kind} ×${count}`;
const sorted = (edges: AskEdge[]) => edges.map(line).sort();

async function allEvents(roomId: string): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (
    let page = await readEventsAfter(context.database.db, roomId, 0);
    page.length;
    page = await readEventsAfter(context.database.db, roomId, all.at(-1)!.seq)
  ) {
    all.push(...page);
  }
  return all;
}

describe("countAsks", () => {
  it("counts who asked whom over the room's whole history, as the page would from every event", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const db = context.database.db;
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const entry = (index: number, kind: "request" | "contribution", help = false) =>
      boardEntryDto({
        id: `entry-${index}`,
        kind,
        agentId: songwriter.id,
        targetPersona: kind === "request" ? "scene-painter" : null,
        content:
          kind === "request"
            ? { targetPersona: "scene-painter", ask: "Paint it", refNodeIds: [], ...(help ? { help: true } : {}) }
            : { summary: "A verse", nodeIds: [] },
      });
    // Far more than a page's feed keeps, and more than one page of the count's own reading.
    for (let batch = 0; batch < 8; batch++) {
      await writeRoomEvents(db, roomId, async (_tx, emit) => {
        for (let index = 0; index < 100; index++) {
          const n = batch * 100 + index;
          const drafts: EventDraft[] = [
            {
              type: "board.posted",
              actor: SYSTEM_ACTOR,
              payload: { entry: entry(n, n % 3 === 0 ? "contribution" : "request", n % 10 === 1) },
            },
            {
              type: "broadcast.asked",
              actor: SYSTEM_ACTOR,
              payload: {
                broadcast: broadcastDto({
                  id: `q-${n}`,
                  agentId: storyteller.id,
                  mode: n % 2 ? "agents" : "human",
                  targetAgentIds: n % 2 ? [songwriter.id, painter.id] : [],
                }),
              },
            },
          ];
          for (const draft of drafts) emit(draft);
        }
      });
    }
    await writeRoomEvents(db, roomId, async (_tx, emit) => {
      for (const id of ["m1", "m2"]) {
        const command = {
          id,
          agentId: painter.id,
          senderId: "seat-1",
          senderName: "Ada",
          text: "Paint the harbour",
          delivery: "queued_run" as const,
          runId: null,
          createdAt: new Date().toISOString(),
        };
        emit({ type: "command.sent", actor: SYSTEM_ACTOR, payload: { command } });
      }
      emit({
        type: "dialogue.opened",
        actor: SYSTEM_ACTOR,
        payload: {
          dialogue: {
            id: "d1",
            askerAgentId: painter.id,
            addresseeAgentId: storyteller.id,
            topic: "?",
            reason: "question",
            maxRounds: 2,
            reviewId: null,
            openedAt: new Date().toISOString(),
          },
        },
      });
    });

    const counts = await countAsks(db, roomId);
    const events = await allEvents(roomId);
    expect(counts.through).toBe(events.at(-1)!.seq);
    expect(sorted(counts.edges)).toEqual(sorted(askEdges(events, [songwriter, painter, storyteller])));
    const total = (kind: string) => counts.edges.filter((edge) => edge.kind === kind).reduce((sum, edge) => sum + edge.count, 0);
    // 800 entries: every third a contribution, the rest requests, those numbered 1, 11, 21… asking for help.
    const numbers = [...Array(800).keys()].filter((n) => n % 3 !== 0);
    expect(total("request")).toBe(numbers.filter((n) => n % 10 !== 1).length);
    expect(total("help")).toBe(numbers.filter((n) => n % 10 === 1).length);
    expect(total("question")).toBe(400 * 2 + 400);
    expect(total("dialogue")).toBe(1);
    expect(total("command")).toBe(2);

    // Events written after the count are not in it: the page adds them from its feed.
    await writeRoomEvents(db, roomId, async (_tx, emit) => {
      emit({ type: "board.posted", actor: SYSTEM_ACTOR, payload: { entry: entry(9999, "request") } });
    });
    const again = await countAsks(db, roomId);
    expect(again.through).toBe(counts.through + 1);
    expect(total("request") + 1).toBe(again.edges.filter((edge) => edge.kind === "request").reduce((sum, edge) => sum + edge.count, 0));

    // The migration that brought in the running count counts a history written before it the same way.
    await db.delete(roomAsks);
    expect((await countAsks(db, roomId)).edges).toEqual([]);
    await countHistory();
    expect(sorted((await countAsks(db, roomId)).edges)).toEqual(sorted(again.edges));
  }, 60_000);

  it("reads the running count the room's writes keep, not the room's history", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const db = context.database.db;
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    await writeRoomEvents(db, roomId, async (_tx, emit) => {
      for (let index = 0; index < 3; index++) {
        emit({
          type: "board.posted",
          actor: SYSTEM_ACTOR,
          payload: {
            entry: boardEntryDto({
              id: `ask-${index}`,
              kind: "request",
              agentId: songwriter.id,
              targetPersona: "scene-painter",
              content: { targetPersona: "scene-painter", ask: "Paint it", refNodeIds: [] },
            }),
          },
        });
      }
      // A request to a persona nobody in the room has, and one to the asker's own persona: counted, drawn as nothing.
      emit({
        type: "board.posted",
        actor: SYSTEM_ACTOR,
        payload: {
          entry: boardEntryDto({
            id: "ask-x",
            kind: "request",
            agentId: songwriter.id,
            targetPersona: "harbour-master",
            content: { targetPersona: "harbour-master", ask: "?", refNodeIds: [] },
          }),
        },
      });
      emit({
        type: "board.posted",
        actor: SYSTEM_ACTOR,
        payload: {
          entry: boardEntryDto({
            id: "ask-y",
            kind: "request",
            agentId: songwriter.id,
            targetPersona: "songwriter",
            content: { targetPersona: "songwriter", ask: "?", refNodeIds: [] },
          }),
        },
      });
    });
    const stored = await db.select().from(roomAsks).where(eq(roomAsks.roomId, roomId));
    expect(stored.map(({ asker, targetKind, target, kind, count }) => `${asker}→${targetKind}:${target} ${kind} ×${count}`).sort()).toEqual(
      [
        `${songwriter.id}→persona:harbour-master request ×1`,
        `${songwriter.id}→persona:scene-painter request ×3`,
        `${songwriter.id}→persona:songwriter request ×1`,
      ].sort(),
    );
    // With the log gone, the count is still there: it is not read from the log.
    await db.delete(events).where(eq(events.roomId, roomId));
    const counts = await countAsks(db, roomId);
    expect(counts.edges).toEqual([{ from: songwriter.id, to: painter.id, kind: "request", count: 3 }]);
  });

  it("counts nothing from a write that fails", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const db = context.database.db;
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const failing = writeRoomEvents(db, roomId, async (_tx, emit) => {
      emit({
        type: "broadcast.asked",
        actor: SYSTEM_ACTOR,
        payload: { broadcast: broadcastDto({ id: "q-lost", agentId: songwriter.id, mode: "human", targetAgentIds: [] }) },
      });
      // Refused by the event's schema when it is stored: the whole write fails.
      // @ts-expect-error: an entry with nothing but an id, which the event's schema refuses.
      emit({ type: "board.posted", actor: SYSTEM_ACTOR, payload: { entry: { id: "broken" } } });
    });
    await expect(failing).rejects.toThrow();
    expect(await db.select().from(roomAsks).where(eq(roomAsks.roomId, roomId))).toEqual([]);
  });
});

describe("GET /api/rooms/[roomId]/asks", () => {
  it("answers with the counts for anyone watching, and 404 for a room that does not exist", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const response = await GET(new Request(`http://localhost/api/rooms/${roomId}/asks`), params({ roomId }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ through: expect.any(Number), edges: [] });

    const missing = await GET(new Request("http://localhost/api/rooms/nope/asks"), params({ roomId: "nope" }));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toMatch(/Room/);
  });
});
