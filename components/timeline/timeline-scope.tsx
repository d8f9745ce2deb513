"use client";

import { type ReactNode, createContext, useContext, useEffect, useState } from "react";
import { type StoreApi, createStore, useStore } from "zustand";
import { type RoomStore, RoomStoreScope, useRoomStoreApi } from "@/components/room/room-store";
import { type Timeline, type TimelineState, createTimeline, loadFromServer } from "./timeline";
import { createViewStore } from "./view-store";

interface TimelineContextValue {
  timeline: Timeline;
  /** The live room store (the view the panels read may be the past). */
  live: RoomStore;
}

const TimelineContext = createContext<TimelineContextValue | null>(null);

/** The moment a page's address names (`?at=<seq>`), or null. */
function momentInAddress(): number | null {
  const at = new URLSearchParams(window.location.search).get("at");
  const seq = at === null ? Number.NaN : Number(at);
  return Number.isInteger(seq) && seq > 0 ? seq : null;
}

function showInAddress(at: number | null): void {
  const url = new URL(window.location.href);
  if (at === null) url.searchParams.delete("at");
  else url.searchParams.set("at", String(at));
  window.history.replaceState(window.history.state, "", url);
}

async function readInfo(roomId: string) {
  const response = await fetch(`/api/rooms/${roomId}/timeline`, { cache: "no-store" });
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  return response.json();
}

/**
 * Gives the room's panels (its children) the room at the moment the timeline shows: live, or
 * as it was right after an event. Opens at the moment the address names (`?at=<seq>`), and a
 * replay of a shared file at its end. Use once per room page, inside its `RoomStoreProvider`, around
 * everything that shows the room; what must stay live (the page's own connection and seat) takes
 * `useLiveRoomStoreApi` or sits in a `LiveRoomScope`.
 */
export function TimelineScope({ children }: { children: ReactNode }) {
  const live = useRoomStoreApi();
  const [scope] = useState(() => {
    const roomId = live.getState().room.id;
    const timeline = createTimeline(live, { load: loadFromServer(roomId), readInfo: () => readInfo(roomId), showInAddress });
    return { timeline, view: createViewStore(live, timeline.store).view };
  });
  useEffect(() => {
    const { timeline } = scope;
    const moment = momentInAddress();
    if (moment !== null) void timeline.seek(moment);
    void timeline.readInfo().then(() => {
      const { info, at } = timeline.store.getState();
      if (info?.replay && at === null) void timeline.seek(info.lastSeq);
    });
    // The timeline and the view follow the live store for as long as the page has it, and go with it.
    return () => timeline.stop();
  }, [scope]);
  return (
    <TimelineContext.Provider value={{ timeline: scope.timeline, live }}>
      <RoomStoreScope store={scope.view}>{children}</RoomStoreScope>
    </TimelineContext.Provider>
  );
}

/** The room page's timeline and live store; null outside a room page (the admin dashboard). */
export function useTimelineContext(): TimelineContextValue | null {
  return useContext(TimelineContext);
}

/** Selects from the timeline's state (inside `TimelineScope`). */
export function useTimeline<T>(selector: (state: TimelineState) => T): T {
  const context = useContext(TimelineContext);
  if (!context) throw new Error("useTimeline must be used inside <TimelineScope>.");
  return useStore(context.timeline.store, selector);
}

/** The live room store, whichever moment the panels show: for the page's connection and what is its own. */
export function useLiveRoomStoreApi(): RoomStore {
  const context = useContext(TimelineContext);
  if (!context) throw new Error("useLiveRoomStoreApi must be used inside <TimelineScope>.");
  return context.live;
}

/** Shows its children the live room, whichever moment the rest of the page shows (the header: the seat, who is watching). */
export function LiveRoomScope({ children }: { children: ReactNode }) {
  return <RoomStoreScope store={useLiveRoomStoreApi()}>{children}</RoomStoreScope>;
}

const NO_TIMELINE: StoreApi<Pick<TimelineState, "info" | "at">> = createStore(() => ({ info: null, at: null }));

/** Whether the room is a replay of a shared file (read-only: nobody takes a seat in it); false outside a room page. */
export function useIsReplay(): boolean {
  const context = useContext(TimelineContext);
  const store = context?.timeline.store ?? NO_TIMELINE;
  return useStore(store, (state) => !!state.info?.replay);
}

/** Whether the page shows a moment of the room's past (a replay always does); false outside a room page. */
export function useShowsPast(): boolean {
  const context = useContext(TimelineContext);
  const store = context?.timeline.store ?? NO_TIMELINE;
  return useStore(store, (state) => state.at !== null);
}
