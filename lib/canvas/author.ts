import type { Actor } from "@/lib/events/write-room-events";

/** Who a canvas change is attributed to. */
export interface CanvasAuthor extends Actor {
  kind: "human" | "agent";
}
