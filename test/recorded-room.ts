// A room recorded as it happens, for the integration tests of time travel: a person seated in a
// Creative canvas room adds, edits and links notes while agents run on the offline model, and a
// page's first snapshot is taken now and then, as a person opening the room at that moment gets it.
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "@/db";
import { runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { seatActor, takeSeat } from "@/lib/auth/seats";
import { createNode } from "@/lib/canvas/create-node";
import { createEdge } from "@/lib/canvas/edges";
import { updateNode } from "@/lib/canvas/update-node";
import { readEventsAfter } from "@/lib/events/read-events";
import { type RoomSnapshot, getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import type { RoomState } from "@/components/room/room-state";
import { RoomReplay, replayStart } from "@/components/timeline/room-replay";
import { agentByPersona, startTestWorker } from "./agents";
import { createTestRoom, eventually } from "./fixtures";
import { comparable } from "./room-history";

export interface RecordedRoom {
  roomId: string;
  seat: { id: string; displayName: string; token: string };
  /** The snapshot a page opening the room got, at several moments. */
  snapshots: RoomSnapshot[];
}

async function runToEnd(database: Database, roomId: string, persona: string, actor: ReturnType<typeof seatActor>, prompt: string) {
  const agent = await agentByPersona(database, roomId, persona);
  const run = await startAgentRun(database.db, roomId, { agentId: agent.id, prompt }, actor);
  await eventually(
    async () => {
      const [row] = await database.db
        .select({ status: runs.status })
        .from(runs)
        .where(and(eq(runs.id, run.id), inArray(runs.status, ["succeeded", "failed", "cancelled"])));
      if (!row) throw new Error(`run ${run.id} is still going`);
    },
    20_000,
    50,
  );
}

/** Records a room: notes, links, edits and two agents' runs, with a page's snapshot taken after each part. */
export async function recordRoom(database: Database): Promise<RecordedRoom> {
  const { roomId } = await createTestRoom(database.db, { task: "A song about rain on a city window" });
  const { seat, token } = await takeSeat(database.db, roomId, { displayName: "Ada" });
  const actor = seatActor(seat);
  const snapshots: RoomSnapshot[] = [];
  const snap = async () => snapshots.push(await getRoomSnapshot(database.db, roomId));
  const worker = await startTestWorker(database);
  try {
    const first = await createNode(database.db, roomId, actor, { text: "Rain on glass", x: 40, y: 40 });
    const second = await createNode(database.db, roomId, actor, { text: "Neon in puddles", x: 400, y: 40 });
    await createEdge(database.db, roomId, actor, { sourceId: first.id, targetId: second.id, label: "echoes" });
    await snap();
    await runToEnd(database, roomId, "songwriter", actor, "Write a verse about the rain");
    await snap();
    await updateNode(database.db, roomId, first.id, actor, { text: "Rain on the window glass" });
    await runToEnd(database, roomId, "scene-painter", actor, "Paint the street under the rain");
    await snap();
    await updateNode(database.db, roomId, second.id, actor, { x: 420, y: 300 });
    await snap();
  } finally {
    await worker.stop();
  }
  return { roomId, seat: { ...seat, token }, snapshots };
}

/** A replay of a room's log as the page makes one, reading it straight from the database. */
export function replayOf(database: Database, roomId: string, live: Pick<RoomState, "room" | "settings" | "turnOrder">, lastSeq: number) {
  return new RoomReplay({
    start: replayStart(live),
    load: (after, limit) => readEventsAfter(database.db, roomId, after, limit),
    lastSeq,
    checkpointEvery: 7,
    pageSize: 25,
  });
}

/**
 * What a page opened at a moment and a replay to that moment must agree on: the room's state but
 * for what only says how the page came by it — its feed (a first snapshot brings the newest 200
 * events, a replay the newest 300), its counters of what changed since it opened (vaults to read
 * again, unreadable events), the board's findings (a first snapshot brings them as findings only,
 * a `board.posted` puts them on the board too) — and what the snapshot reads from rows the log
 * says otherwise: why a model cannot run here, and when a run started (its row has the database's
 * clock at the claim, its `run.started` event the worker's).
 */
export function asOpened(state: RoomState) {
  const { feed: _feed, vaultVersions: _vaults, unreadableEvents: _unreadable, agents, board, runs, ...rest } = comparable(state);
  return {
    ...rest,
    agents: agents.map(({ unavailableReason: _reason, ...agent }) => agent),
    board: Object.fromEntries(Object.entries(board).filter(([, entry]) => entry.kind !== "finding")),
    runs: Object.fromEntries(Object.entries(runs).map(([id, { startedAt: _started, ...run }]) => [id, run])),
  };
}
