"use client";

import { useEffect } from "react";
import type { RoomEvent } from "@/lib/protocol";
import { apiWrite } from "./api";
import type { RoomStore } from "./room-store";
import { type RoomState, uncountedSeat } from "./room-state";

const RECONNECT_DELAYS_MS = [500, 1000, 2000, 4000, 8000];

/**
 * Keeps a room store live with one EventSource per tab. The browser resumes by itself
 * with `Last-Event-ID`; when the stream is closed for good or a gap shows up, this
 * opens a new one from the last sequence number the store has applied.
 * A seat taken while the stream is open is counted on that stream rather than by
 * reopening it, so nothing the page was sent is missed or repeated.
 * Use it once, in the component that owns the room page.
 */
export function useRoomEvents(roomId: string, store: RoomStore): void {
  useEffect(() => {
    let source: EventSource | null = null;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let stopped = false;

    const connect = () => {
      if (stopped) return;
      store.getState().setConnection(attempt === 0 ? "connecting" : "reconnecting");
      source = new EventSource(`/api/rooms/${roomId}/events?after=${store.getState().lastSeq}`);
      source.onopen = () => {
        attempt = 0;
        store.getState().setConnection("live");
      };
      source.onmessage = (message) => {
        let event: RoomEvent;
        try {
          event = JSON.parse(message.data) as RoomEvent;
        } catch {
          return;
        }
        const outcome = store.getState().apply(event);
        if (outcome === "gap") reopen(0);
        if (event.type === "room.deleted") closeForGood();
      };
      source.onerror = () => {
        if (stopped) return;
        if (source?.readyState !== EventSource.CLOSED) {
          store.getState().setConnection("reconnecting");
          return;
        }
        // Refused for good: a room deleted while this page was away answers 404, and its
        // `room.deleted` (never stored) went by unseen. Ask before trying again.
        source.close();
        source = null;
        store.getState().setConnection("reconnecting");
        void roomIsGone().then((gone) => {
          if (stopped) return;
          if (gone) {
            store.getState().apply({ type: "room.deleted", room_id: roomId, payload: {} });
            closeForGood();
            return;
          }
          reopen(RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!);
          attempt += 1;
        });
      };
    };

    const closeForGood = () => {
      stopped = true;
      source?.close();
      store.getState().setConnection("closed");
    };

    const roomIsGone = async () => {
      try {
        return (await fetch(`/api/rooms/${roomId}`, { cache: "no-store" })).status === 404;
      } catch {
        return false;
      }
    };

    const reopen = (delay: number) => {
      source?.close();
      source = null;
      store.getState().setConnection("reconnecting");
      if (timer) clearTimeout(timer);
      timer = setTimeout(connect, delay);
    };

    // Each stream and seat is asked about once: a stream that closed meanwhile is replaced by
    // one that says what it counts, and a refusal would not change on asking again.
    const asked = new Set<string>();
    const countSeat = (state: RoomState) => {
      const missing = uncountedSeat(state);
      if (!missing || stopped) return;
      const key = `${missing.connectionId} ${missing.seatId}`;
      if (asked.has(key)) return;
      asked.add(key);
      apiWrite(`/api/rooms/${roomId}/presence`, "POST", { connectionId: missing.connectionId }).then(
        () => store.getState().seatCounted(missing.connectionId, missing.seatId),
        () => {},
      );
    };
    const stopCounting = store.subscribe(countSeat);

    connect();
    return () => {
      stopped = true;
      stopCounting();
      if (timer) clearTimeout(timer);
      source?.close();
    };
  }, [roomId, store]);
}
