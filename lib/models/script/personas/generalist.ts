// The plan of a persona the offline model has no script for (an imported team's agent): it
// works on the room's own task in plain notes — what matters, a first step, an open question —
// and asks, answers and notes things about that task, never borrowing another persona's
// verses, scenes or moods.
import type { PromptMessage, ScriptReading } from "../read-prompt";
import { answerFrom } from "../answers";
import {
  type PlanContext,
  type PlannedStep,
  canvasSize,
  contribution,
  flaggedHigh,
  home,
  intention,
  node,
  place,
  present,
  short,
  type StepBuilder,
} from "../plan";

const STOP = new Set([
  "the",
  "a",
  "an",
  "and",
  "or",
  "of",
  "to",
  "for",
  "in",
  "on",
  "with",
  "that",
  "this",
  "it",
  "is",
  "are",
  "be",
  "your",
  "our",
  "their",
  "its",
  "from",
  "by",
  "at",
  "as",
  "into",
  "about",
  "write",
  "make",
  "build",
  "should",
  "what",
  "which",
  "how",
  "would",
  "could",
  "you",
  "come",
  "first",
  "part",
  "handle",
  "start",
  "then",
  "than",
  "there",
  "here",
  "please",
  "can",
  "will",
  "all",
  "any",
  "some",
  "one",
  "two",
  "asks",
  "help",
  "team",
  "room",
  "canvas",
  "check",
  "shared",
  "context",
  "respond",
  "pending",
  "requests",
  "themes",
]);

/** The words that carry a task: "Review the scraper's retry logic" → scraper's, retry, logic. */
export function keyTerms(task: string, count = 3): string[] {
  const seen = new Set<string>();
  const words = task
    .toLowerCase()
    .replace(/[^a-z0-9'\s-]/g, " ")
    .split(/\s+/)
    .map((word) => word.replace(/^['-]+|['-]+$/g, ""))
    .filter((word) => word.length > 2 && !STOP.has(word) && !seen.has(word) && seen.add(word));
  return words.slice(0, count);
}

/** The task without the room's framing: the first sentence of what was asked. */
function taskOf(text: string): string {
  const line =
    text
      .split("\n")
      .map((part) => part.trim())
      .find(Boolean) ?? text;
  return line.replace(/\s+Check the shared context.*$/, "");
}

const HELP_TASK = /^(.+?) asks for your help: (.+)$/s;

/**
 * What an agent without a script works on: the room's task (its brief, else what this run was
 * asked), and the words that carry it. A help request's run still works on the room's task.
 */
function taskFocus(reading: Pick<ScriptReading, "task" | "roomBrief">): { task: string; terms: string[] } {
  const asked = reading.task.match(HELP_TASK)?.[2];
  const task = taskOf(reading.roomBrief || asked || reading.task);
  const terms = keyTerms(task, 6);
  return { task, terms: terms.length ? terms : ["the task"] };
}

/** The question an agent without a script asks the others: which part of its task comes first. */
export function taskQuestion(context: Pick<PlanContext, "reading" | "rng">): { question: string; options: string[] } {
  const { task, terms } = taskFocus(context.reading);
  const [a, b] = terms.length >= 2 ? context.rng.sample(terms, 2) : [terms[0]!, undefined];
  return b
    ? { question: `For “${short(task, 70)}”: what should come first — ${a} or ${b}?`, options: [a!, b] }
    : { question: `For “${short(task, 70)}”: should ${a} come first?`, options: ["yes", "something else"] };
}

/** A teammate to ask for help, and what: how they would handle one part of the task. */
export function taskHelpQuestion(context: PlanContext): { target: string; question: string } | null {
  const others = context.reading.team.filter((member) => member.name !== context.reading.name);
  if (others.length === 0) return null;
  const target = context.rng.pick(others);
  const { task, terms } = taskFocus(context.reading);
  return { target: target.persona, question: `How would you handle the ${context.rng.pick(terms)} part of “${short(task, 60)}”?` };
}

/** The words of `text` that are also the task's, else the task's own. */
function sharedTerms(text: string, terms: string[]): string[] {
  const lower = text.toLowerCase();
  const shared = terms.filter((term) => lower.includes(term));
  return shared.length ? [...shared, ...terms.filter((term) => !shared.includes(term))] : terms;
}

/** A node that acts on a message (a participant's, or a teammate's answer), written about the task. */
export function taskResponse(context: PlanContext, message: PromptMessage): { kind: string; body: string } {
  const { task, terms } = taskFocus(context.reading);
  const [first, second = first] = sharedTerms(message.body, terms);
  return {
    kind: "note",
    body: [
      `- For: ${short(task, 80)}`,
      `- Doing: ${short(message.body, 90)}, starting with the ${first} part.`,
      `- Then: a small check that ${second} still works.`,
    ].join("\n"),
  };
}

/** The one-reply answer to a help request, about the task and the part asked about. */
export function taskHelpAnswer(context: PlanContext, asked: string): string {
  const { task, terms } = taskFocus(context.reading);
  const [first, second = first] = sharedTerms(asked, terms);
  const mine = context.reading.canvas.filter((item) => item.author === context.reading.name).length;
  return (
    `For the ${first} part of “${short(task, 60)}”: start with a small, testable version of ${first}, then bring in ${second}` +
    `${mine ? ` — as in the ${mine} note${mine === 1 ? "" : "s"} I have on the canvas` : ""}.`
  );
}

/** What a big canvas lacks, in the high finding that says so. */
const NO_PLAN = " but no shared plan";

/** What an agent without a script notes for the team after its work, and how serious it is (graded as a persona's). */
export function taskFinding(context: PlanContext, made: number): { finding: string; severity: "low" | "medium" | "high" } | null {
  const { reading } = context;
  const { task, terms } = taskFocus(reading);
  const others = reading.canvas.filter((item) => item.author !== reading.name);
  if (canvasSize(reading) >= 12 && !reading.board.some((entry) => entry.kind === "theme") && !flaggedHigh(reading, NO_PLAN)) {
    return {
      finding: `The canvas holds ${canvasSize(reading)} notes on “${short(task, 50)}”${NO_PLAN}; one summary of ${terms.slice(0, 2).join(" and ")} would tie them together.`,
      severity: "high",
    };
  }
  if (others.length >= 3) {
    const authors = [...new Set(others.map((item) => item.author))].slice(0, 2).join(" and ");
    return {
      finding: `${authors}'s notes and mine both cover ${terms[0]}; linking them would make one plan for “${short(task, 50)}”.`,
      severity: "medium",
    };
  }
  if (made > 0)
    return { finding: `A first pass at “${short(task, 60)}” is on the canvas: ${terms.slice(0, 3).join(", ")}.`, severity: "low" };
  return null;
}

/** What an agent without a script keeps for later rooms: the step that worked, and its area. */
export function taskInsight(context: PlanContext): { insight: string; area: string } {
  const { terms } = taskFocus(context.reading);
  return {
    insight: "Starting a task with a small, testable first step, then widening it, worked.",
    area: `${terms[0]} work`,
  };
}

export const generalist: StepBuilder[] = [
  (context) => {
    const { task } = taskFocus(context.reading);
    return intention(context, `I'll take a first pass at: ${short(task, 90)}.`, `First pass at: ${short(task, 80)}`);
  },
  (context): PlannedStep => {
    const { task, terms } = taskFocus(context.reading);
    // Each later pass starts further along the task's terms, so an agent's notes do not repeat.
    const mine = context.reading.canvas.filter((item) => item.author === context.reading.name).length;
    const offset = mine % terms.length;
    const [first = "the task", second = first, third = second] = [...terms.slice(offset), ...terms.slice(0, offset)];
    const others = context.reading.canvas.filter((item) => item.author !== context.reading.name).length;
    const answer = answerFrom(context);
    const text = [
      mine
        ? `${context.reading.name} on “${short(task, 60)}”, pass ${mine + 1}: ${first}`
        : `${context.reading.name} on “${short(task, 70)}”`,
      ...(answer ? [`- Agreed with ${answer.by}: ${short(answer.text, 90)}`] : []),
      mine
        ? `- Building on my earlier note: ${first} next, with ${second} kept as it is.`
        : `- What matters: getting ${first} and ${second} right before anything else.`,
      `- First step: a small, testable version of the ${third} part.`,
      `- Open question: ${others ? `how this fits the ${others} note${others === 1 ? "" : "s"} already on the canvas` : `what "done" means for ${first}`}?`,
    ].join("\n");
    return {
      text: answer ? `Going with ${answer.by}'s answer. Here is how I would start.` : "Here is how I would start.",
      calls: present([node(context, "take", "note", text, place(context, home(context)))]),
    };
  },
  (context) => {
    const made = context.createdNodes().map((item) => item.id);
    const shared = contribution(context, `A first pass at ${short(taskFocus(context.reading).task, 60)}`, made, { mood: false });
    return shared ? { text: "Sharing it with the team.", calls: [shared] } : null;
  },
  () => ({ text: "My first pass is on the canvas.", calls: [] }),
];
