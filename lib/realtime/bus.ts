import { sql } from "drizzle-orm";
import type { Database, DbOrTx, Tx } from "@/db";
import { readEventRange } from "@/lib/events/read-events";
import type { EphemeralEvent, RoomEvent, StoredEvent } from "@/lib/protocol";
import { EVENTS_CHANNEL, decodeNotification, encodeEphemeralNotification } from "./notification";
import { encodeEventFrame } from "./sse-frame";

/** What subscribers receive: the event and its SSE frame, encoded once for every subscriber. */
export type Delivery =
  | { kind: "event"; event: RoomEvent; frame: Uint8Array }
  /** The bus may have missed notifications (its listener reconnected): re-read from the table. */
  | { kind: "resync" };

export type Subscriber = (delivery: Delivery) => void;

/**
 * Sends a signal that is not stored to every instance's subscribers, from code that holds a
 * database handle but no bus (the scheduler). Inside a transaction it goes out on commit.
 */
export async function notifyEphemeral(db: DbOrTx, event: EphemeralEvent): Promise<void> {
  const payload = encodeEphemeralNotification(event);
  if (!payload) return;
  await db.execute(sql`select pg_notify(${EVENTS_CHANNEL}, ${payload})`);
}

/**
 * Fans room events out to this process's subscribers. Every instance LISTENs on one
 * channel; a write anywhere notifies on commit, and each bus delivers to its own
 * subscribers in sequence order. Events too large to inline in a notification are read
 * back from the table once per bus, not once per subscriber.
 */
export class RoomBus {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly roomChains = new Map<string, Promise<void>>();
  private readonly everyRoom = new Set<(event: StoredEvent) => void>();
  private unlisten: (() => Promise<void>) | null = null;
  private listenCount = 0;
  private starting: Promise<void> | null = null;

  constructor(private readonly database: Database) {}

  start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.database
        .listen(
          EVENTS_CHANNEL,
          (payload) => this.onNotification(payload),
          () => {
            this.listenCount += 1;
            if (this.listenCount > 1) this.broadcastResync();
          },
        )
        .then((unlisten) => {
          this.unlisten = unlisten;
        });
    }
    return this.starting;
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => {});
    await this.unlisten?.();
    this.unlisten = null;
    this.starting = null;
    this.subscribers.clear();
  }

  subscribe(roomId: string, subscriber: Subscriber): () => void {
    let set = this.subscribers.get(roomId);
    if (!set) {
      set = new Set();
      this.subscribers.set(roomId, set);
    }
    set.add(subscriber);
    return () => {
      const current = this.subscribers.get(roomId);
      if (!current) return;
      current.delete(subscriber);
      if (current.size === 0) this.subscribers.delete(roomId);
    };
  }

  /** Every stored event of every room this instance hears of, in each room's order (exporters). */
  subscribeAll(subscriber: (event: StoredEvent) => void): () => void {
    this.everyRoom.add(subscriber);
    return () => {
      this.everyRoom.delete(subscriber);
    };
  }

  subscriberCount(roomId?: string): number {
    if (roomId) return this.subscribers.get(roomId)?.size ?? 0;
    let total = 0;
    for (const set of this.subscribers.values()) total += set.size;
    return total;
  }

  /**
   * Sends a signal that is not stored (typing, presence) to every instance's subscribers.
   * Inside a transaction (`within`), it goes out when that transaction commits.
   */
  async publishEphemeral(event: EphemeralEvent, within?: Tx): Promise<void> {
    await notifyEphemeral(within ?? this.database.db, event);
  }

  private onNotification(payload: string): void {
    const notification = decodeNotification(payload);
    if (!notification || (!this.subscribers.has(notification.room) && (this.everyRoom.size === 0 || notification.k === "ephemeral")))
      return;
    const room = notification.room;
    const previous = this.roomChains.get(room) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        if (notification.k === "ephemeral") {
          this.deliver(room, notification.event);
          return;
        }
        const stored: StoredEvent[] =
          notification.events ?? (await readEventRange(this.database.db, room, notification.from, notification.to));
        for (const event of stored) {
          for (const subscriber of this.everyRoom) {
            try {
              subscriber(event);
            } catch (error) {
              console.error("[bus] subscriber failed:", error);
            }
          }
          if (this.subscribers.has(room)) this.deliver(room, event);
        }
      })
      .catch((error) => {
        console.error(`[bus] could not deliver to room ${room}:`, error);
        this.deliverTo(room, { kind: "resync" });
      });
    this.roomChains.set(room, next);
    void next.then(() => {
      if (this.roomChains.get(room) === next) this.roomChains.delete(room);
    });
  }

  private deliver(roomId: string, event: RoomEvent): void {
    this.deliverTo(roomId, { kind: "event", event, frame: encodeEventFrame(event) });
  }

  private deliverTo(roomId: string, delivery: Delivery): void {
    const set = this.subscribers.get(roomId);
    if (!set) return;
    for (const subscriber of set) {
      try {
        subscriber(delivery);
      } catch (error) {
        console.error("[bus] subscriber failed:", error);
      }
    }
  }

  private broadcastResync(): void {
    for (const roomId of this.subscribers.keys()) this.deliverTo(roomId, { kind: "resync" });
  }
}
