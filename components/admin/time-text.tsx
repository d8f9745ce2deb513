"use client";

import { LocalTime } from "@/components/ui/local-time";
import { formatAgo, formatTime } from "./admin-format";

/** How long ago a time was (or how long until it is), from `now` or the time of rendering: 12 s ago, in 2 s. */
export function Ago({ iso, now }: { iso: string; now?: number | null }) {
  return <LocalTime iso={iso} format={(time) => formatAgo(time, now ?? Date.now())} />;
}

/** A time as the viewer's clock shows it: 14:03:27, with the date when it is not today. */
export function Clock({ iso, className }: { iso: string; className?: string }) {
  return <LocalTime iso={iso} format={formatTime} className={className} />;
}
