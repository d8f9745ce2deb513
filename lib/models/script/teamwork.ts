// Team memory in the scripted personas' plans: acting on participants' messages and on
// answers to help requests first, asking a teammate for help without waiting, answering a
// help request in one reply, and leaving a finding and an insight before finishing.
import { ownValue } from "@/lib/own-value";
import { type Mood, beatsOf, castAs, lightOf, protagonistOf, scenesOf, sparksOf, versesOf, withArticle } from "./moods";
import { hashString } from "./random";
import { type PlanContext, type PlannedStep, type StepBuilder, aboutTopic, canvasSize, fresh, home, lines, place, short } from "./plan";
import type { PromptMessage, ScriptReading } from "./read-prompt";
import { taskFinding, taskHelpAnswer, taskHelpQuestion, taskInsight, taskResponse } from "./personas/generalist";
import { moodAbout, namesTopic, taskSubjectOf, topicOf } from "./topic";

/** The tag of the step that acted on a message: the same message is never acted on twice. */
export function messageTag(message: PromptMessage): string {
  return `msg-${hashString(message.line).toString(36)}`;
}

/** What each persona makes when asked for something directly: a node kind, and how many items of which of its pools. */
const RESPONSES: Record<string, { kind: string; parts: { pool: (mood: Mood) => string[]; count: number }[] }> = {
  songwriter: { kind: "lyric", parts: [{ pool: versesOf, count: 4 }] },
  "scene-painter": {
    kind: "scene",
    parts: [
      { pool: scenesOf, count: 1 },
      { pool: lightOf, count: 1 },
    ],
  },
  "idea-weaver": { kind: "idea", parts: [{ pool: sparksOf, count: 3 }] },
  storyteller: {
    kind: "story",
    parts: (["opening", "turn", "ending"] as const).map((part) => ({ pool: (mood: Mood) => beatsOf(mood, part), count: 1 })),
  },
  curator: {
    kind: "note",
    parts: [{ pool: (mood) => mood.images.map((image) => `Gather everything about ${image} in one place`), count: 2 }],
  },
};

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/\W+/)
    .filter((word) => word.length > 3);

/**
 * `count` items of a pool the canvas does not hold yet, each naming what the task is about:
 * those that speak of what was asked (`prefer`) first, then this run's share of the pool (see `fresh`).
 */
function answerLines(context: PlanContext, pool: (mood: Mood) => string[], count: number, prefer: string[]): string[] {
  const unused = fresh(context, aboutTopic(context, pool), count);
  const matching = unused.filter((line) => prefer.some((word) => line.toLowerCase().includes(word)));
  return lines(context.rng, [...new Set([...matching.slice(0, count), ...unused])].slice(0, count), count, prefer);
}

/**
 * The context a command is acted on in: what it asks for ("a sea shanty", "a lighthouse") is the
 * piece's subject, its images first among the mood's, so the piece takes up what was asked rather
 * than the room's usual subject. A command that names no subject ("make it rhyme") keeps the room's.
 */
function commandContext(context: PlanContext, message: PromptMessage): PlanContext {
  const phrase = message.kind === "command" ? taskSubjectOf(message.body) : null;
  if (!phrase) return context;
  const topic = topicOf(phrase);
  // What the piece is of ("a love song", "a ghost story") says its form; what it is about comes next ("a robot").
  const focus = topic.images.find((image) => !FORMS.test(image)) ?? phrase;
  return { ...context, topic: topicOf(focus), subject: phrase, mood: moodAbout(context.mood, topic) };
}

/** Images that name a piece's form rather than its subject. */
const FORMS =
  /\b(song|songs|verse|verses|chorus|story|stories|tale|scene|scenes|lullaby|shanty|poem|ballad|painting|picture|sketch|ideas?|sparks?|space|board)$/i;

/** Text quoted in a title, without quotation marks of its own: a quote cut short never leaves one open. */
function quoted(text: string, max: number): string {
  return `“${short(text.replace(/["“”]/g, ""), max)}”`;
}

/** What a help answer offers to use: the line it quotes ("Open with “…”"), else the answer itself. */
function offered(body: string): string {
  return body.match(/“([^”]+)”/)?.[1] ?? body;
}

/** The step that acts on one message: a node made for it, saying whom it answers. */
export function messageStep(outer: PlanContext, message: PromptMessage): PlannedStep | null {
  if (!outer.tools.has("create_node")) return null;
  const context = commandContext(outer, message);
  const response = ownValue(RESPONSES, context.reading.persona);
  // A persona without a script of its own answers about the room's task, not in another persona's voice.
  const { kind, body } = response
    ? {
        kind: response.kind,
        body: castStory(
          context,
          response.parts.flatMap((part) => answerLines(context, part.pool, part.count, words(message.body))),
        ).join("\n"),
      }
    : taskResponse(context, message);
  const title =
    message.kind === "command"
      ? `As ${message.from} asked — ${quoted(message.body, 70)}`
      : `With ${message.from}'s help — ${quoted(offered(message.body), 70)}`;
  const at = place(context, { x: home(context).x, y: home(context).y - 280 });
  return {
    text:
      message.kind === "command"
        ? `${message.from} asked me to ${short(message.body.replace(/^(please|could you|can you)\s+/i, ""), 80)} — doing that now.`
        : `${message.from} answered my question; I'm using it.`,
    calls: [{ tag: messageTag(message), toolName: "create_node", input: { kind, text: `${title}\n${body}`, x: at.x, y: at.y } }],
  };
}

/** A story's lines told about the room's one character (see `protagonistOf`); any other piece's as they are. */
function castStory(context: PlanContext, lines: string[]): string[] {
  if (context.reading.persona !== "storyteller") return lines;
  const stories = context.reading.canvas.filter((item) => item.kind === "story").map((item) => item.text);
  const hero = protagonistOf(stories, context.reading.roomBrief || context.subject);
  return lines.map((line) => castAs(line, hero));
}

/** Whether a run was started only to act on messages (its task says so). */
export function isMessageRun(reading: ScriptReading): boolean {
  return /sent you a message \(under "Messages for you"\)/.test(reading.task);
}

const HELP_TASK = /^(.+?) asks for your help: (.+)$/s;

/** A help request's run: one reply, which goes back to the asker as the answer. */
export function helpAnswer(context: PlanContext): PlannedStep | null {
  const asked = context.reading.task.match(HELP_TASK);
  if (!asked) return null;
  const response = ownValue(RESPONSES, context.reading.persona);
  if (!response) return { text: taskHelpAnswer(context, asked[2]!), calls: [] };
  // Best of all a line of its own work the canvas shows; else one it has not written yet.
  const pool = response.parts[0]!.pool;
  const mineNodes = context.reading.canvas.filter((item) => item.author === context.reading.name);
  const mineText = mineNodes.map((item) => item.text.toLowerCase()).join("\n");
  const written = aboutTopic(context, pool)(context.mood).filter((line) => mineText.includes(line.toLowerCase()));
  const line = written.length ? context.rng.pick(written) : answerLines(context, pool, 1, words(asked[2]!))[0];
  const mine = mineNodes.length;
  return {
    text: `Open with “${line}” — it keeps the ${context.mood.name} feel${mine ? ` of the ${mine} piece${mine === 1 ? "" : "s"} I have on the canvas` : ""}.`,
    calls: [],
  };
}

/** Who asks whom for help, and what: the Storyteller asks the Songwriter for a line to open with. */
const HELP_QUESTIONS: Record<string, { target: string; question: (context: PlanContext) => string }> = {
  storyteller: {
    target: "songwriter",
    question: (context) => `Which line of your lyrics should my ${context.mood.name} story about ${short(context.subject, 40)} open with?`,
  },
};

/**
 * Asks a teammate for help without waiting for the answer (it arrives as a message later): a
 * scripted persona asks its usual partner; an agent without a script asks a teammate about a
 * part of the room's task.
 */
const helpStep: StepBuilder = (context) => {
  if (!context.tools.has("request_help") || context.request) return null;
  const scripted = ownValue(RESPONSES, context.reading.persona) !== undefined;
  const own = ownValue(HELP_QUESTIONS, context.reading.persona);
  const ask = own ? { target: own.target, question: own.question(context) } : scripted ? null : taskHelpQuestion(context);
  if (!ask || !context.reading.team.some((member) => member.persona === ask.target)) return null;
  // Not every run: about one in two, as the run's own seed decides.
  if (context.rng.next() < 0.5) return null;
  return {
    text: own ? "I'll ask for a line to start from while I keep writing." : "I'll ask a teammate about one part while I keep working.",
    calls: [{ tag: "help", toolName: "request_help", input: { target: ask.target, question: ask.question } }],
  };
};

/** What a big canvas lacks, in the finding that says so. */
const NO_THEME = " but no shared theme";

/** A finding's words for a piece: its line that holds `word`, without a heading or quotation marks of its own. */
function pieceWords(text: string, word: string): string {
  const line = text
    .split("\n")
    .map((part) => part.trim())
    .filter((part) => part && !/^(Verse|Chorus|Scene:?|Spark:?)$/i.test(part) && !/^(As .+ asked|With .+ help) —/.test(part))
    .find((part) => part.toLowerCase().includes(word));
  return short((line ?? text).replace(/^(Scene|Spark|Opening|Turn|Ending):\s*/i, "").replace(/["“”]/g, ""), 48);
}

const CONTENT_WORD = /[a-z][a-z']{3,}/g;
const PLAIN_WORDS = new Set([
  "with",
  "that",
  "this",
  "from",
  "into",
  "over",
  "only",
  "every",
  "nobody",
  "where",
  "when",
  "there",
  "their",
  "still",
]);

/** The content words two texts share, in the order the first has them. */
function sharedWords(a: string, b: string): string[] {
  const theirs = new Set((b.toLowerCase().match(CONTENT_WORD) ?? []).filter((word) => !PLAIN_WORDS.has(word)));
  return [...new Set((a.toLowerCase().match(CONTENT_WORD) ?? []).filter((word) => theirs.has(word)))];
}

/**
 * What a persona notes for the team after its work, worded as what it is: a suggestion (medium)
 * when a big canvas has no theme and no finding in sight says so yet; otherwise an observation
 * (low) that names a teammate's piece and one of its own that share an image, so a link between
 * them would make one thread. Nothing when it has nothing specific to say.
 */
function findingFor(context: PlanContext, made: number): { finding: string; severity: "low" | "medium" | "high" } | null {
  if (!ownValue(RESPONSES, context.reading.persona)) return taskFinding(context, made);
  const { reading, mood } = context;
  const hasTheme = reading.board.some((entry) => entry.kind === "theme");
  const themeFlagged = reading.findings.some((shown) => shown.text.includes(NO_THEME));
  if (canvasSize(reading) >= 12 && !hasTheme && !themeFlagged) {
    return {
      finding: `The canvas holds ${canvasSize(reading)} pieces${NO_THEME}; ${withArticle(mood.name)} theme about ${short(context.subject, 50)} would tie them together.`,
      severity: "medium",
    };
  }
  const mine = context.createdNodes().map((item) => item.text);
  for (const other of reading.canvas.filter((item) => item.author !== reading.name)) {
    for (const own of mine) {
      // In a room with a task, only what the task is about is worth a link.
      const shared = sharedWords(other.text, own).find((word) => namesTopic(word, context.topic));
      if (!shared) continue;
      const [theirs, ours] = [pieceWords(other.text, shared), pieceWords(own, shared)];
      // Said once: the same pair is not noted again, by this run or a later one.
      if (reading.findings.some((shown) => shown.text.includes(theirs) && shown.text.includes(ours))) continue;
      const finding = `${other.author}'s “${theirs}” and my “${ours}” both turn on “${shared}”; a link between them would make one thread.`;
      return { finding, severity: "low" };
    }
  }
  return null;
}

/** Before finishing: a finding for the team (when there is one worth sharing) and an insight for later rooms. */
const memoryStep: StepBuilder = (context) => {
  const made = context.createdNodes().length;
  if (made === 0) return null;
  const calls: PlannedStep["calls"] = [];
  const finding = findingFor(context, made);
  const alreadyPosted = context.reading.findings.some((shown) => shown.text.includes(finding?.finding ?? "\u0000"));
  if (finding && context.tools.has("post_finding") && !alreadyPosted) {
    calls.push({
      tag: "finding",
      toolName: "post_finding",
      input: {
        ...finding,
        nodeIds: context
          .createdNodes()
          .map((item) => item.id)
          .slice(0, 5),
      },
    });
  }
  if (context.tools.has("update_knowledge")) {
    const response = ownValue(RESPONSES, context.reading.persona);
    // A general lesson about its craft, in its own words: it goes with the agent to other people's rooms,
    // so it names nothing of this room's task.
    const learned = response
      ? {
          insight: `${mood(context)} ${response.kind} pieces hold together when every one names the task's own images.`,
          area: `${context.mood.name} ${response.kind}`,
        }
      : taskInsight(context);
    calls.push({
      tag: "knowledge",
      toolName: "update_knowledge",
      input: { ...learned, general: true, amount: Math.min(10, 1 + made) },
    });
  }
  return calls.length
    ? { text: finding && calls[0]?.tag === "finding" ? "Noting what I found for the team." : "Noting what I learned.", calls }
    : null;
};

function mood(context: PlanContext): string {
  return `${context.mood.name[0]!.toUpperCase()}${context.mood.name.slice(1)}`;
}

/** A persona's plan with teamwork: help asked after its first step, memory kept before its last. */
export function withTeamwork(builders: StepBuilder[]): StepBuilder[] {
  const [first, ...rest] = builders;
  const last = rest.pop();
  return [first!, helpStep, ...rest, memoryStep, ...(last ? [last] : [])];
}
