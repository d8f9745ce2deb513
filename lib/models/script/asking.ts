// Asking others at a natural point of a plan (after sharing an intention), as often as the
// room's sensitivity says, and reading the answer back in later steps.
import { MOODS } from "./moods";
import { ownValue } from "@/lib/own-value";
import type { PlanContext, StepBuilder } from "./plan";
import { taskQuestion } from "./personas/generalist";

const QUESTIONS: Record<string, (context: PlanContext) => { question: string; options: string[] }> = {
  songwriter: (context) => {
    const [a, b] = context.rng.sample(context.mood.images, 2);
    return { question: `Which image should carry the verse: ${a} or ${b}?`, options: [a!, b!] };
  },
  "scene-painter": (context) => {
    const [a, b] = context.rng.sample(context.mood.light, 2);
    return b
      ? { question: `Which light should the scene have: ${a} or ${b}?`, options: [a!, b] }
      : { question: `Should the scene be lit by ${a}?`, options: ["yes", "something else"] };
  },
  "idea-weaver": (context) => {
    const other = MOODS.filter((mood) => mood.name !== context.mood.name);
    const alternative = context.rng.pick(other).name;
    return {
      question: `Which way should the sparks go: ${context.mood.name} or ${alternative}?`,
      options: [context.mood.name, alternative],
    };
  },
  storyteller: () => ({
    question: "Whose eyes should the story see through: the one who stays or the one who leaves?",
    options: ["the one who stays", "the one who leaves"],
  }),
  curator: () => ({
    question: "Should I group the canvas by mood or by who made it?",
    options: ["by mood", "by who made it"],
  }),
};

function shouldAsk(context: PlanContext): boolean {
  if (!context.tools.has("ask_others") || !context.reading.broadcast || context.request) return false;
  const { sensitivity } = context.reading.broadcast;
  return sensitivity === "high" || (sensitivity === "medium" && context.rng.chance(0.5));
}

/** A scripted persona asks about its craft; any other agent asks which part of its task comes first. */
function questionFor(context: PlanContext) {
  return (ownValue(QUESTIONS, context.reading.persona) ?? taskQuestion)(context);
}

/** Asks others at a natural point (after sharing an intention), as often as the room's sensitivity says. */
const askStep: StepBuilder = (context) => {
  if (!shouldAsk(context)) return null;
  const { question, options } = questionFor(context);
  return {
    text: "Before I start, let me check with the others.",
    calls: [{ tag: "ask", toolName: "ask_others", input: { question, options } }],
  };
};

/** Each persona shares its intention, may ask others (as the room's sensitivity says), then works. */
export const withAsking = (plan: StepBuilder[]): StepBuilder[] => [plan[0]!, askStep, ...plan.slice(1)];
