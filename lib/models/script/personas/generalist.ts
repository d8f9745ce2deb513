// The plan of a persona the offline model has no script for (an imported team's agent): it
// works on the room's own task in plain notes — what matters, a first step, an open question —
// rather than borrowing another persona's verses and scenes.
import { contribution, home, intention, node, place, present, short, type StepBuilder } from "../plan";

const STOP = new Set(["the", "a", "an", "and", "or", "of", "to", "for", "in", "on", "with", "that", "this", "it", "is", "are", "be", "your", "our", "their", "its", "from", "by", "at", "as", "into", "about", "write", "make", "build"]);

/** The words that carry a task: "Review the scraper's retry logic" → scraper's, retry, logic. */
export function keyTerms(task: string, count = 3): string[] {
  const seen = new Set<string>();
  const words = task
    .toLowerCase()
    .replace(/[^a-z0-9'\s-]/g, " ")
    .split(/\s+/)
    .filter((word) => word.length > 2 && !STOP.has(word) && !seen.has(word) && seen.add(word));
  return words.slice(0, count);
}

/** The task without the room's framing: the first sentence of what was asked. */
function taskOf(text: string): string {
  const line = text.split("\n").map((part) => part.trim()).find(Boolean) ?? text;
  return line.replace(/\s+Check the shared context.*$/, "");
}

export const generalist: StepBuilder[] = [
  (context) => intention(context, `I'll take a first pass at: ${short(taskOf(context.reading.task), 90)}.`, `First pass at: ${short(taskOf(context.reading.task), 80)}`),
  (context) => {
    const task = taskOf(context.reading.task);
    const [first = "the task", second = first, third = second] = keyTerms(task);
    const others = context.reading.canvas.filter((item) => item.author !== context.reading.name).length;
    const text = [
      `${context.reading.name} on “${short(task, 70)}”`,
      `- What matters: getting ${first} and ${second} right before anything else.`,
      `- First step: a small, testable version of the ${third} part.`,
      `- Open question: ${others ? `how this fits the ${others} piece${others === 1 ? "" : "s"} already on the canvas` : `what "done" means for ${first}`}?`,
    ].join("\n");
    return {
      text: "Here is how I would start.",
      calls: present([node(context, "take", "note", text, place(context, home(context)))]),
    };
  },
  (context) => {
    const made = context.createdNodes().map((item) => item.id);
    const shared = contribution(context, `A first pass at ${short(taskOf(context.reading.task), 60)}`, made);
    return shared ? { text: "Sharing it with the team.", calls: [shared] } : null;
  },
  () => ({ text: "My first pass is on the canvas.", calls: [] }),
];
