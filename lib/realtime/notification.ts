import type { EphemeralEvent, StoredEvent } from "@/lib/protocol";

/** The one notification channel every app instance listens on. */
export const EVENTS_CHANNEL = "parley_events";

/** PostgreSQL refuses notification payloads of 8000 bytes or more; stay well below. */
export const MAX_NOTIFICATION_BYTES = 7600;

export type Notification =
  /** Stored events `from..to` committed in one room; `events` is omitted when too large to inline. */
  { k: "stored"; room: string; from: number; to: number; events?: StoredEvent[] } | { k: "ephemeral"; room: string; event: EphemeralEvent };

export function encodeStoredNotification(room: string, events: StoredEvent[]): string {
  const from = events[0]!.seq;
  const to = events[events.length - 1]!.seq;
  const inline = JSON.stringify({ k: "stored", room, from, to, events } satisfies Notification);
  if (Buffer.byteLength(inline) <= MAX_NOTIFICATION_BYTES) return inline;
  return JSON.stringify({ k: "stored", room, from, to } satisfies Notification);
}

export function encodeEphemeralNotification(event: EphemeralEvent): string | null {
  const encoded = JSON.stringify({ k: "ephemeral", room: event.room_id, event } satisfies Notification);
  return Buffer.byteLength(encoded) <= MAX_NOTIFICATION_BYTES ? encoded : null;
}

export function decodeNotification(payload: string): Notification | null {
  try {
    const value = JSON.parse(payload) as Notification;
    if (value && (value.k === "stored" || value.k === "ephemeral") && typeof value.room === "string") return value;
  } catch {
    // not ours
  }
  return null;
}
