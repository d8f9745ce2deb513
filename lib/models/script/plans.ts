import { detectMood, findMood, imagesIn, type Mood, MOODS } from "./moods";
import type { SeededRandom } from "./random";
import type { ScriptReading } from "./read-prompt";
import { withAsking } from "./asking";
import type { StepBuilder } from "./plan";
import { curator } from "./personas/curator";
import { ideaWeaver } from "./personas/idea-weaver";
import { scenePainter } from "./personas/scene-painter";
import { songwriter } from "./personas/songwriter";
import { storyteller } from "./personas/storyteller";
import { generalist } from "./personas/generalist";
import { withTeamwork } from "./teamwork";
import { subjectOf, type Topic, topicOf } from "./topic";

export type { PlanContext, PlannedStep } from "./plan";
export { shadowAnswer } from "./shadow-answer";

/**
 * Each persona's plan, by its key (which is also its name in `script:<name>`): it shares its
 * intention, may ask others (as the room's sensitivity says) or a teammate for help, works,
 * and leaves a finding and an insight before it finishes.
 */
export const PLANS: Record<string, StepBuilder[]> = {
  songwriter: withTeamwork(withAsking(songwriter)),
  "scene-painter": withTeamwork(withAsking(scenePainter)),
  "idea-weaver": withTeamwork(withAsking(ideaWeaver)),
  storyteller: withTeamwork(withAsking(storyteller)),
  curator: withTeamwork(withAsking(curator)),
};

/** The plan of any persona without a script of its own: it works on the room's task in plain notes. */
export const GENERALIST_PLAN: StepBuilder[] = withTeamwork(withAsking(generalist));

/**
 * Mood and palette: an active theme on the board wins; otherwise the room's own task (its
 * brief), when it speaks of a mood, so that every run of the room keeps to it even once the
 * theme has left the part of the board a prompt shows; otherwise what the prompt talks about.
 */
export function chooseMood(
  reading: ScriptReading,
  rng: SeededRandom,
): { mood: Mood; palette: string[]; source: "theme" | "text" | "default" } {
  const theme = reading.board.find((entry) => entry.kind === "theme");
  if (theme) {
    const named = findMood(String(theme.content.mood ?? ""));
    const keywords = Array.isArray(theme.content.keywords) ? (theme.content.keywords as string[]).join(" ") : "";
    const mood = named ?? detectMood(`${String(theme.content.mood ?? "")} ${keywords}`).mood;
    const palette =
      Array.isArray(theme.content.palette) && theme.content.palette.length ? (theme.content.palette as string[]) : mood.palette;
    return { mood, palette, source: "theme" };
  }
  const brief = detectMood(reading.roomBrief);
  if (brief.hits > 0) return { mood: brief.mood, palette: brief.mood.palette, source: "text" };
  const text = [
    reading.task,
    ...reading.requests.map((request) => String(request.content.ask ?? "")),
    ...reading.referenced.map((ref) => ref.text),
  ].join(" ");
  const detected = detectMood(text);
  if (detected.hits > 0) return { mood: detected.mood, palette: detected.mood.palette, source: "text" };
  const mood = rng.pick(MOODS);
  return { mood, palette: mood.palette, source: "default" };
}

/**
 * What the work is about: the subject of the room's own task (its brief), so every run of the
 * room keeps to it, whatever a request or a help question adds; in a room without a task, the
 * subject of what this run was asked. Null when neither names one.
 */
export function chooseTopic(reading: ScriptReading): Topic | null {
  const phrase = subjectOf(reading.roomBrief) ?? subjectOf(reading.task);
  return phrase ? topicOf(phrase) : null;
}

/** A short phrase for what the work is about: the topic's, else an image the work was pointed at, else the mood's first. */
export function chooseSubject(reading: ScriptReading, mood: Mood, topic: Topic | null): string {
  if (topic) return topic.phrase;
  const referenced = reading.referenced.map((ref) => imagesIn(ref.text, mood)).flat();
  return referenced[0] ?? mood.images[0]!;
}
