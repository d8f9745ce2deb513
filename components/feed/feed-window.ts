/**
 * How many of the newest entries the feed draws at first. A room's feed holds up to a few hundred
 * events, and drawing them all again at every jump through its history costs far more than the jump
 * itself; older entries are drawn when asked for ("Show earlier activity").
 */
export const FEED_WINDOW = 60;

/**
 * Where the drawn part of the feed starts: the newest `size` entries, or from the entry `earliest`
 * (the oldest one asked for, while the feed still holds it), and always far enough back to include
 * the entry in focus.
 */
export function feedWindowStart(seqs: readonly number[], earliest: number | null, focusedSeq: number | null, size = FEED_WINDOW): number {
  let start = Math.max(0, seqs.length - size);
  if (earliest !== null) {
    const asked = seqs.indexOf(earliest);
    if (asked !== -1) start = Math.min(start, asked);
  }
  if (focusedSeq !== null) {
    const focused = seqs.indexOf(focusedSeq);
    if (focused !== -1) start = Math.min(start, focused);
  }
  return start;
}

/** The entry to start from after showing `size` more: the sequence number of the new oldest entry drawn. */
export function earlierStart(seqs: readonly number[], start: number, size = FEED_WINDOW): number | null {
  return seqs[Math.max(0, start - size)] ?? null;
}

let timeFormat: Intl.DateTimeFormat | null = null;

/**
 * A time of day by the viewer's clock (14:03:27). One formatter for every entry: building one per
 * call, as `toLocaleTimeString` does, was a large part of drawing a feed of hundreds of entries.
 */
export function timeOfDay(iso: string): string {
  timeFormat ??= new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return timeFormat.format(new Date(iso));
}
