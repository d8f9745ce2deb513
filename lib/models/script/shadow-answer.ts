import { detectMood } from "./moods";
import type { SeededRandom } from "./random";
import type { ScriptReading } from "./read-prompt";
import { short } from "./plan";
import { ownValue } from "@/lib/own-value";

const SHADOW_VOICES: Record<string, string> = {
  songwriter: "From the lyrics side",
  "scene-painter": "From the painting side",
  "idea-weaver": "As the one throwing sparks",
  storyteller: "Thinking about the story",
  curator: "Looking at the whole canvas",
};

/** A shadow's answer: in the agent's voice, drawing on what it made, as thorough as the depth asks. */
export function shadowAnswer(reading: ScriptReading, rng: SeededRandom): string {
  const shadow = reading.shadow!;
  const mood = detectMood(`${shadow.ownWork.join(" ")} ${shadow.currentWork} ${shadow.question}`).mood;
  const piece = shadow.ownWork.at(-1) ?? (shadow.currentWork.trim() || null);
  const pieceWords = (piece ?? "").toLowerCase();
  const choice = shadow.options.length
    ? (shadow.options.find((option) => pieceWords.includes(option.toLowerCase().split(" ").pop() ?? "")) ?? rng.pick(shadow.options))
    : null;
  const voice = ownValue(SHADOW_VOICES, reading.persona) ?? "From my side";
  const lead = choice ? `${voice}: go with ${choice}.` : `${voice}: keep it ${mood.name} and simple.`;
  if (shadow.depth === "low") return `${lead} It fits the ${mood.name} mood.`;
  const medium = `${lead} ${piece ? `I made “${short(piece.replace(/\n/g, " / "), 70)}” earlier, and ${choice ?? "that"} carries the same feeling.` : `It keeps the ${mood.name} mood we already have on the canvas.`}`;
  if (shadow.depth === "medium") return medium;
  const current = shadow.currentWork.trim() ? ` Right now I'm working on “${short(shadow.currentWork, 60)}”, which we can tie in.` : "";
  return `${medium} Concretely: ${rng.pick(mood.light)}, a palette of ${mood.paletteWords}, and one image that returns throughout — ${rng.pick(mood.images)}.${current}`;
}

