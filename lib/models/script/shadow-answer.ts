import { detectMood } from "./moods";
import type { SeededRandom } from "./random";
import type { ScriptReading } from "./read-prompt";
import { short } from "./plan";
import { ownValue } from "@/lib/own-value";
import { keyTerms } from "./personas/generalist";

const SHADOW_VOICES: Record<string, string> = {
  songwriter: "From the lyrics side",
  "scene-painter": "From the painting side",
  "idea-weaver": "As the one throwing sparks",
  storyteller: "Thinking about the story",
  curator: "Looking at the whole canvas",
};

/** What the shadow made last (or is making now), and the option it picks: the one its work leans to. */
function leaning(shadow: NonNullable<ScriptReading["shadow"]>, rng: SeededRandom): { piece: string | null; choice: string | null } {
  const piece = shadow.ownWork.at(-1) ?? (shadow.currentWork.trim() || null);
  const pieceWords = (piece ?? "").toLowerCase();
  const choice = shadow.options.length
    ? (shadow.options.find((option) => pieceWords.includes(option.toLowerCase().split(" ").pop() ?? "")) ?? rng.pick(shadow.options))
    : null;
  return { piece, choice };
}

/** A shadow's answer: in the agent's voice, drawing on what it made, as thorough as the depth asks. */
export function shadowAnswer(reading: ScriptReading, rng: SeededRandom): string {
  const voice = ownValue(SHADOW_VOICES, reading.persona);
  // An agent without a script answers about the task in the question, not about moods.
  if (!voice) return taskShadowAnswer(reading, rng);
  const shadow = reading.shadow!;
  const mood = detectMood(`${shadow.ownWork.join(" ")} ${shadow.currentWork} ${shadow.question}`).mood;
  const { piece, choice } = leaning(shadow, rng);
  const lead = choice ? `${voice}: go with ${choice}.` : `${voice}: keep it ${mood.name} and simple.`;
  if (shadow.depth === "low") return `${lead} It fits the ${mood.name} mood.`;
  const medium = `${lead} ${piece ? `I made “${short(piece.replace(/\n/g, " / "), 70)}” earlier, and ${choice ?? "that"} carries the same feeling.` : `It keeps the ${mood.name} mood we already have on the canvas.`}`;
  if (shadow.depth === "medium") return medium;
  const current = shadow.currentWork.trim() ? ` Right now I'm working on “${short(shadow.currentWork, 60)}”, which we can tie in.` : "";
  return `${medium} Concretely: ${rng.pick(mood.light)}, a palette of ${mood.paletteWords}, and one image that returns throughout — ${rng.pick(mood.images)}.${current}`;
}

/** A shadow's answer for an agent without a script: about the question's task, from its own notes. */
function taskShadowAnswer(reading: ScriptReading, rng: SeededRandom): string {
  const shadow = reading.shadow!;
  const { piece, choice } = leaning(shadow, rng);
  const terms = keyTerms(`${shadow.question} ${reading.roomBrief || reading.task}`, 6);
  const [first = "the task", second = first, third = second] = terms.filter((term) => term !== choice?.toLowerCase());
  const lead = choice ? `From my side: go with ${choice}.` : `From my side: keep to ${first} and start small.`;
  if (shadow.depth === "low") return `${lead} It is the quickest way to a working ${first}.`;
  const medium = `${lead} ${piece ? `My note “${short(piece.replace(/\n/g, " / "), 70)}” points the same way.` : `It keeps ${first} testable from the start.`}`;
  if (shadow.depth === "medium") return medium;
  const current = shadow.currentWork.trim() ? ` Right now I'm on “${short(shadow.currentWork, 60)}”, which we can tie in.` : "";
  return `${medium} Concretely: build ${choice ?? first} first, check it against ${second}, then add ${third}.${current}`;
}
