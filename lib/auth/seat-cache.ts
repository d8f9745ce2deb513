import type { Seat } from "@/db/schema";

export interface SeatCacheOptions {
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

/**
 * Seats this instance looked up recently, by room and token. Seats never change once
 * taken, so a participant's writes skip the lookup; entries expire so a deleted room's
 * seats do not linger, and writes still find the room under its lock. (A retried seat
 * request replaces a seat's token only when the browser did not send it back, that is
 * when it never received it.)
 */
export class SeatCache {
  private readonly entries = new Map<string, { seat: Seat; at: number }>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: SeatCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  get(roomId: string, token: string): Seat | null {
    const key = `${roomId}\u0000${token}`;
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.now() - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return null;
    }
    return entry.seat;
  }

  remember(roomId: string, token: string, seat: Seat): void {
    const key = `${roomId}\u0000${token}`;
    this.entries.delete(key);
    this.entries.set(key, { seat, at: this.now() });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  forgetRoom(roomId: string): void {
    const prefix = `${roomId}\u0000`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
