"use client";

import { useServerNow } from "@/components/room/use-server-now";

/** Whole seconds from `now` until `deadline` (an ISO time), rounded up and never below 0. */
export function secondsLeft(deadline: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(deadline) - now) / 1000));
}

/** Seconds left until `deadline` (never below 0) by the server's clock, ticking while mounted. */
export function useSecondsLeft(deadline: string | null): number | null {
  const now = useServerNow(deadline !== null, 250);
  if (!deadline) return null;
  return secondsLeft(deadline, now);
}
