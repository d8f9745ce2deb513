import { asc, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agents, events, rooms, runs, vaultInsights } from "@/db/schema";
import { POST as forkRoute } from "@/app/api/rooms/[roomId]/forks/route";
import { GET as timelineRoute } from "@/app/api/rooms/[roomId]/timeline/route";
import { initialRoomState, type RoomState } from "@/components/room/room-state";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { seatCookieName } from "@/lib/auth/seats";
import { eventFromRow } from "@/lib/events/event-row";
import type { BoardEntryDto } from "@/lib/protocol";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { call, cookieFrom, fromOwnAddress } from "@/test/http";
import { type RecordedRoom, asOpened, recordRoom, replayOf } from "@/test/recorded-room";
import { useTestRuntime } from "@/test/test-runtime";
import { forkRoom } from "./fork-room";
import { getRoomSnapshot } from "./get-room-snapshot";
import { updateAgent } from "./update-agent";

const TOKEN = "admin-token-for-fork-tests-01";
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

async function liveState(roomId: string): Promise<RoomState> {
  return initialRoomState(await getRoomSnapshot(context.database.db, roomId), null);
}

/** The origin's state at a moment, as its replay shows it, in the fork's ids, and the board as it was still live then. */
function inForkIds(state: RoomState, ids: Awaited<ReturnType<typeof forkRoom>>["ids"], momentAt: string) {
  const agentId = (id: string) => ids.agents.get(id) ?? id;
  const nodeId = (id: string) => ids.nodes.get(id)!;
  // Entries still live then; findings are compared as findings (a page's first snapshot has them only there).
  const live = Object.values(state.board).filter(
    (entry) => entry.kind !== "finding" && (entry.expiresAt === null || entry.expiresAt > momentAt),
  );
  return {
    nodes: Object.values(state.nodes)
      .map((node) => ({ ...node, id: nodeId(node.id), authorId: node.authorKind === "agent" ? agentId(node.authorId) : node.authorId }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    edges: Object.values(state.edges)
      .map((edge) => ({
        ...edge,
        id: ids.edges.get(edge.id)!,
        sourceId: nodeId(edge.sourceId),
        targetId: nodeId(edge.targetId),
        authorId: edge.authorKind === "agent" ? agentId(edge.authorId) : edge.authorId,
      }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    board: live
      .map((entry) => ({ id: ids.board.get(entry.id)!, kind: entry.kind, agentId: entry.agentId && agentId(entry.agentId) }))
      .sort(byId),
    findings: state.findings.map((finding) => finding.finding),
    agents: state.agents.map((agent) => ({ id: agentId(agent.id), persona: agent.persona, name: agent.name, model: agent.model })),
    settings: state.settings,
  };
}

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

function forkView(state: RoomState) {
  return {
    nodes: Object.values(state.nodes).sort(byId),
    edges: Object.values(state.edges).sort(byId),
    board: Object.values(state.board)
      .filter((entry) => entry.kind !== "finding")
      .map((entry: BoardEntryDto) => ({ id: entry.id, kind: entry.kind, agentId: entry.agentId }))
      .sort(byId),
    findings: state.findings.map((finding) => finding.finding),
    agents: state.agents.map((agent) => ({ id: agent.id, persona: agent.persona, name: agent.name, model: agent.model })),
    settings: state.settings,
  };
}

describe("a room replayed from its log", () => {
  it("shows at each moment what a page opened then showed", async () => {
    const { roomId, snapshots } = recorded;
    const live = await liveState(roomId);
    const replay = replayOf(context.database, roomId, live, live.lastSeq);
    for (const snapshot of snapshots) {
      const opened = initialRoomState(snapshot, null);
      expect(asOpened(await replay.stateAt(snapshot.lastSeq)), `at event ${snapshot.lastSeq}`).toEqual(asOpened(opened));
      // The feed a page opened then shows is the end of the replay's.
      const feed = (await replay.stateAt(snapshot.lastSeq)).feed;
      expect(feed.slice(-opened.feed.length)).toEqual(opened.feed);
    }
    expect(asOpened(await replay.stateAt(live.lastSeq))).toEqual(asOpened(live));
  });
});

describe("continuing a room from a moment", () => {
  it("starts a room with the origin's state at that event, names the moment, and leaves the origin as it was", async () => {
    const { roomId, snapshots } = recorded;
    const at = snapshots[1]!.lastSeq;
    const before = await liveState(roomId);
    const originRows = await context.database.db.select({ n: count() }).from(events).where(eq(events.roomId, roomId));
    const fork = await forkRoom(context.database.db, roomId, { at }, { kind: "seat", displayName: "Ada" });

    const replay = replayOf(context.database, roomId, before, before.lastSeq);
    const origin = await replay.stateAt(at);
    const [moment] = await context.database.db
      .select()
      .from(events)
      .where(eq(events.roomId, roomId))
      .orderBy(asc(events.seq))
      .offset(at - 1)
      .limit(1);
    const forked = await liveState(fork.room.id);
    expect(forkView(forked)).toEqual(inForkIds(origin, fork.ids, moment!.createdAt.toISOString()));
    expect(Object.keys(forked.nodes).length).toBeGreaterThan(2);
    expect(forked.room.title).toBe(`${before.room.title} (from #${at})`);
    // Nothing under way comes along.
    expect(Object.keys(forked.runs)).toEqual([]);
    expect(Object.keys(forked.pendingCommands)).toEqual([]);

    // Its first event names the origin and the moment; the person who asked has a seat in it.
    const forkEvents = (
      await context.database.db.select().from(events).where(eq(events.roomId, fork.room.id)).orderBy(asc(events.seq))
    ).map(eventFromRow);
    expect(forkEvents.map((event) => event.type)).toEqual(["room.created", "seat.taken"]);
    expect(forkEvents[0]!.payload).toMatchObject({ forkedFrom: { roomId, seq: at, title: before.room.title } });
    expect(fork.seat).toMatchObject({ displayName: "Ada" });

    // The fork replays from its own log to the same room.
    const forkReplay = replayOf(context.database, fork.room.id, forked, forked.lastSeq);
    expect(forkView(await forkReplay.stateAt(forked.lastSeq))).toEqual(forkView(forked));

    // The origin is unchanged: not one event more, the same state.
    const after = await liveState(roomId);
    expect(asOpened(after)).toEqual(asOpened(before));
    expect(await context.database.db.select({ n: count() }).from(events).where(eq(events.roomId, roomId))).toEqual(originRows);

    // Each lists the other.
    const originTimeline = await call(timelineRoute, { url: "/x", method: "GET", params: { roomId } });
    expect(originTimeline.body.forks).toEqual([expect.objectContaining({ id: fork.room.id, seq: at })]);
    const forkTimeline = await call(timelineRoute, { url: "/x", method: "GET", params: { roomId: fork.room.id } });
    expect(forkTimeline.body.origin).toEqual({ roomId, title: before.room.title, seq: at });
    expect(forkTimeline.body.marks.length).toBe(0);
    expect(originTimeline.body.marks.map((mark: { kind: string }) => mark.kind)).toEqual(expect.arrayContaining(["edit", "run"]));
  });

  it("gives the fork's agents their model and prompt at that moment, their own vaults, and lets them run on", async () => {
    const { roomId } = recorded;
    const state = await liveState(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const at = state.lastSeq;
    await updateAgent(context.database.db, roomId, songwriter.id, { model: "script:generalist", systemPrompt: "Only write haiku." });
    const fork = await forkRoom(context.database.db, roomId, { at }, { kind: "admin" });
    expect(fork.seat).toBeNull();
    const forkSongwriter = await agentByPersona(context.database, fork.room.id, "songwriter");
    expect(forkSongwriter).toMatchObject({
      model: songwriter.model,
      systemPrompt: songwriter.systemPrompt,
      id: fork.ids.agents.get(songwriter.id),
    });
    expect(forkSongwriter.identity).not.toBe(songwriter.identity);
    // It learned in the origin up to the moment: that much is in its own vault, and nothing else.
    const learned = await context.database.db.select().from(vaultInsights).where(eq(vaultInsights.identity, songwriter.identity));
    const carried = await context.database.db.select().from(vaultInsights).where(eq(vaultInsights.identity, forkSongwriter.identity));
    expect(carried.map((insight) => insight.text).sort()).toEqual(
      learned
        .filter((insight) => insight.roomId === roomId)
        .map((insight) => insight.text)
        .sort(),
    );

    const worker = await startTestWorker(context.database);
    try {
      const run = await startAgentRun(
        context.database.db,
        fork.room.id,
        { agentId: forkSongwriter.id, prompt: "Carry on the song" },
        { id: "admin", name: "Admin" },
      );
      await eventually(async () => {
        const [row] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row?.status).toBe("succeeded");
      }, 20_000);
    } finally {
      await worker.stop();
    }
    const forked = await liveState(fork.room.id);
    const copied = new Set(fork.ids.nodes.values());
    expect(Object.values(forked.nodes).some((node) => node.authorId === forkSongwriter.id && !copied.has(node.id))).toBe(true);
    // What the fork's agent did stays in the fork.
    const origin = await liveState(roomId);
    expect(Object.keys(origin.nodes).length).toBe(Object.keys(state.nodes).length);
  });

  it("is refused to spectators, for moments the room has not reached, and for rooms that do not exist — writing nothing", async () => {
    const { roomId, seat } = recorded;
    const roomsBefore = await context.database.db.select({ n: count() }).from(rooms);
    const ask = (body: unknown, cookie?: string, id = roomId) =>
      call(forkRoute, { url: `/api/rooms/${id}/forks`, method: "POST", params: { roomId: id }, body, cookie, headers: fromOwnAddress() });
    const seated = `${seatCookieName(roomId)}=${seat.token}`;
    expect((await ask({ at: 3 })).status).toBe(403);
    const beyond = await ask({ at: 999_999 }, seated);
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.message).toMatch(/^at: the room has \d+ events/);
    expect((await ask({ at: 0 }, seated)).status).toBe(400);
    expect((await ask({ at: "three" }, seated)).status).toBe(400);
    expect((await ask({ at: 3, extra: true }, seated)).status).toBe(400);
    expect((await ask({ at: 3 }, seated, "no-such-room")).status).toBe(404);
    expect(await context.database.db.select({ n: count() }).from(rooms)).toEqual(roomsBefore);

    const made = await ask({ at: 3, title: "What if" }, seated);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ room: { title: "What if" }, seat: { displayName: "Ada" } });
    const cookie = cookieFrom(made.headers.get("set-cookie"));
    expect(cookie.startsWith(`${seatCookieName(made.body.room.id)}=`)).toBe(true);
    const [forkAgents] = await context.database.db.select({ n: count() }).from(agents).where(eq(agents.roomId, made.body.room.id));
    expect(forkAgents!.n).toBe(5);
    const admin = await ask({ at: 2 }, `parley_admin=nothing`);
    expect(admin.status).toBe(403);
    const byAdmin = await call(forkRoute, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { at: 2 },
      headers: fromOwnAddress({ authorization: `Bearer ${TOKEN}` }),
    });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.seat).toBeNull();
  });
});
