import { type StoreApi, createStore } from "zustand/vanilla";
import { type StoredEvent, parseStoredEvents } from "@/lib/protocol";
import { type TimelineMark, markOf } from "@/lib/timeline/marks";
import type { TimelineDto } from "@/lib/timeline/read-timeline";
import { type RoomState, applyRoomEvent } from "@/components/room/room-state";
import type { RoomStore } from "@/components/room/room-store";
import { type LoadEvents, RoomReplay, replayStart } from "./room-replay";

export const PLAY_SPEEDS = [1, 4, 16] as const;
export type PlaySpeed = (typeof PLAY_SPEEDS)[number];

/** The longest a replay waits between two events, however long the room was quiet: quiet stretches are skipped. */
export const QUIET_SKIP_MS = 800;
/** The name of the User Timing measure each seek's replay leaves, apart from its drawing. */
const REPLAY_MEASURE = "parley:replay";
/** How often a playing replay moves on. */
const PLAY_TICK_MS = 50;
/** Events read ahead of a playing replay. */
const PLAY_AHEAD = 200;

export interface TimelineState {
  /** The event whose moment the room shows; null: the room as it is now, live. */
  at: number | null;
  /** The room right after event `at`, once replayed (it lags `at` while a seek is under way). */
  past: RoomState | null;
  /** Playing forward at this speed; null: paused (or live). */
  speed: PlaySpeed | null;
  /** Events that arrived live since the page went into the past. */
  arrived: number;
  /** The marks along the timeline, oldest first. */
  marks: TimelineMark[];
  /** The room's origin, forks and, for a replay, its source; null until read. */
  info: Omit<TimelineDto, "marks"> | null;
  /** The replay is reading the room's history for the first time. */
  reading: boolean;
  error: string | null;
}

export interface TimelineDeps {
  /** Reads a page of the room's log (the browser asks the server). */
  load: LoadEvents;
  /** Reads the timeline's marks, origin and forks. */
  readInfo(): Promise<TimelineDto>;
  /** Shows the moment in the address bar, so the link opens it (null: live). */
  showInAddress?(at: number | null): void;
  now?(): number;
  setTimer?(run: () => void, ms: number): unknown;
  clearTimer?(timer: unknown): void;
}

export type Timeline = ReturnType<typeof createTimeline>;

/**
 * A room page's timeline: which moment the page shows (live, or right after an event), playing
 * from there at 1×, 4× or 16× with quiet stretches skipped, and back to live. The room's live
 * state keeps moving meanwhile (a count says how many events arrived); the past is replayed from
 * the log, with no model called and nothing written. Create one per room page.
 */
export function createTimeline(live: RoomStore, deps: TimelineDeps) {
  const now = deps.now ?? (() => Date.now());
  const setTimer = deps.setTimer ?? ((run, ms) => setTimeout(run, ms));
  const clearTimer = deps.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  const store: StoreApi<TimelineState> = createStore<TimelineState>()(() => ({
    at: null,
    past: null,
    speed: null,
    arrived: 0,
    marks: [],
    info: null,
    reading: false,
    error: null,
  }));
  let replay: RoomReplay | null = null;
  let enteredAt = 0;
  let seeking = 0;
  let playTimer: unknown = null;
  let markedTo = live.getState().lastSeq;

  const replayer = (): RoomReplay => {
    replay ??= new RoomReplay({ start: replayStart(live.getState()), load: deps.load, lastSeq: live.getState().lastSeq });
    return replay;
  };

  const isReplayRoom = () => store.getState().info?.replay != null;

  /** The room's end: its last event as the live page knows it, or as the timeline read it. */
  const end = () => Math.max(live.getState().lastSeq, store.getState().info?.lastSeq ?? 0, replay?.lastSeq ?? 0);

  const stopPlaying = () => {
    if (playTimer !== null) clearTimer(playTimer);
    playTimer = null;
    if (store.getState().speed !== null) store.setState({ speed: null });
  };

  async function seek(seq: number): Promise<void> {
    const target = Math.max(1, Math.min(Math.round(seq), end()));
    if (store.getState().at === null) enteredAt = live.getState().lastSeq;
    const token = ++seeking;
    const first = replay === null || replay.indexedTo === 0;
    store.setState({ at: target, arrived: live.getState().lastSeq - enteredAt, reading: first, error: null });
    try {
      const started = performance.now();
      const state = await replayer().stateAt(target);
      if (token !== seeking) return;
      // How long the replay took, apart from drawing it (read by bench:replay).
      performance.clearMeasures(REPLAY_MEASURE);
      performance.measure(REPLAY_MEASURE, { start: started });
      store.setState({ past: state, reading: false });
      if (store.getState().speed === null) deps.showInAddress?.(target);
    } catch (error) {
      if (token !== seeking) return;
      store.setState({ reading: false, error: `Could not read the room's history: ${(error as Error).message}` });
    }
  }

  function goLive(): void {
    if (isReplayRoom()) return;
    seeking += 1;
    stopPlaying();
    store.setState({ at: null, past: null, arrived: 0, reading: false, error: null });
    deps.showInAddress?.(null);
  }

  /** Plays forward from the moment shown (from the start when live) at `speed`. */
  async function play(speed: PlaySpeed): Promise<void> {
    stopPlaying();
    const { at } = store.getState();
    // From the live room, play its story from the start; at a replay's end, play it again.
    if (at === null || (isReplayRoom() && at >= end())) await seek(1);
    if (!store.getState().past) return;
    store.setState({ speed });
    let playhead: number | null = null;
    let last = now();
    let buffer: StoredEvent[] = [];
    let fetching = false;
    const refill = () => {
      const past = store.getState().past;
      if (fetching || !past || buffer.length > PLAY_AHEAD / 2) return;
      const from = buffer.at(-1)?.seq ?? past.lastSeq;
      if (from >= end()) return;
      fetching = true;
      void replayer()
        .eventsBetween(from, Math.min(end(), from + PLAY_AHEAD))
        .then((events) => {
          buffer = [...buffer, ...events.filter((event) => event.seq > (buffer.at(-1)?.seq ?? from))];
        })
        .catch((error: Error) => store.setState({ error: error.message }))
        .finally(() => {
          fetching = false;
        });
    };
    const tick = () => {
      playTimer = null;
      const state = store.getState();
      if (state.speed === null || !state.past) return;
      const elapsed = now() - last;
      last = now();
      let past = state.past;
      refill();
      const next = buffer[0];
      if (next) {
        const nextTime = Date.parse(next.timestamp);
        playhead ??= Date.parse(past.feed.at(-1)?.timestamp ?? next.timestamp);
        playhead += elapsed * state.speed;
        // A quiet stretch plays as a short pause, whatever its length.
        if ((nextTime - playhead) / state.speed > QUIET_SKIP_MS) playhead = nextTime - QUIET_SKIP_MS * state.speed;
        while (buffer.length > 0 && Date.parse(buffer[0]!.timestamp) <= playhead) {
          const outcome = applyRoomEvent(past, buffer.shift()!);
          if (outcome.kind === "applied") past = outcome.state;
        }
      }
      if (past !== state.past) store.setState({ past, at: past.lastSeq, arrived: live.getState().lastSeq - enteredAt });
      if (past.lastSeq >= end() && buffer.length === 0 && !fetching) {
        // Caught up: a live room carries on live, a replay stops at its end.
        if (isReplayRoom()) {
          stopPlaying();
          deps.showInAddress?.(past.lastSeq);
        } else goLive();
        return;
      }
      playTimer = setTimer(tick, PLAY_TICK_MS);
    };
    refill();
    playTimer = setTimer(tick, PLAY_TICK_MS);
  }

  function pause(): void {
    stopPlaying();
    const { at } = store.getState();
    if (at !== null) deps.showInAddress?.(at);
  }

  // Events arriving live: counted while in the past, marked on the timeline, and replayable.
  const unsubscribe = live.subscribe((state, previous) => {
    if (state.lastSeq === previous.lastSeq) return;
    replay?.extend(state.lastSeq);
    const fresh = state.feed.filter((event) => event.seq > markedTo);
    markedTo = Math.max(markedTo, state.lastSeq);
    const marks = fresh.map(markOf).filter((mark): mark is TimelineMark => mark !== null);
    const timeline = store.getState();
    const changes: Partial<TimelineState> = {};
    if (marks.length) changes.marks = [...timeline.marks, ...marks.filter((mark) => mark.seq > (timeline.marks.at(-1)?.seq ?? 0))];
    if (timeline.at !== null) changes.arrived = state.lastSeq - enteredAt;
    if (Object.keys(changes).length) store.setState(changes);
  });

  async function readInfo(): Promise<void> {
    try {
      const { marks, ...info } = await deps.readInfo();
      const liveMarks = store.getState().marks.filter((mark) => mark.seq > info.lastSeq);
      store.setState({ info, marks: [...marks, ...liveMarks] });
      replay?.extend(info.lastSeq);
    } catch (error) {
      store.setState({ error: `Could not read the room's timeline: ${(error as Error).message}` });
    }
  }

  return {
    store,
    seek,
    goLive,
    play,
    pause,
    readInfo,
    /** The room's last event as far as the timeline knows. */
    end,
    /** Stops playing and drops any seek under way (the page is going away, or React is trying its effects twice). */
    stop() {
      stopPlaying();
      seeking += 1;
    },
    /** Stops, and stops following the live store. */
    dispose() {
      stopPlaying();
      unsubscribe();
      seeking += 1;
    },
  };
}

/** Reads a page of a room's log from the server, keeping the events this page can read (the replay steps over the others). */
export function loadFromServer(roomId: string): LoadEvents {
  return async (after, limit) => {
    const response = await fetch(`/api/rooms/${roomId}/log?after=${after}&limit=${limit}`, { cache: "no-store" });
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    const body = (await response.json()) as { events: unknown };
    return parseStoredEvents(body.events).events;
  };
}
