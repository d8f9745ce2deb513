"use client";

import { useSyncExternalStore } from "react";

const neverChanges = () => () => {};

/**
 * False while the server renders and the browser hydrates that render, true from the browser's
 * next render on. What depends on the viewer's clock or time zone waits for it, so the page
 * hydrates the very text the server wrote: a text that differs is a hydration error, after which
 * React throws the server's page away and renders it all again.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}

/** A time as the server and the browser both write it before the viewer's clock is known: 14:03:27 UTC. */
function utcTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(11, 19)} UTC`;
}

/**
 * A time as `format` writes it by the viewer's clock and time zone (12 s ago, 14:03:27), for any
 * time a page renders on the server first: until the page has hydrated it shows the time in UTC.
 */
export function LocalTime({ iso, format, className }: { iso: string; format: (iso: string) => string; className?: string }) {
  const hydrated = useHydrated();
  return (
    <time className={className} dateTime={iso}>
      {hydrated ? format(iso) : utcTime(iso)}
    </time>
  );
}
