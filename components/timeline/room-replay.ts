import type { StoredEvent } from "@/lib/protocol";
import { FEED_LIMIT, type RoomState, applyRoomEvent, initialRoomState, skipUnreadableEvent } from "@/components/room/room-state";

/** Reads the room's events after `after`, oldest first, at most `limit` of them (fewer at the end of the log). */
export type LoadEvents = (after: number, limit: number) => Promise<StoredEvent[]>;

export interface RoomReplayOptions {
  /** The room before its first event (see `replayStart`). */
  start: RoomState;
  load: LoadEvents;
  /** The log's last event, as far as anyone knows yet; `extend` moves it on. */
  lastSeq: number;
  /** Events between two kept states at first; doubled whenever more than `maxCheckpoints` would be kept. */
  checkpointEvery?: number;
  maxCheckpoints?: number;
  /** Events fetched at a time, and how many such pages are kept (the least recently used go first). */
  pageSize?: number;
  maxPages?: number;
}

/** How a replay keeps memory bounded: defaults for a room of any length (docs/behaviour/time-travel.md). */
const REPLAY_DEFAULTS = { checkpointEvery: 100, maxCheckpoints: 200, pageSize: 500, maxPages: 24 } as const;

/**
 * A room before its first event, for a replay folded from the start: the room as the page knows
 * it (its id, template, settings and turn order), with nothing in it yet. The first event,
 * `room.created`, brings its title, settings, agents and, for a fork, what it was given.
 */
export function replayStart(live: Pick<RoomState, "room" | "settings" | "turnOrder">): RoomState {
  return initialRoomState(
    {
      room: { ...live.room, lastSeq: 0 },
      settings: live.settings,
      agents: [],
      turnOrder: live.turnOrder,
      lastScheduledAt: null,
      lastRunAt: {},
      nodes: [],
      edges: [],
      runs: [],
      board: [],
      findings: [],
      pendingCommands: [],
      broadcasts: [],
      broadcastResponses: [],
      brainstorm: null,
      recentEvents: [],
      lastSeq: 0,
      budget: null,
    },
    null,
  );
}

/**
 * Folds stored events into a state, in order, as the live page does. A number the events skip
 * is one the log could not give in a form this page reads: it is stepped over, as the live page
 * steps over an event it cannot read.
 */
export function foldEvents(state: RoomState, events: readonly StoredEvent[]): RoomState {
  let current = state;
  for (const event of events) {
    if (event.seq <= current.lastSeq) continue;
    while (event.seq > current.lastSeq + 1) {
      const skipped = skipUnreadableEvent(current, current.lastSeq + 1);
      if (skipped.kind !== "applied") break;
      current = skipped.state;
    }
    const outcome = applyRoomEvent(current, event);
    if (outcome.kind === "applied") current = outcome.state;
  }
  return current;
}

interface Page {
  events: StoredEvent[];
  /** The last sequence number the page is known to cover (the log may have been shorter when it was read). */
  coveredTo: number;
}

/**
 * A room's history, replayable to any of its events without calling a model or writing
 * anything. The log is read a page at a time; a state is kept every `checkpointEvery` events
 * (without its feed, which is read back from the log), so seeking folds at most that many
 * events from the nearest kept state, and memory stays bounded: at most `maxCheckpoints` states
 * and `maxPages` pages, however long the room.
 */
export class RoomReplay {
  private readonly load: LoadEvents;
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly maxCheckpoints: number;
  private every: number;
  /** Kept states, the one at `i * every` at index i (index 0: the start). */
  private checkpoints: RoomState[];
  /** The state at `indexedTo`, with its feed, from which the log is indexed further. */
  private head: RoomState;
  private pages = new Map<number, Page>();
  private loading = new Map<number, Promise<Page>>();
  private known: number;

  constructor(options: RoomReplayOptions) {
    this.load = options.load;
    this.pageSize = options.pageSize ?? REPLAY_DEFAULTS.pageSize;
    this.maxPages = Math.max(2, options.maxPages ?? REPLAY_DEFAULTS.maxPages);
    this.maxCheckpoints = Math.max(2, options.maxCheckpoints ?? REPLAY_DEFAULTS.maxCheckpoints);
    this.every = Math.max(1, options.checkpointEvery ?? REPLAY_DEFAULTS.checkpointEvery);
    this.checkpoints = [withoutFeed(options.start)];
    this.head = options.start;
    this.known = options.lastSeq;
  }

  /** The last event the replay knows of. */
  get lastSeq(): number {
    return this.known;
  }

  /** How far states are kept (the replay has folded the log up to here). */
  get indexedTo(): number {
    return this.head.lastSeq;
  }

  /** How many states and pages it holds now, to show memory stays bounded. */
  get held(): { checkpoints: number; pages: number; every: number } {
    return { checkpoints: this.checkpoints.length, pages: this.pages.size, every: this.every };
  }

  /** The log has grown (events arrived live): seeking may now go up to `lastSeq`. */
  extend(lastSeq: number): void {
    this.known = Math.max(this.known, lastSeq);
  }

  /** Folds the whole log once, keeping its states, so that any later seek is quick. */
  async index(to: number = this.known): Promise<void> {
    const target = Math.min(to, this.known);
    while (this.head.lastSeq < target) {
      const from = this.head.lastSeq;
      const page = await this.page(Math.floor(from / this.pageSize), from + 1);
      const events = page.events.filter((event) => event.seq > from && event.seq <= target);
      const end = Math.min(target, page.coveredTo);
      if (end <= from) break;
      for (const event of events) this.advanceHead(event);
      // Numbers the page did not hold (unreadable events) are stepped over up to its end.
      while (this.head.lastSeq < end) this.stepHead();
    }
  }

  /** The room as it was right after event `seq` (0: before its first). */
  async stateAt(seq: number): Promise<RoomState> {
    const target = Math.max(0, Math.min(Math.floor(seq), this.known));
    if (target > this.head.lastSeq) await this.index(target);
    const index = Math.min(Math.floor(target / this.every), this.checkpoints.length - 1);
    const base = this.checkpoints[index]!;
    const events = await this.eventsBetween(base.lastSeq, target);
    const state = foldEvents(base, events);
    return { ...state, feed: await this.feedAt(state.lastSeq) };
  }

  /** The events after `from` up to and including `to`, oldest first (those this page can read). */
  async eventsBetween(from: number, to: number): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let next = from + 1;
    while (next <= to) {
      const page = await this.page(Math.floor((next - 1) / this.pageSize), next);
      for (const event of page.events) if (event.seq >= next && event.seq <= to) events.push(event);
      const end = Math.min(to, page.coveredTo);
      if (end < next) break;
      next = end + 1;
    }
    return events;
  }

  /** The feed a page that folded the log from its start would show at `seq`: its last events, up to the feed's length. */
  private async feedAt(seq: number): Promise<StoredEvent[]> {
    let from = Math.max(0, seq - FEED_LIMIT);
    let feed = await this.eventsBetween(from, seq);
    // Events this page cannot read are not in its feed, so the feed reaches further back.
    while (feed.length < FEED_LIMIT && from > 0) {
      const earlier = Math.max(0, from - (FEED_LIMIT - feed.length));
      feed = [...(await this.eventsBetween(earlier, from)), ...feed];
      from = earlier;
    }
    return feed.slice(-FEED_LIMIT);
  }

  private advanceHead(event: StoredEvent): void {
    while (event.seq > this.head.lastSeq + 1) this.stepHead();
    this.head = foldEvents(this.head, [event]);
    this.keep();
  }

  private stepHead(): void {
    const skipped = skipUnreadableEvent(this.head, this.head.lastSeq + 1);
    if (skipped.kind === "applied") this.head = skipped.state;
    this.keep();
  }

  /** Keeps the head's state when it reaches the next checkpoint, thinning the kept states when there are too many. */
  private keep(): void {
    const seq = this.head.lastSeq;
    if (seq % this.every !== 0 || seq / this.every !== this.checkpoints.length) return;
    this.checkpoints.push(withoutFeed(this.head));
    if (this.checkpoints.length > this.maxCheckpoints) {
      this.checkpoints = this.checkpoints.filter((_, index) => index % 2 === 0);
      this.every *= 2;
    }
  }

  /** The page holding event `need` (its index in the log), read when it is not held or does not reach `need` yet. */
  private async page(index: number, need: number): Promise<Page> {
    const held = this.pages.get(index);
    if (held && held.coveredTo >= Math.min(need, this.known)) {
      this.pages.delete(index);
      this.pages.set(index, held);
      return held;
    }
    let pending = this.loading.get(index);
    if (!pending) {
      const known = this.known;
      const after = index * this.pageSize;
      pending = this.load(after, this.pageSize).then((events) => {
        const highest = events.at(-1)?.seq ?? after;
        const page = { events, coveredTo: Math.min(after + this.pageSize, Math.max(known, highest)) };
        this.extend(highest);
        this.pages.set(index, page);
        while (this.pages.size > this.maxPages) this.pages.delete(this.pages.keys().next().value!);
        return page;
      });
      this.loading.set(index, pending);
      pending.finally(() => this.loading.delete(index)).catch(() => {});
    }
    return pending;
  }
}

function withoutFeed(state: RoomState): RoomState {
  return { ...state, feed: [] };
}
