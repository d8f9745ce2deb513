"use client";

import { useNow } from "@/components/ui/use-now";
import { useRoom } from "./room-store";

/**
 * The server's time now, as this page reckons it (its own clock corrected by what the room's
 * stream said of the server's), re-rendering every `ms` while `active`. Use it to count down
 * to, or up from, a time the server gave (a deadline, the next turn, when a stage began) in a
 * room page; a time the page took itself (when text last arrived) goes with `useNow`.
 */
export function useServerNow(active: boolean, ms?: number): number {
  const offset = useRoom((state) => state.clockOffsetMs);
  return useNow(active, ms) + offset;
}
