"use client";

import { createContext, useContext, useState, type ReactNode } from "react";
import { useStore } from "zustand";
import { type StoreApi, createStore } from "zustand/vanilla";
import { EVERY_FINDING, type FindingsFilter } from "@/components/findings/findings-view";
import type { RoomEvent } from "@/lib/protocol";
import {
  type ApplyOutcome,
  type ConnectionState,
  type RoomSnapshotLike,
  type RoomState,
  type SeatInfo,
  applyRoomEvent,
  initialRoomState,
  skipUnreadableEvent,
} from "./room-state";

export interface RoomActions {
  apply(event: RoomEvent): ApplyOutcome["kind"];
  /** Steps over stored event `seq`, which this page could not read. */
  skipUnreadable(seq: number): ApplyOutcome["kind"];
  setConnection(connection: ConnectionState): void;
  setSeat(seat: SeatInfo): void;
  /** The server now counts `seatId` on the stream `connectionId` (if that is still this page's stream). */
  seatCounted(connectionId: string, seatId: string): void;
  highlight(nodeIds: string[]): void;
  /** Shows a tab of the side panel. */
  showSideTab(tab: SideTab): void;
  /** Scrolls the feed to the entry of stored event `seq` and marks it (null: none). */
  focusFeedEntry(seq: number | null): void;
  /** Chooses which findings the findings board lists. */
  filterFindings(filter: FindingsFilter): void;
  /** Opens the trace of the workflow with this correlation id (null: closes it). */
  traceWorkflow(correlationId: string | null): void;
  /** On a phone, which pane fills the screen. */
  showPane(pane: PhonePane): void;
}

/** The panes a phone shows one at a time. */
type PhonePane = "canvas" | "agents" | "activity";

type SideTab = "activity" | "findings";

/** What the side panel shows; kept apart from the room's state, which the stream drives. */
export interface SidePanelState {
  sideTab: SideTab;
  focusedSeq: number | null;
  /** Which findings the findings board lists; kept while the feed is shown instead. */
  findingsFilter: FindingsFilter;
  /** The workflow whose trace is open. */
  tracing: string | null;
  pane: PhonePane;
  /** The page was opened by a signed-in admin: admin actions are offered. */
  admin: boolean;
}

export type RoomStore = StoreApi<RoomState & SidePanelState & RoomActions>;

export function createRoomStore(snapshot: RoomSnapshotLike, seat: SeatInfo | null, admin = false): RoomStore {
  return createStore<RoomState & SidePanelState & RoomActions>()((set, get) => ({
    ...initialRoomState(snapshot, seat),
    sideTab: "activity",
    focusedSeq: null,
    findingsFilter: EVERY_FINDING,
    tracing: null,
    pane: "canvas",
    admin,
    apply(event) {
      const outcome = applyRoomEvent(get(), event);
      if (outcome.kind === "applied") set(outcome.state);
      return outcome.kind;
    },
    skipUnreadable(seq) {
      const outcome = skipUnreadableEvent(get(), seq);
      if (outcome.kind === "applied") set(outcome.state);
      return outcome.kind;
    },
    // A stream that is not live any more counts nothing; the next one says what it counts.
    setConnection: (connection) => set(connection === "live" ? { connection } : { connection, stream: null }),
    setSeat: (nextSeat) => set({ seat: nextSeat }),
    seatCounted(connectionId, seatId) {
      const { stream } = get();
      if (stream?.connectionId === connectionId) set({ stream: { connectionId, seatId } });
    },
    highlight: (nodeIds) => set({ highlighted: nodeIds }),
    showSideTab: (sideTab) => set({ sideTab }),
    focusFeedEntry: (focusedSeq) => set({ focusedSeq }),
    filterFindings: (findingsFilter) => set({ findingsFilter }),
    traceWorkflow: (tracing) => set({ tracing }),
    showPane: (pane) => set({ pane }),
  }));
}

const RoomStoreContext = createContext<RoomStore | null>(null);

/** Provides one store per room page; created once from the server's snapshot. */
export function RoomStoreProvider({
  snapshot,
  seat,
  admin = false,
  children,
}: {
  snapshot: RoomSnapshotLike;
  seat: SeatInfo | null;
  admin?: boolean;
  children: ReactNode;
}) {
  const [store] = useState(() => createRoomStore(snapshot, seat, admin));
  return <RoomStoreScope store={store}>{children}</RoomStoreScope>;
}

/** Provides a store made elsewhere: a test's, which it drives event by event. The page uses `RoomStoreProvider`. */
export function RoomStoreScope({ store, children }: { store: RoomStore; children: ReactNode }) {
  return <RoomStoreContext.Provider value={store}>{children}</RoomStoreContext.Provider>;
}

/** The room store itself, for effects that read or apply outside rendering. */
export function useRoomStoreApi(): RoomStore {
  const store = useContext(RoomStoreContext);
  if (!store) throw new Error("useRoomStoreApi must be used inside <RoomStoreProvider>.");
  return store;
}

/** Selects from the room state; re-renders only when the selected value changes. */
export function useRoom<T>(selector: (state: RoomState & SidePanelState & RoomActions) => T): T {
  return useStore(useRoomStoreApi(), selector);
}
