import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { rooms } from "@/db/schema";
import { readEventsAfter, REPLAY_PAGE_SIZE } from "@/lib/events/read-events";
import type { StoredEvent } from "@/lib/protocol";
import { isStoredEvent } from "@/lib/protocol";
import type { Delivery, RoomBus } from "./bus";
import type { PresenceTracker } from "./presence";
import { encodeComment, encodeEventFrame, encodeRetry } from "./sse-frame";

export interface RoomEventStreamOptions {
  database: Database;
  /** Only subscribes: the stream never publishes. */
  bus: Pick<RoomBus, "subscribe">;
  presence?: PresenceTracker;
  roomId: string;
  /** Deliver stored events with `seq > after` first (from `Last-Event-ID` or `?after=`). */
  after: number;
  seatId?: string | null;
  heartbeatMs?: number;
  retryMs?: number;
  /** A client this far behind is disconnected; it reconnects and replays from the table. */
  maxBufferedBytes?: number;
}

/** Where a stream's bytes go: an HTTP response, or anything else that can take them. */
export interface EventSink {
  write(chunk: Uint8Array): void;
  /** Bytes written but not yet taken by the client. */
  readonly buffered: number;
  /** Ends the stream once the client has taken what is buffered. */
  end(): void;
  /** Drops the connection at once, buffered bytes and all (a client that stopped reading). */
  abort(): void;
}

export interface RoomEventStream {
  /** Settles once the replay is written and the stream is live. */
  ready: Promise<void>;
  close(): void;
}

/**
 * A room's server-sent event stream: subscribe first, replay everything after the
 * client's last event from the table, then go live — dropping duplicates by sequence
 * number and filling any gap from the table, so nothing is lost or doubled.
 *
 * Live events are written straight to the sink as they arrive, each frame encoded once
 * for every subscriber; a client that falls `maxBufferedBytes` behind is disconnected
 * and replays from the table when it reconnects.
 */
export function streamRoomEvents(options: RoomEventStreamOptions, sink: EventSink): RoomEventStream {
  const { database, bus, roomId } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
  let lastSeq = options.after;
  let closed = false;
  let live = false;
  const pending: Delivery[] = [];
  let chain: Promise<void> = Promise.resolve();
  let connectionId: string | null = null;

  /** `drop`: the client is not taking what it is sent, so waiting for it to drain would hold its buffer forever. */
  const close = (drop = false) => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    if (connectionId && options.presence) void options.presence.disconnect(connectionId).catch(() => {});
    try {
      if (drop) sink.abort();
      else sink.end();
    } catch {
      // the connection is already gone
    }
  };

  const write = (chunk: Uint8Array) => {
    if (closed) return;
    try {
      sink.write(chunk);
      if (sink.buffered > maxBuffered) close(true);
    } catch {
      close(true);
    }
  };

  const writeStored = (event: StoredEvent, frame?: Uint8Array) => {
    if (event.seq <= lastSeq) return;
    write(frame ?? encodeEventFrame(event));
    lastSeq = event.seq;
  };

  const catchUp = async (upTo = Number.POSITIVE_INFINITY) => {
    while (!closed && lastSeq < upTo) {
      const page = await readEventsAfter(database.db, roomId, lastSeq, REPLAY_PAGE_SIZE);
      const relevant = page.filter((event) => event.seq < upTo);
      for (const event of relevant) writeStored(event);
      if (page.length < REPLAY_PAGE_SIZE || relevant.length < page.length) return;
    }
  };

  const handle = async (delivery: Delivery) => {
    if (closed) return;
    if (delivery.kind === "resync") {
      await catchUp();
      return;
    }
    const { event, frame } = delivery;
    if (!isStoredEvent(event)) {
      write(frame);
      return;
    }
    if (event.seq <= lastSeq) return;
    if (event.seq > lastSeq + 1) await catchUp(event.seq);
    writeStored(event, frame);
  };

  let queued = 0;
  const enqueue = (delivery: Delivery) => {
    if (!live) {
      pending.push(delivery);
      return;
    }
    // The common case, the next event in order with nothing waiting, is written at once:
    // no promise per subscriber per event.
    if (queued === 0 && delivery.kind === "event") {
      const { event, frame } = delivery;
      if (!isStoredEvent(event)) return write(frame);
      if (event.seq <= lastSeq) return;
      if (event.seq === lastSeq + 1) return writeStored(event, frame);
    }
    queued += 1;
    chain = chain
      .then(() => handle(delivery))
      .catch((error) => {
        // Reading the missed events failed: the client cannot be given this event in order.
        // Ending the stream makes it reconnect and replay from the table.
        console.error(`[sse] could not catch up in room ${roomId}; ending the stream so the client resumes:`, error);
        close();
      })
      .finally(() => {
        queued -= 1;
      });
  };

  /** A page that connects (or reconnects) learns when the scheduler last took its turn, which no replay carries. */
  const sendSchedulerTurn = async () => {
    const [room] = await database.db.select({ at: rooms.lastScheduledAt }).from(rooms).where(eq(rooms.id, roomId));
    if (room?.at) write(encodeEventFrame({ type: "scheduler.turn", room_id: roomId, payload: { lastScheduledAt: room.at.toISOString() } }));
  };

  const unsubscribe = bus.subscribe(roomId, enqueue);
  const heartbeat = setInterval(() => write(encodeComment("heartbeat")), heartbeatMs);
  heartbeat.unref?.();
  write(encodeRetry(options.retryMs ?? 2000));
  write(encodeComment("connected"));

  const ready = (async () => {
    if (closed) return;
    try {
      if (options.presence) {
        const seatId = options.seatId ?? null;
        connectionId = await options.presence.connect(roomId, seatId);
        if (closed) void options.presence.disconnect(connectionId).catch(() => {});
        write(
          encodeEventFrame({
            type: "stream.opened",
            room_id: roomId,
            payload: { connectionId, seatId, serverTime: new Date().toISOString() },
          }),
        );
      }
      await catchUp();
      await sendSchedulerTurn();
      live = true;
      for (const delivery of pending.splice(0)) enqueue(delivery);
    } catch (error) {
      console.error(`[sse] could not open the stream of room ${roomId}:`, error);
      close();
    }
  })();

  return { ready, close };
}
