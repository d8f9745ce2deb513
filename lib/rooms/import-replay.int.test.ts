import { asc, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, rooms } from "@/db/schema";
import { GET as exportRoute } from "@/app/api/rooms/[roomId]/export/route";
import { POST as forkRoute } from "@/app/api/rooms/[roomId]/forks/route";
import { GET as logRoute } from "@/app/api/rooms/[roomId]/log/route";
import { POST as seatRoute } from "@/app/api/rooms/[roomId]/seat/route";
import { GET as timelineRoute } from "@/app/api/rooms/[roomId]/timeline/route";
import { POST as replaysRoute } from "@/app/api/rooms/replays/route";
import { initialRoomState } from "@/components/room/room-state";
import type { RoomState } from "@/components/room/room-state";
import { call, fromOwnAddress } from "@/test/http";
import { type RecordedRoom, recordRoom, replayOf } from "@/test/recorded-room";
import { comparable } from "@/test/room-history";
import { params, useTestRuntime } from "@/test/test-runtime";
import { getRoomSnapshot } from "./get-room-snapshot";

const TOKEN = "admin-token-for-replay-tests-1";
const savedToken = process.env.ADMIN_TOKEN;
const context = useTestRuntime();
let recorded: RecordedRoom;

beforeAll(async () => {
  process.env.ADMIN_TOKEN = TOKEN;
  recorded = await recordRoom(context.database);
}, 60_000);
afterAll(() => {
  if (savedToken === undefined) delete process.env.ADMIN_TOKEN;
  else process.env.ADMIN_TOKEN = savedToken;
});

async function exported(roomId: string): Promise<{ text: string; headers: Headers }> {
  const response = await exportRoute(new Request(`http://localhost/api/rooms/${roomId}/export`), params({ roomId }));
  expect(response.status).toBe(200);
  return { text: await response.text(), headers: response.headers };
}

function importFile(text: string, headers: Record<string, string> = {}) {
  return replaysRoute(
    new Request("http://localhost/api/rooms/replays", {
      method: "POST",
      headers: { "content-type": "application/x-ndjson", ...fromOwnAddress(headers) },
      body: text,
    }),
  );
}

/** A state with the room's own ids taken out (a replay is another room, its events other rows), to compare two rooms' moments. */
function sameMoment(state: RoomState) {
  const { room, feed, ...rest } = comparable(state);
  return {
    ...rest,
    room: { title: room.title, template: room.template },
    // Causes are the copy's own ids too; that they point at the same events is checked on the rows.
    feed: feed.map(({ id: _id, room_id: _room, causation_id: _cause, ...event }) => event),
  };
}

async function tally() {
  const [roomCount] = await context.database.db.select({ n: count() }).from(rooms);
  const [eventCount] = await context.database.db.select({ n: count() }).from(events);
  return { rooms: roomCount!.n, events: eventCount!.n };
}

describe("sharing a room as a file", () => {
  it("exports the whole log, and the file imported elsewhere replays every moment the same way, read-only", async () => {
    const { roomId } = recorded;
    const origin = initialRoomState(await getRoomSnapshot(context.database.db, roomId), null);
    const file = await exported(roomId);
    expect(file.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    expect(file.headers.get("content-disposition")).toMatch(/attachment; filename=".+\.parley\.jsonl"/);
    expect(file.text.trim().split("\n")).toHaveLength(origin.lastSeq + 2);

    const imported = await importFile(file.text);
    expect(imported.status).toBe(201);
    const { room } = await imported.json();
    expect(room).toMatchObject({ events: origin.lastSeq, original: { id: roomId, title: origin.room.title } });

    // The copy keeps what caused what: each event names its cause by the copy's own id, at the same place in the log.
    const causes = async (id: string) => {
      const rows = await context.database.db.select().from(events).where(eq(events.roomId, id)).orderBy(asc(events.seq));
      const seqOf = new Map(rows.map((row) => [row.id, row.seq]));
      return rows.map((row) => (row.causationId ? (seqOf.get(row.causationId) ?? "elsewhere") : null));
    };
    const originCauses = await causes(roomId);
    expect(originCauses.filter((cause) => typeof cause === "number").length).toBeGreaterThan(10);
    expect(await causes(room.id)).toEqual(originCauses);

    const replayRoom = initialRoomState(await getRoomSnapshot(context.database.db, room.id), null);
    expect(replayRoom.agents).toEqual([]);
    const originReplay = replayOf(context.database, roomId, origin, origin.lastSeq);
    const copyReplay = replayOf(context.database, room.id, replayRoom, replayRoom.lastSeq);
    for (let seq = 1; seq <= origin.lastSeq; seq += 3) {
      expect(sameMoment(await copyReplay.stateAt(seq)), `at event ${seq}`).toEqual(sameMoment(await originReplay.stateAt(seq)));
    }
    expect(sameMoment(await copyReplay.stateAt(origin.lastSeq))).toEqual(sameMoment(await originReplay.stateAt(origin.lastSeq)));

    // The timeline says what it is; nobody takes a seat in it, and only an admin may continue it.
    const timeline = await call(timelineRoute, { url: "/x", method: "GET", params: { roomId: room.id } });
    expect(timeline.body.replay).toMatchObject({ roomId, title: origin.room.title, events: origin.lastSeq });
    expect(timeline.body.marks).toEqual((await call(timelineRoute, { url: "/x", method: "GET", params: { roomId } })).body.marks);
    const seat = await call(seatRoute, {
      url: "/x",
      method: "POST",
      params: { roomId: room.id },
      body: { displayName: "Eve" },
      headers: fromOwnAddress(),
    });
    expect(seat.status).toBe(409);
    expect(seat.body.error.message).toMatch(/read-only/);
    const byAdmin = await call(forkRoute, {
      url: "/x",
      method: "POST",
      params: { roomId: room.id },
      body: { at: 10 },
      headers: fromOwnAddress({ authorization: `Bearer ${TOKEN}` }),
    });
    expect(byAdmin.status).toBe(201);

    // Exported again, the replay's file replays the same once more.
    const again = await exported(room.id);
    expect((await importFile(again.text)).status).toBe(201);
  });

  it("pages the log the timeline reads, and refuses bad paging", async () => {
    const { roomId } = recorded;
    const page = await call(logRoute, { url: `/api/rooms/${roomId}/log?after=3&limit=4`, method: "GET", params: { roomId } });
    expect(page.status).toBe(200);
    expect(page.body.events.map((event: { seq: number }) => event.seq)).toEqual([4, 5, 6, 7]);
    expect(page.body.lastSeq).toBeGreaterThan(7);
    for (const query of ["after=-1", "limit=0", "limit=5000", "after=x", "after=1&after=2", "other=1"]) {
      expect((await call(logRoute, { url: `/api/rooms/${roomId}/log?${query}`, method: "GET", params: { roomId } })).status, query).toBe(
        400,
      );
    }
    expect((await call(logRoute, { url: "/api/rooms/none/log", method: "GET", params: { roomId: "none" } })).status).toBe(404);
    expect((await call(exportRoute, { url: "/x", method: "GET", params: { roomId: "none" } })).status).toBe(404);
  });

  it("refuses a malformed, tampered, cut or oversized file with the line at fault, and writes nothing", async () => {
    const { text } = await exported(recorded.roomId);
    const lines = text.split("\n");
    const before = await tally();
    const refused = async (body: string) => {
      const response = await importFile(body);
      const answer = await response.json();
      return { status: response.status, message: answer.error?.message as string, line: answer.error?.details?.line as number };
    };

    const tampered = [...lines];
    const entry = JSON.parse(tampered[6]!);
    entry.event.agent_name = "Mallory";
    tampered[6] = JSON.stringify(entry);
    expect(await refused(tampered.join("\n"))).toMatchObject({
      status: 400,
      line: 7,
      message: expect.stringMatching(/^Line 7: .*digest does not match/),
    });

    const gap = [...lines.slice(0, 9), ...lines.slice(10)].join("\n");
    expect(await refused(gap)).toMatchObject({ status: 400, line: 10, message: expect.stringContaining("events are missing") });
    expect(await refused(lines.slice(0, 12).join("\n"))).toMatchObject({ status: 400, message: expect.stringContaining("cut short") });
    expect(await refused("not json at all\n")).toMatchObject({ status: 400, line: 1 });
    expect(await refused("")).toMatchObject({ status: 400, line: 1 });
    const badEvent = [...lines];
    const bad = JSON.parse(badEvent[3]!);
    bad.event.payload = { nonsense: true };
    badEvent[3] = JSON.stringify(bad);
    expect(await refused(badEvent.join("\n"))).toMatchObject({
      status: 400,
      line: 4,
      message: expect.stringContaining("not a valid Parley event"),
    });
    expect(await tally()).toEqual(before);

    process.env.PARLEY_REPLAY_MAX_MB = "1";
    try {
      const tooBig = await importFile(`${text}${" ".repeat(1024 * 1024)}`);
      expect(tooBig.status).toBe(413);
    } finally {
      delete process.env.PARLEY_REPLAY_MAX_MB;
    }
    process.env.PARLEY_REPLAY_MAX_EVENTS = "5";
    try {
      expect(await refused(text)).toMatchObject({ status: 400, line: 1, message: expect.stringContaining("at most 5") });
    } finally {
      delete process.env.PARLEY_REPLAY_MAX_EVENTS;
    }
    expect(await tally()).toEqual(before);
  });
});
