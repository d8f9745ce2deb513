"use client";

import { useServerNow } from "@/components/room/use-server-now";

/**
 * Whole seconds from `now` until `deadline` (an ISO time), rounded up and never below 0 — nor
 * above the whole time from `openedAt`, when given: a reading of the server's clock is late by
 * its trip, and a countdown never shows more than it started with.
 */
export function secondsLeft(deadline: string, now: number, openedAt: string | null = null): number {
  const left = Math.max(0, Math.ceil((Date.parse(deadline) - now) / 1000));
  const whole = openedAt ? Math.ceil((Date.parse(deadline) - Date.parse(openedAt)) / 1000) : Number.NaN;
  return Number.isFinite(whole) ? Math.min(left, whole) : left;
}

/** Seconds left until `deadline` (never below 0) by the server's clock, ticking while mounted. */
export function useSecondsLeft(deadline: string | null, openedAt: string | null = null): number | null {
  const now = useServerNow(deadline !== null, 250);
  if (!deadline) return null;
  return secondsLeft(deadline, now, openedAt);
}
