"use client";

import { useEffect, useState } from "react";

/**
 * The current time, re-rendering every `ms` while `active`, so countdowns and time-based
 * statuses move on their own. When inactive it still returns the time of the render.
 */
export function useNow(active: boolean, ms = 500): number {
  const [now, setNow] = useState(() => Date.now());
  const [ticking, setTicking] = useState(active);
  // The time kept while inactive is stale by however long that lasted: a countdown that appears
  // takes the time afresh in the same render, not at its first tick.
  if (active !== ticking) {
    setTicking(active);
    if (active) setNow(Date.now());
  }
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
  return active ? now : Date.now();
}
