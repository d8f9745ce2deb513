import type { Database } from "@/db";
import { readEventsAfter, REPLAY_PAGE_SIZE } from "@/lib/events/read-events";
import type { StoredEvent } from "@/lib/protocol";
import { isStoredEvent } from "@/lib/protocol";
import type { Delivery, RoomBus } from "./bus";
import type { PresenceTracker } from "./presence";
import { encodeComment, encodeEventFrame, encodeRetry } from "./sse-frame";

export interface RoomEventStreamOptions {
  database: Database;
  bus: RoomBus;
  presence?: PresenceTracker;
  roomId: string;
  /** Deliver stored events with `seq > after` first (from `Last-Event-ID` or `?after=`). */
  after: number;
  seatId?: string | null;
  signal?: AbortSignal;
  heartbeatMs?: number;
  retryMs?: number;
  /** A client this far behind is disconnected; it reconnects and replays from the table. */
  maxBufferedBytes?: number;
}

/**
 * A room's server-sent event stream: subscribe first, replay everything after the
 * client's last event from the table, then go live — dropping duplicates by sequence
 * number and filling any gap from the table, so nothing is lost or doubled.
 */
export function openRoomEventStream(options: RoomEventStreamOptions): ReadableStream<Uint8Array> {
  const { database, bus, roomId } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
  let lastSeq = options.after;
  let closed = false;
  let live = false;
  const pending: Delivery[] = [];
  let chain: Promise<void> = Promise.resolve();
  let unsubscribe: (() => void) | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  let connectionId: string | null = null;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | null = null;

  const cleanup = () => {
    if (closed) return;
    closed = true;
    unsubscribe?.();
    if (heartbeat) clearInterval(heartbeat);
    options.signal?.removeEventListener("abort", onAbort);
    if (connectionId && options.presence) void options.presence.disconnect(connectionId).catch(() => {});
  };

  const write = (chunk: Uint8Array) => {
    if (closed || !controllerRef) return;
    try {
      controllerRef.enqueue(chunk);
      if ((controllerRef.desiredSize ?? 0) < -maxBuffered) {
        controllerRef.close();
        cleanup();
      }
    } catch {
      cleanup();
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
      .catch(() => {})
      .finally(() => {
        queued -= 1;
      });
  };

  const onAbort = () => {
    cleanup();
    try {
      controllerRef?.close();
    } catch {
      // already closed
    }
  };

  return new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        controllerRef = controller;
        if (options.signal?.aborted) {
          cleanup();
          controller.close();
          return;
        }
        options.signal?.addEventListener("abort", onAbort);
        unsubscribe = bus.subscribe(roomId, enqueue);
        write(encodeRetry(options.retryMs ?? 2000));
        write(encodeComment("connected"));
        heartbeat = setInterval(() => write(encodeComment("heartbeat")), heartbeatMs);
        heartbeat.unref?.();
        try {
          if (options.presence) connectionId = await options.presence.connect(roomId, options.seatId ?? null);
          await catchUp();
          live = true;
          for (const delivery of pending.splice(0)) enqueue(delivery);
        } catch (error) {
          cleanup();
          controller.error(error);
        }
      },
      cancel() {
        cleanup();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
}
