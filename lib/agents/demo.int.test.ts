import { and, asc, eq, gte, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agents, boardEntries, canvasNodes, events, rooms, runs } from "@/db/schema";
import { initialRoomState, nextTurn, nextTurnLabel } from "@/components/room/room-state";
import { getEnv } from "@/lib/env";
import type { PayloadOf } from "@/lib/protocol";
import { ensureDemoRoom } from "@/lib/rooms/ensure-demo-room";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { scheduleRoom } from "./scheduler";

const context = useTestRuntime();

// The demo's clock is simulated (see below); every test ends on the real one.
afterEach(() => {
  vi.useRealTimers();
});

/** Ten minutes of the demo room at its default pace, with the agents working at full speed. */
const MINUTES = 10;
/** The longest a watcher may look at the room with nothing moving and no countdown saying when something will. */
const QUIET_LIMIT_SECONDS = 20;
/**
 * How far from the time its countdown gave a named persona may start for the countdown to have
 * told the truth: the scheduler ticks once a second, and a turn is taken at the first tick due.
 */
const ON_TIME_MS = 2_000;
/** How much longer than one scheduling interval the room may go without anything happening in it. */
const ACTIVITY_MARGIN_SECONDS = 5;
/** How the offline model types by default: a pause before each step, then one word at a time. */
const { PARLEY_SCRIPT_PACE_MS: PACE_MS, PARLEY_SCRIPT_THINK_MS: THINK_MS } = getEnv({} as NodeJS.ProcessEnv);

/**
 * What a task is about, as words a piece of work must name to be about it: the content words
 * of the phrase after "about", up to the next thing the task asks for ("Write a song about rain
 * on a city window at night and paint…" → rain, city, window, night). What the room makes (a
 * song, a scene) and the imagery a mood brings with it (umbrellas, the last bus) are not the task.
 */
function subjectWords(task: string): string[] {
  const about = task.match(/\babout\s+(.+?)(?:\s+and\s+|[.!?]|$)/i)?.[1] ?? task;
  return [
    ...new Set(
      about
        .toLowerCase()
        .split(/[^a-z]+/)
        .filter((word) => word.length > 3),
    ),
  ];
}

/** Matches a text that names one of `words`, in any of its plain forms: rain, rains, rainy, raining; city, cities. */
function namesAnyOf(words: string[]): RegExp {
  const forms = words.map((word) => (word.endsWith("y") ? `${word.slice(0, -1)}(?:y|ies)` : `${word}(?:s|es|y|ing|ed)?`));
  return new RegExp(`\\b(?:${forms.join("|")})\\b`, "i");
}

const PLACEHOLDER = /\(nothing at the moment\)|\(none\)|undefined|\[object Object\]|\bnull\b|NaN/;

/** How long a step of the offline model takes to watch at the default pace: its think time, then its words. */
function watchedStepMs(text: string): number {
  return THINK_MS + (text.match(/\S+/g)?.length ?? 0) * PACE_MS;
}

/**
 * The longest stretch of [from, to] that none of `covered` (half-open spans) covers and no
 * moment in `moments` breaks up.
 */
function longestQuietStretch(covered: [number, number][], moments: number[], from: number, to: number): number {
  const spans = [...covered, ...moments.map((moment): [number, number] => [moment, moment])].sort((a, b) => a[0] - b[0]);
  let longest = 0;
  let quietSince = from;
  for (const [start, end] of spans) {
    if (start > to) break;
    if (start > quietSince) longest = Math.max(longest, start - quietSince);
    quietSince = Math.max(quietSince, end);
  }
  return Math.max(longest, to - quietSince);
}

/** A line as a reader compares it: lower case, words only. */
function plain(line: string): string {
  return line
    .toLowerCase()
    .replace(/[^a-z]+/g, " ")
    .trim();
}

/**
 * The texts that read as a copy of an earlier one: the same words, whatever their order, case
 * and punctuation, or half or more of their lines already written before.
 */
function nearDuplicates(texts: string[]): string[] {
  const seenWords = new Set<string>();
  const seenLines = new Set<string>();
  const copies: string[] = [];
  for (const text of texts) {
    const lines = text.split("\n").map(plain).filter(Boolean);
    const words = [...new Set(lines.join(" ").split(" "))].sort().join(" ");
    const repeated = lines.filter((line) => seenLines.has(line)).length;
    if (seenWords.has(words) || (lines.length > 0 && repeated * 2 >= lines.length)) copies.push(text);
    seenWords.add(words);
    for (const line of lines) seenLines.add(line);
  }
  return copies;
}

/** What a board entry says in words: its text values, without the ids and colours it carries. */
function entryWords(content: unknown, key = ""): string[] {
  if (typeof content === "string") return /Ids?$|^palette$/.test(key) ? [] : [content];
  if (Array.isArray(content)) return /Ids?$|^palette$/.test(key) ? [] : content.flatMap((item) => entryWords(item, key));
  if (content && typeof content === "object") return Object.entries(content).flatMap(([name, value]) => entryWords(value, name));
  return [];
}

describe("the measures the demo is held to", () => {
  it("finds the longest stretch neither covered nor broken up by a moment", () => {
    expect(longestQuietStretch([[0, 45]], [], 0, 100)).toBe(55);
    expect(
      longestQuietStretch(
        [
          [0, 45],
          [90, 135],
        ],
        [60],
        0,
        135,
      ),
    ).toBe(30);
    expect(
      longestQuietStretch(
        [
          [10, 20],
          [15, 30],
        ],
        [],
        0,
        30,
      ),
    ).toBe(10);
    expect(longestQuietStretch([], [], 0, 20)).toBe(20);
  });

  it("counts near-copies as duplicates, not only exact ones", () => {
    expect(nearDuplicates(["Spark: Rain as a knock", "spark: rain, as a knock!", "Spark: Rain as a letter"])).toEqual([
      "spark: rain, as a knock!",
    ]);
    expect(nearDuplicates(["Thread: rain · window · bus", "Thread: bus · rain · window"])).toEqual(["Thread: bus · rain · window"]);
    const verses = [
      "Verse\nRain on the glass\nA lamp left on\nThe last bus\nAn empty chair",
      "Verse\nA lamp left on\nThe last bus\nPuddles\nStreetlights",
    ];
    expect(nearDuplicates(verses)).toEqual([verses[1]]);
    expect(nearDuplicates([...verses.slice(0, 1), "Verse\nA lamp left on\nPuddles\nStreetlights\nAn umbrella"])).toEqual([]);
  });

  it("reads what a task is about, and knows a text that names it", () => {
    const words = subjectWords("Write a song about rain on a city window at night and paint the scene it describes.");
    expect(words).toEqual(["rain", "city", "window", "night"]);
    const onTask = namesAnyOf(words);
    for (const text of ["Rain taps the glass", "A rainy street", "Two cities", "Windows as pages", "Nights go on"])
      expect(text).toMatch(onTask);
    for (const text of [
      "Verse\nA cold cup of tea\nThe last bus",
      "Scene: an umbrella",
      "A song for the Scene Painter",
      "Midnight",
      "Raindrops",
    ]) {
      expect(text).not.toMatch(onTask);
    }
  });

  it("reads a board entry's words without its ids and colours", () => {
    expect(
      entryWords({ summary: "Wrote a verse", nodeIds: ["n-1"], toEntryId: "e-1", palette: ["#fff"], keywords: ["rain", "window"] }),
    ).toEqual(["Wrote a verse", "rain", "window"]);
  });
});

describe("the demo room, watched for ten minutes", () => {
  it("has every persona working in the first five minutes, never a quiet page, little repetition, and only its own task", async () => {
    // The simulated clock: it jumps from one scheduler tick to the next and, in between, moves
    // with the real one while the agents work at full speed.
    const start = Math.ceil(Date.now() / 1000) * 1000;
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true, now: start });
    const simulated = () => Date.now() - start;
    const db = context.database.db;

    const { id: roomId } = await ensureDemoRoom(db);
    const [room] = await db.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId));
    const settings = parseRoomSettings(room!.settings);
    const onTask = namesAnyOf(subjectWords(settings.task));
    const worker = await startTestWorker(context.database);
    const ranBy: { minute: number; persona: string }[] = [];
    /**
     * What the page's header said of the next turn ("next: Storyteller in 12 s"), on the simulated
     * clock: from when, who, and when it said that persona would start; `settled` once the turn
     * before it had finished all it set going.
     */
    const countdowns: { from: number; to: number; persona: string; settled: boolean }[] = [];
    const pageCountsDown = async (settled: boolean) => {
      const now = Date.now();
      const next = nextTurn(initialRoomState(await getRoomSnapshot(db, roomId), null));
      if (next?.at && /^in \d+ s$/.test(nextTurnLabel(next.at, now))) {
        countdowns.push({ from: now - start, to: next.at - start, persona: next.agent.persona, settled });
      }
      return next;
    };
    /** The scheduler's tick at `second` of the simulated clock, and everything the turn it starts sets going. */
    const tick = async (second: number) => {
      if (simulated() < second * 1000) vi.setSystemTime(start + second * 1000);
      const outcome = await scheduleRoom(db, roomId);
      if (outcome.kind === "skipped" && outcome.reason === "not_due") return;
      await pageCountsDown(false);
      if (outcome.kind === "skipped") return;
      if (outcome.kind === "random") ranBy.push({ minute: second / 60, persona: outcome.persona });
      // Everything the turn set going (requests, help, answers) finishes before the next tick.
      await eventually(async () => {
        const active = await db
          .select({ id: runs.id })
          .from(runs)
          .where(and(eq(runs.roomId, roomId), inArray(runs.status, ["queued", "running"])));
        expect(active).toHaveLength(0);
      }, 30_000);
      // What the page shows once the turn is done: who is next, and when.
      expect(await pageCountsDown(true)).not.toBeNull();
    };
    const team = await db.select({ id: agents.id, persona: agents.persona }).from(agents).where(eq(agents.roomId, roomId));
    const memberId = (persona: string) => team.find((agent) => agent.persona === persona)!.id;
    const [storyteller, songwriter] = [memberId("storyteller"), memberId("songwriter")];
    /** The Storyteller's help requests the Songwriter answered, and the pieces it made with an answer. */
    const helpGiven = async () => {
      const answered = (
        await db
          .select({ payload: events.payload })
          .from(events)
          .where(and(eq(events.roomId, roomId), eq(events.type, "help.answered")))
      )
        .map((row) => row.payload as PayloadOf<"help.answered">)
        .filter((help) => help.answered && help.askerAgentId === storyteller && help.helperAgentId === songwriter);
      const used = (
        await db.select({ text: canvasNodes.text, authorId: canvasNodes.authorId }).from(canvasNodes).where(eq(canvasNodes.roomId, roomId))
      ).filter((node) => node.authorId === storyteller && node.text.startsWith("With Songwriter's help — “"));
      return { answered, used };
    };
    try {
      // The scheduler ticks once a second, as it does in the app.
      for (let second = 0; second < MINUTES * 60; second++) await tick(second);
    } finally {
      await worker.stop();
    }

    // Every persona took a scheduled turn within the first five minutes.
    const early = new Set(ranBy.filter((turn) => turn.minute < 5).map((turn) => turn.persona));
    expect([...early].sort()).toEqual(["curator", "idea-weaver", "scene-painter", "songwriter", "storyteller"]);
    const roomRuns = await db
      .select({ id: runs.id, createdAt: runs.createdAt, agentId: runs.agentId, trigger: runs.trigger })
      .from(runs)
      .where(eq(runs.roomId, roomId));
    const personaOf = new Map(team.map((agent) => [agent.id, agent.persona]));
    const started = roomRuns
      .filter((run) => run.trigger === "scheduler")
      .map((run) => ({ at: run.createdAt.getTime() - start, persona: personaOf.get(run.agentId)! }));
    /** A countdown told the truth when the persona it named started when it said, give or take a tick. */
    const kept = (countdown: (typeof countdowns)[number]) =>
      started.some((turn) => turn.persona === countdown.persona && Math.abs(turn.at - countdown.to) <= ON_TIME_MS);
    const watched = countdowns.filter((countdown) => countdown.to <= MINUTES * 60_000 - ON_TIME_MS);
    // Once a turn is done, the page's "next: …" named the persona the scheduler then started, when it said, every time.
    const settled = watched.filter((countdown) => countdown.settled);
    expect(settled.length).toBeGreaterThan(MINUTES);
    expect(settled.filter((countdown) => !kept(countdown))).toEqual([]);

    // Never more than 20 s with nothing to watch: a run at work (as long as it takes to watch it
    // typed at the default pace), a new event in the feed, or a countdown to the next turn that
    // then starts as it said (one that names someone else, or a time when nobody starts, counts
    // for nothing).
    const feed = await db
      .select({ type: events.type, payload: events.payload, createdAt: events.createdAt })
      .from(events)
      .where(and(eq(events.roomId, roomId), gte(events.createdAt, new Date(start))))
      .orderBy(asc(events.seq));
    const stepsOf = new Map<string, string[]>();
    for (const event of feed.filter((row) => row.type === "run.step")) {
      const step = event.payload as PayloadOf<"run.step">;
      stepsOf.set(step.runId, [...(stepsOf.get(step.runId) ?? []), step.text]);
    }
    const working = roomRuns.map((run): [number, number] => {
      const from = run.createdAt.getTime() - start;
      return [from, from + (stepsOf.get(run.id) ?? []).reduce((total, text) => total + watchedStepMs(text), 0)];
    });
    const moments = feed.map((event) => event.createdAt.getTime() - start);
    const honest = watched.filter(kept).map((countdown): [number, number] => [countdown.from, countdown.to]);
    const quiet = longestQuietStretch([...working, ...honest], moments, 0, MINUTES * 60_000);
    expect(quiet / 1000).toBeLessThanOrEqual(QUIET_LIMIT_SECONDS);
    // And the room itself is never still for longer than one turn of the scheduler: without the
    // countdown, something works or arrives in every interval.
    const still = longestQuietStretch(working, moments, 0, MINUTES * 60_000);
    expect(still / 1000).toBeLessThanOrEqual(settings.scheduler_interval_seconds + ACTIVITY_MARGIN_SECONDS);

    // Little repetition on the canvas, counting near-copies too.
    const nodes = await db
      .select({ text: canvasNodes.text })
      .from(canvasNodes)
      .where(eq(canvasNodes.roomId, roomId))
      .orderBy(asc(canvasNodes.createdAt));
    const texts = nodes.map((node) => node.text);
    const copies = nearDuplicates(texts);
    console.log(
      `demo, ${MINUTES} minutes: ${ranBy.length} scheduled turns, ${texts.length} nodes, ${copies.length} near-duplicate texts (${((copies.length / texts.length) * 100).toFixed(1)}%), longest quiet stretch ${(quiet / 1000).toFixed(1)} s, longest with nothing at work or arriving ${(still / 1000).toFixed(1)} s`,
    );
    if (process.env.SHOW_TEXTS)
      console.log(
        texts
          .map((text) => `${copies.includes(text) ? "COPY " : "     "}${onTask.test(text) ? "   " : "OFF"} ${text.replace(/\n/g, " / ")}`)
          .join("\n"),
      );
    expect(texts.length).toBeGreaterThan(20);
    expect(copies.length / texts.length).toBeLessThanOrEqual(0.1);

    // Nothing that reads as a placeholder, on the canvas, on the board or in what the agents said.
    const entries = await db.select({ content: boardEntries.content }).from(boardEntries).where(eq(boardEntries.roomId, roomId));
    const said = feed.filter((event) => event.type === "run.step").map((event) => (event.payload as PayloadOf<"run.step">).text);
    const boardTexts = entries.map((entry) => entryWords(entry.content).join("\n"));
    expect(entries.length).toBeGreaterThan(20);
    for (const text of [...texts, ...said, ...boardTexts]) expect(text).not.toMatch(PLACEHOLDER);

    // Findings graded as a team would grade them: an observation about one's own work low, others' work to link with
    // medium, and high rare: only what a big canvas lacks, said once, not by everyone who sees it after.
    const findings = (
      await db
        .select({ content: boardEntries.content })
        .from(boardEntries)
        .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "finding")))
    ).map((entry) => entry.content as { finding: string; severity: string });
    const graded = (severity: string) => findings.filter((finding) => finding.severity === severity);
    expect(graded("low").length).toBeGreaterThan(0);
    expect(graded("medium").length).toBeGreaterThan(0);
    expect(graded("high").length).toBeLessThanOrEqual(Math.max(1, findings.length / 5));
    for (const high of graded("high")) expect(high.finding).toMatch(/^The canvas holds \d+ pieces but no shared theme/);

    // Every piece on the canvas and every entry on the board is about the room's own task: it names what the task is about.
    const offTask = texts.filter((text) => !onTask.test(text));
    const boardOffTask = boardTexts.filter((text) => !onTask.test(text));
    if (process.env.SHOW_TEXTS) console.log(`board entries off the task:\n${boardOffTask.join("\n")}`);
    expect(offTask).toEqual([]);
    expect(boardOffTask).toEqual([]);

    // The task is the room's own; no run was handed a second subject beside it.
    const prompts = (await db.select({ prompt: runs.prompt, trigger: runs.trigger }).from(runs).where(eq(runs.roomId, roomId)))
      .filter((run) => run.trigger === "scheduler")
      .map((run) => run.prompt);
    for (const prompt of prompts) {
      expect(prompt).toMatch(/^Write a song about rain on a city window at night and paint the scene it describes\./);
      expect(prompt).not.toMatch(/lighthouse|leaving home/);
    }

    // The Storyteller asked the Songwriter for a line to open with, and made a piece with the answer. Whether a
    // run asks is the offline model's seeded coin (about one run in two) and the answer is used in the next run,
    // so should the ten minutes not have held both, the room goes on until it has, for at most forty more
    // (about fifteen more Storyteller runs: the chance of none of them asking is one in tens of thousands).
    const more = await startTestWorker(context.database);
    let second = MINUTES * 60;
    try {
      for (; second < 5 * MINUTES * 60; second++) {
        const { answered, used } = await helpGiven();
        if (answered.length > 0 && used.length > 0) break;
        await tick(second);
      }
    } finally {
      await more.stop();
    }
    const given = await helpGiven();
    console.log(
      `demo, ${(second / 60).toFixed(1)} minutes: ${given.answered.length} help requests answered, ${given.used.length} answers used`,
    );
    expect(given.answered.length).toBeGreaterThan(0);
    expect(given.used.length).toBeGreaterThan(0);
  }, 480_000);
});
