import type { StoreApi } from "zustand/vanilla";
import { createStore } from "zustand/vanilla";
import type { RoomState } from "@/components/room/room-state";
import type { RoomStore } from "@/components/room/room-store";
import { keepUnchanged } from "./keep-unchanged";
import type { TimelineState } from "./timeline";

/**
 * The parts of the room state that its log decides, and so that a replay shows as they were at a
 * moment. The rest is this page's own (its connection, seat, presence counts, clock) and stays live.
 */
const REPLAYED_KEYS = [
  "room",
  "settings",
  "agents",
  "nodes",
  "codeNodes",
  "edges",
  "feed",
  "runs",
  "board",
  "findings",
  "pendingCommands",
  "dialogues",
  "reviews",
  "brainstorm",
  "vaultVersions",
  "broadcasts",
  "answers",
  "lastSeq",
  "unreadableEvents",
  "lastRunAt",
] as const satisfies readonly (keyof RoomState)[];

export type ReplayedState = Pick<RoomState, (typeof REPLAYED_KEYS)[number]>;

/** The part of a room state a replay reproduces. */
export function replayedPart(state: RoomState): ReplayedState {
  return Object.fromEntries(REPLAYED_KEYS.map((key) => [key, state[key]])) as ReplayedState;
}

/**
 * The store the room's panels read: the live store while the page is live; in the past, the
 * replayed room at that moment, seen as a spectator sees it — no seat, no admin, nobody typing —
 * so nothing can be changed from the past. The page's own side panel, tabs and highlights stay
 * shared with the live store, so they carry over when the page goes back to live.
 */
export function createViewStore(live: RoomStore, timeline: StoreApi<TimelineState>): { view: RoomStore; dispose(): void } {
  // The moment shown last (or the live room, before the first step into the past), whose objects
  // the next moment reuses wherever it holds the same values, so the panels redraw only what differs.
  let shown: ReplayedState | null = null;
  let shownFrom: RoomState | null = null;
  const compose = () => {
    const state = live.getState();
    const past = timeline.getState().past;
    if (!past) {
      shown = null;
      shownFrom = null;
      return state;
    }
    if (past !== shownFrom) shown = keepUnchanged(shown ?? replayedPart(state), replayedPart(past));
    shownFrom = past;
    return { ...state, ...shown!, seat: null, admin: false, typing: {}, lastScheduledAt: null, budget: null };
  };
  const view: RoomStore = createStore<ReturnType<RoomStore["getState"]>>()(() => compose());
  const sync = () => view.setState(compose(), true);
  const stopLive = live.subscribe(sync);
  const stopTimeline = timeline.subscribe((state, previous) => {
    if (state.past !== previous.past) sync();
  });
  return {
    view,
    dispose() {
      stopLive();
      stopTimeline();
    },
  };
}
