"use client";

import { useEffect } from "react";
import { parseRoomEvent } from "@/lib/protocol";
import { apiRequest, isTransientFailure } from "./api";
import { backoffDelay, retryWithBackoff } from "./retry-with-backoff";
import type { RoomStore } from "./room-store";
import { type RoomState, uncountedSeat } from "./room-state";

/** The browser's `EventSource`, as far as the room's stream uses it. */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent<string>) => void) | null;
  onerror: ((event: Event) => void) | null;
  close(): void;
}

/** Opens the room's event stream; the browser's `EventSource` unless a test gives its own. */
export type OpenStream = (url: string) => EventSourceLike;

const openEventSource: OpenStream = (url) => new EventSource(url);

/** `EventSource.CLOSED`: the browser gave the stream up and will not reconnect by itself. */
const CLOSED = 2;

/**
 * Keeps a room store live with one EventSource per tab. The browser resumes by itself
 * with `Last-Event-ID`; when the stream is closed for good or a gap shows up, this
 * opens a new one from the last sequence number the store has applied.
 * A seat taken while the stream is open is counted on that stream rather than by
 * reopening it, so nothing the page was sent is missed or repeated.
 * Use it once, in the component that owns the room page.
 */
export function useRoomEvents(roomId: string, store: RoomStore): void {
  useEffect(() => connectRoomEvents(roomId, store), [roomId, store]);
}

/** The connection `useRoomEvents` keeps; returns what closes it. */
export function connectRoomEvents(roomId: string, store: RoomStore, openStream: OpenStream = openEventSource): () => void {
  let source: EventSourceLike | null = null;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  const connect = () => {
    if (stopped) return;
    store.getState().setConnection(attempt === 0 ? "connecting" : "reconnecting");
    source = openStream(`/api/rooms/${roomId}/events?after=${store.getState().lastSeq}`);
    source.onopen = () => {
      attempt = 0;
      store.getState().setConnection("live");
    };
    source.onmessage = (message) => {
      const parsed = parseRoomEvent(message.data);
      if (!parsed.ok) {
        // Dropped rather than folded into the room; a stored one keeps its place in the sequence.
        console.error(`[parley] could not read an event of room ${roomId}: ${parsed.problem}`);
        if (parsed.seq !== null && store.getState().skipUnreadable(parsed.seq) === "gap") reopen(0);
        return;
      }
      const outcome = store.getState().apply(parsed.event);
      if (outcome === "gap") reopen(0);
      if (parsed.event.type === "room.deleted") closeForGood();
    };
    source.onerror = () => {
      if (stopped) return;
      if (source?.readyState !== CLOSED) {
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
        reopen(backoffDelay(attempt));
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

  // The claim for the stream and seat the page has now, retried while the server may yet
  // answer otherwise. It is dropped once either changes: a closed stream's id must not be
  // claimed, and the next stream says what it counts. A refusal is final for that pair.
  let claim: { connectionId: string; seatId: string; controller: AbortController } | null = null;
  const countSeat = (state: RoomState) => {
    const missing = stopped ? null : uncountedSeat(state);
    if (claim && (claim.connectionId !== missing?.connectionId || claim.seatId !== missing.seatId)) {
      claim.controller.abort();
      claim = null;
    }
    if (!missing || claim) return;
    claim = { ...missing, controller: new AbortController() };
    retryWithBackoff((signal) => apiRequest(`/api/rooms/${roomId}/presence`, "POST", { connectionId: missing.connectionId }, { signal }), {
      signal: claim.controller.signal,
      retryable: isTransientFailure,
    }).then(
      () => store.getState().seatCounted(missing.connectionId, missing.seatId),
      () => {},
    );
  };
  const stopCounting = store.subscribe(countSeat);

  connect();
  return () => {
    stopped = true;
    stopCounting();
    claim?.controller.abort();
    if (timer) clearTimeout(timer);
    source?.close();
  };
}
