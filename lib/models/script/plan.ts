// The machinery a scripted persona's plan is built with: a plan is a list of steps, each of
// which reads the prompt (and what the run's earlier calls returned) and says what to write
// and which tools to call, or nothing to skip itself.
import type { Mood } from "./moods";
import type { SeededRandom } from "./random";
import type { PastCall, PromptEntry, ScriptReading } from "./read-prompt";
import { boxOf, freeSpot, homeArea, type Point, shapeOf } from "@/lib/canvas/free-spot";
import { namesTopic, type Topic } from "./topic";

export interface PlannedCall {
  /** Names the call so later steps can find its result. */
  tag: string;
  toolName: string;
  input: Record<string, unknown>;
}

export interface PlannedStep {
  text: string;
  calls: PlannedCall[];
}

export interface PlanContext {
  reading: ScriptReading;
  rng: SeededRandom;
  tools: Set<string>;
  mood: Mood;
  palette: string[];
  subject: string;
  /** What the room's task is about, which every piece names; null when the task names nothing. */
  topic: Topic | null;
  /** The request this run answers, when it was asked for by another agent. */
  request: PromptEntry | null;
  past: (tag: string) => PastCall | undefined;
  createdNodes: () => { id: string; x: number; y: number; text: string }[];
}

export type StepBuilder = (context: PlanContext) => PlannedStep | null;

export function lines(rng: SeededRandom, pool: string[], count: number, prefer: string[] = []): string[] {
  const preferred = pool.filter((line) => prefer.some((word) => line.toLowerCase().includes(word)));
  const rest = rng.sample(
    pool.filter((line) => !preferred.includes(line)),
    pool.length,
  );
  return [...rng.sample(preferred, count), ...rest].slice(0, count);
}

/** Text on one line in at most `max` characters, cut between words (never mid-word) with an ellipsis. */
export function short(text: string, max = 60): string {
  const single = text.replace(/\s+/g, " ").trim();
  if (single.length <= max) return single;
  const cut = single.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

export function nodeIdOf(call: PastCall | undefined): string | undefined {
  const output = call?.output as { node?: { id?: string } } | undefined;
  return call && !call.failed ? output?.node?.id : undefined;
}

export function place(context: PlanContext, anchor: Point): Point {
  // A wish: the canvas the prompt shows may be clipped, and the server moves a node off taken space.
  const occupied = [...context.reading.canvas, ...context.createdNodes().map((node) => ({ ...node, kind: "note" }))];
  return freeSpot(
    anchor,
    occupied.map((node) => boxOf(shapeOf(node))),
  );
}

export function home(context: PlanContext): Point {
  return homeArea(context.reading.persona);
}

export function anchorNearReferences(context: PlanContext): Point {
  const first = context.reading.referenced[0];
  return first ? { x: first.x + 380, y: first.y } : home(context);
}

export function intention(context: PlanContext, text: string, plan: string): PlannedStep | null {
  if (!context.tools.has("share_creative_context")) return null;
  return {
    text,
    calls: [
      {
        tag: "intention",
        toolName: "share_creative_context",
        input: { entryType: "intention", content: { plan } },
      },
    ],
  };
}

/** A contribution to the board; `mood: false` for work that has no mood (an agent without a script). */
export function contribution(
  context: PlanContext,
  summary: string,
  nodeIds: string[],
  options: { mood?: boolean } = {},
): PlannedCall | null {
  if (!context.tools.has("share_creative_context") || nodeIds.length === 0) return null;
  return {
    tag: "contribution",
    toolName: "share_creative_context",
    input: { entryType: "contribution", content: { summary, nodeIds, ...(options.mood === false ? {} : { mood: context.mood.name }) } },
  };
}

export function reaction(context: PlanContext, toEntryId: string | undefined, response: string): PlannedCall | null {
  if (!context.tools.has("share_creative_context") || !toEntryId) return null;
  return {
    tag: "reaction",
    toolName: "share_creative_context",
    input: { entryType: "reaction", content: { toEntryId, response } },
  };
}

export function edge(context: PlanContext, tag: string, sourceId: string | undefined, targetId: string | undefined, label: string) {
  if (!context.tools.has("create_edge") || !sourceId || !targetId || sourceId === targetId) return null;
  return { tag, toolName: "create_edge", input: { sourceId, targetId, label } } satisfies PlannedCall;
}

export function node(context: PlanContext, tag: string, kind: string, text: string, at: Point, color?: string): PlannedCall | null {
  if (!context.tools.has("create_node")) return null;
  return {
    tag,
    toolName: "create_node",
    input: { kind, text, x: at.x, y: at.y, ...(color ? { color } : {}) },
  };
}

export const present = <T>(items: (T | null | undefined)[]): T[] => items.filter((item): item is T => item != null);

export function requesterName(context: PlanContext): string {
  return context.request?.author ?? "a teammate";
}

/** The latest contribution by the requester touching the referenced nodes: what a reaction answers. */
export function answeredEntryId(context: PlanContext): string | undefined {
  const refs = new Set(context.reading.referenced.map((node) => node.id));
  const contributions = context.reading.board.filter(
    (entry) => entry.kind === "contribution" && (!context.request || entry.author === context.request.author),
  );
  const touching = contributions.find((entry) => ((entry.content.nodeIds as string[] | undefined) ?? []).some((id) => refs.has(id)));
  return touching?.id ?? context.request?.id ?? contributions[0]?.id;
}

export function latestOtherContribution(context: PlanContext): PromptEntry | undefined {
  return context.reading.board.find((entry) => entry.kind === "contribution" && entry.author !== context.reading.name);
}

/**
 * Whether the findings the prompt shows hold a high one that names `gap` (" but no shared
 * theme"): the team has been told, and one high finding about it is enough.
 */
export function flaggedHigh(reading: Pick<ScriptReading, "findings">, gap: string): boolean {
  return reading.findings.some((finding) => finding.severity === "high" && finding.text.includes(gap));
}

/** How many nodes the canvas holds, also those the prompt left out for its budget. */
export function canvasSize(reading: Pick<ScriptReading, "canvas" | "canvasTotal">): number {
  return Math.max(reading.canvasTotal, reading.canvas.length);
}

export function finalStep(text: string): StepBuilder {
  return () => ({ text, calls: [] });
}

/**
 * Where a run starts in a pool of `length` items when it takes `need` of them: further along
 * the fuller the canvas is, by half its need (at least one item) per node. The prompt shows
 * only the newest nodes, so a run cannot see what its persona wrote a few turns ago; but every
 * run of a scripted persona adds two nodes or more, so the runs of one persona start at least
 * `need` items apart and take shares of the pool that do not overlap, until the canvas has
 * grown by as many nodes as the pool holds shares.
 */
export function poolStart(canvasTotal: number, need: number, length: number): number {
  return length ? (canvasTotal * Math.ceil(need / 2)) % length : 0;
}

/**
 * What a persona can still say that is not on the canvas yet: the items of its mood's pool
 * (`pick`) from this run's start (`poolStart`) on, without those a node it can see already
 * holds. Only when everything has been used does it repeat itself.
 */
export function fresh(context: Pick<PlanContext, "reading" | "mood" | "createdNodes">, pick: (mood: Mood) => string[], need = 1): string[] {
  const pool = pick(context.mood);
  const used = [...context.reading.canvas.map((item) => item.text), ...context.createdNodes().map((item) => item.text)].map((text) =>
    text.toLowerCase(),
  );
  const start = poolStart(context.reading.canvasTotal, need, pool.length);
  const rotated = [...pool.slice(start), ...pool.slice(0, start)];
  const unused = rotated.filter((item) => !used.some((text) => text.includes(item.toLowerCase().slice(0, 40))));
  return unused.length >= need ? unused : [...unused, ...rotated.filter((item) => !unused.includes(item))];
}

/** A pool narrowed to the items that name what the task is about, when any do. */
export function aboutTopic(context: Pick<PlanContext, "topic">, pick: (mood: Mood) => string[]): (mood: Mood) => string[] {
  return (mood) => {
    const pool = pick(mood);
    const named = pool.filter((item) => namesTopic(item, context.topic));
    return named.length ? named : pool;
  };
}

/**
 * `count` items of this run's share of a pool (see `fresh`, taking `need`), at least one of
 * which names what the task is about: the lines of a verse may wander through the mood's
 * imagery, never all of them away from the task.
 */
export function freshNamingTopic(
  context: Pick<PlanContext, "reading" | "mood" | "createdNodes" | "topic">,
  pick: (mood: Mood) => string[],
  count: number,
  need = count,
): string[] {
  const share = fresh(context, pick, need).slice(0, count);
  if (share.some((item) => namesTopic(item, context.topic))) return share;
  const named = fresh(context, aboutTopic(context, pick))[0];
  return named && namesTopic(named, context.topic) ? [named, ...share.slice(0, count - 1)] : share;
}
