"use client";

import { useNow } from "@/components/ui/use-now";

/** Seconds left until `deadline` (never below 0), ticking while mounted. */
export function useSecondsLeft(deadline: string | null): number | null {
  const now = useNow(deadline !== null, 250);
  if (!deadline) return null;
  return Math.max(0, Math.ceil((new Date(deadline).getTime() - now) / 1000));
}
