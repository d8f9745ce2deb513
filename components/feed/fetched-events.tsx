import { type StoredEvent, type UnreadableEvent, parseStoredEvents } from "@/lib/protocol";

/**
 * Stored events a page fetched (an event log, a workflow's messages), read with the shared
 * schema as the live stream reads its own: any it refuses is dropped, and each is reported on
 * the console with what was wrong. `source` names where they came from, for the report.
 */
export function readFetchedEvents(values: unknown, source: string): { events: StoredEvent[]; unreadable: UnreadableEvent[] } {
  const read = parseStoredEvents(values);
  for (const each of read.unreadable) {
    console.error(`[parley] could not read ${each.seq === null ? "an event" : `event #${each.seq}`} of ${source}: ${each.problem}`);
  }
  return read;
}

/** Says how many fetched events could not be read and are left out; nothing when every one could. */
export function UnreadableEvents({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <p className="form-error" role="status" data-testid="events-unreadable">
      {count === 1 ? "1 event could not be read and is" : `${count} events could not be read and are`} not shown; the browser console says
      why.
    </p>
  );
}
