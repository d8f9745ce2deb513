import type { RoomEvent } from "@/lib/protocol";
import { isStoredEvent } from "@/lib/protocol";

const encoder = new TextEncoder();

/** One server-sent event. Stored events carry their sequence number as the SSE id; ephemeral ones carry none. */
export function encodeEventFrame(event: RoomEvent): Uint8Array {
  const data = JSON.stringify(event);
  return encoder.encode(isStoredEvent(event) ? `id: ${event.seq}\ndata: ${data}\n\n` : `data: ${data}\n\n`);
}

export function encodeComment(text: string): Uint8Array {
  return encoder.encode(`: ${text}\n\n`);
}

export function encodeRetry(milliseconds: number): Uint8Array {
  return encoder.encode(`retry: ${milliseconds}\n\n`);
}
