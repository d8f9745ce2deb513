import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the writes made in the current piece of work descend from: every event names the event
 * that caused it (`causation_id`), so a workflow reads as one tree rooted at the event that
 * started it. The cause is carried along the async calls of a request or a run rather than
 * passed to every emitter.
 */
interface CauseScope {
  /** The event new writes are caused by; null until the scope's first write (a request's). */
  eventId: string | null;
  /** Whether the next write's first event becomes the cause of the writes after it. */
  adoptNext: boolean;
  /** A W3C `traceparent` the work was asked under, kept with the roots it writes. */
  traceparent: string | null;
}

const storage = new AsyncLocalStorage<CauseScope>();

/** A `traceparent` as W3C Trace Context writes it (version 00, non-zero ids), or null. */
export function validTraceparent(header: string | null | undefined): string | null {
  const value = header?.trim().toLowerCase();
  if (!value) return null;
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value);
  if (!match || /^0+$/.test(match[1] ?? "") || /^0+$/.test(match[2] ?? "")) return null;
  return value;
}

/**
 * Runs a request's work: its first write is the cause of the writes after it (a command and the
 * run it starts form one tree), and a caller's `traceparent` is kept with the roots it writes.
 */
export function withRequestCause<T>(headers: Pick<Headers, "get"> | null, work: () => T): T {
  return storage.run({ eventId: null, adoptNext: true, traceparent: validTraceparent(headers?.get("traceparent")) }, work);
}

/**
 * Runs `work` caused by `eventId` (a run by the event that queued it). With `adoptNext`, the
 * first event `work` writes becomes the cause of the rest (a run's `run.started` of its steps).
 */
export function withCause<T>(eventId: string | null, work: () => T, options: { adoptNext?: boolean } = {}): T {
  const outer = storage.getStore();
  return storage.run({ eventId, adoptNext: options.adoptNext ?? false, traceparent: outer?.traceparent ?? null }, work);
}

/** The cause a write made now takes for its first event, and the caller's trace context. */
export function ambientCause(): { eventId: string | null; traceparent: string | null } {
  const scope = storage.getStore();
  return { eventId: scope?.eventId ?? null, traceparent: scope?.traceparent ?? null };
}

/** Called once a write has stored events: the scope may take its first event as the cause of what follows. */
export function wrote(firstEventId: string): void {
  const scope = storage.getStore();
  if (!scope) return;
  if (scope.adoptNext || scope.eventId === null) {
    scope.eventId = firstEventId;
    scope.adoptNext = false;
  }
}
