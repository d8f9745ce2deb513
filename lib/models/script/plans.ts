import { type Mood, MOODS, detectMood, findMood, imagesIn } from "./moods";
import type { SeededRandom } from "./random";
import type { PastCall, PromptEntry, PromptNode, ScriptReading } from "./read-prompt";
import { type Point, freeSpot, homeArea } from "@/lib/canvas/free-spot";
import { ownValue } from "@/lib/own-value";

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
  /** The request this run answers, when it was asked for by another agent. */
  request: PromptEntry | null;
  past: (tag: string) => PastCall | undefined;
  createdNodes: () => { id: string; x: number; y: number; text: string }[];
}

export type StepBuilder = (context: PlanContext) => PlannedStep | null;

const PERSONA_NAMES: Record<string, string> = {
  brainstormer: "Idea Weaver",
  architect: "Scene Painter",
  coder: "Songwriter",
  analyst: "Storyteller",
  "canvas-agent": "Creative Curator",
};

function lines(rng: SeededRandom, pool: string[], count: number, prefer: string[] = []): string[] {
  const preferred = pool.filter((line) => prefer.some((word) => line.toLowerCase().includes(word)));
  const rest = rng.sample(
    pool.filter((line) => !preferred.includes(line)),
    pool.length,
  );
  return [...rng.sample(preferred, count), ...rest].slice(0, count);
}

function short(text: string, max = 60): string {
  const single = text.replace(/\s+/g, " ").trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}

function nodeIdOf(call: PastCall | undefined): string | undefined {
  const output = call?.output as { node?: { id?: string } } | undefined;
  return call && !call.failed ? output?.node?.id : undefined;
}

function place(context: PlanContext, anchor: Point): Point {
  const occupied = [
    ...context.reading.canvas.map((node) => ({ x: node.x, y: node.y })),
    ...context.createdNodes().map((node) => ({ x: node.x, y: node.y })),
  ];
  return freeSpot(anchor, occupied);
}

function home(context: PlanContext): Point {
  return homeArea(context.reading.persona);
}

function anchorNearReferences(context: PlanContext): Point {
  const first = context.reading.referenced[0];
  return first ? { x: first.x + 380, y: first.y } : home(context);
}

function intention(context: PlanContext, text: string, plan: string): PlannedStep | null {
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

function contribution(context: PlanContext, summary: string, nodeIds: string[]): PlannedCall | null {
  if (!context.tools.has("share_creative_context") || nodeIds.length === 0) return null;
  return {
    tag: "contribution",
    toolName: "share_creative_context",
    input: { entryType: "contribution", content: { summary, nodeIds, mood: context.mood.name } },
  };
}

function reaction(context: PlanContext, toEntryId: string | undefined, response: string): PlannedCall | null {
  if (!context.tools.has("share_creative_context") || !toEntryId) return null;
  return {
    tag: "reaction",
    toolName: "share_creative_context",
    input: { entryType: "reaction", content: { toEntryId, response } },
  };
}

function edge(context: PlanContext, tag: string, sourceId: string | undefined, targetId: string | undefined, label: string) {
  if (!context.tools.has("create_edge") || !sourceId || !targetId || sourceId === targetId) return null;
  return { tag, toolName: "create_edge", input: { sourceId, targetId, label } } satisfies PlannedCall;
}

function node(context: PlanContext, tag: string, kind: string, text: string, at: Point, color?: string): PlannedCall | null {
  if (!context.tools.has("create_node")) return null;
  return {
    tag,
    toolName: "create_node",
    input: { kind, text, x: at.x, y: at.y, ...(color ? { color } : {}) },
  };
}

const present = <T>(items: (T | null | undefined)[]): T[] => items.filter((item): item is T => item != null);

function requesterName(context: PlanContext): string {
  return context.request?.author ?? "a teammate";
}

/** The latest contribution by the requester touching the referenced nodes: what a reaction answers. */
function answeredEntryId(context: PlanContext): string | undefined {
  const refs = new Set(context.reading.referenced.map((node) => node.id));
  const contributions = context.reading.board.filter(
    (entry) => entry.kind === "contribution" && (!context.request || entry.author === context.request.author),
  );
  const touching = contributions.find((entry) =>
    ((entry.content.nodeIds as string[] | undefined) ?? []).some((id) => refs.has(id)),
  );
  return touching?.id ?? context.request?.id ?? contributions[0]?.id;
}

function latestOtherContribution(context: PlanContext): PromptEntry | undefined {
  return context.reading.board.find((entry) => entry.kind === "contribution" && entry.author !== context.reading.name);
}

function finalStep(text: string): StepBuilder {
  return () => ({ text, calls: [] });
}


/* ───────────── Asking others (ask_others) ───────────── */

interface Answer {
  by: string;
  text: string;
}

const QUESTIONS: Record<string, (context: PlanContext) => { question: string; options: string[] }> = {
  coder: (context) => {
    const [a, b] = context.rng.sample(context.mood.images, 2);
    return { question: `Should the verse lean on ${a} or on ${b}?`, options: [a!, b!] };
  },
  architect: (context) => {
    const [a, b] = context.rng.sample(context.mood.light, 2);
    return b
      ? { question: `Which light should the scene have: ${a} or ${b}?`, options: [a!, b] }
      : { question: `Should the scene be lit by ${a}?`, options: ["yes", "something else"] };
  },
  brainstormer: (context) => {
    const other = MOODS.filter((mood) => mood.name !== context.mood.name);
    const alternative = context.rng.pick(other).name;
    return {
      question: `Which way should the sparks go: ${context.mood.name} or ${alternative}?`,
      options: [context.mood.name, alternative],
    };
  },
  analyst: () => ({
    question: "Whose eyes should the story see through: the one who stays or the one who leaves?",
    options: ["the one who stays", "the one who leaves"],
  }),
  "canvas-agent": () => ({
    question: "Should I group the canvas by mood or by who made it?",
    options: ["by mood", "by who made it"],
  }),
};

function shouldAsk(context: PlanContext): boolean {
  if (!context.tools.has("ask_others") || !context.reading.broadcast || context.request) return false;
  const { sensitivity } = context.reading.broadcast;
  return sensitivity === "high" || (sensitivity === "medium" && context.rng.chance(0.5));
}

function questionFor(context: PlanContext) {
  return (ownValue(QUESTIONS, context.reading.persona) ?? QUESTIONS.coder!)(context);
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

/** When the people's earlier answers came back instead of a prompt and none of them answers this, ask again. */
const askAgainStep: StepBuilder = (context) => {
  const first = context.past("ask");
  const output = first?.output as { status?: string; human_qa_history?: { question: string }[] } | undefined;
  if (!first || first.failed || output?.status !== "deferred") return null;
  const asked = String(first.input.question ?? "");
  if ((output.human_qa_history ?? []).some((qa) => qa.question === asked)) return null;
  return {
    text: "Those earlier answers don't settle my question, so I'll ask it directly.",
    calls: [
      {
        tag: "ask-again",
        toolName: "ask_others",
        input: { question: `To be specific: ${asked}`, options: first.input.options ?? [] },
      },
    ],
  };
};

/** The answer this run got to its question, if any: a person's or a teammate's. */
export function answerFrom(context: PlanContext): Answer | null {
  for (const call of [context.past("ask-again"), context.past("ask")]) {
    if (!call || call.failed) continue;
    const output = call.output as {
      status?: string;
      responses?: { responder_name?: string; responder_id?: string; content: string }[];
      human_qa_history?: { answer: string }[];
    };
    const first = output.responses?.[0];
    if (first) return { by: first.responder_name ?? first.responder_id ?? "someone", text: first.content };
    const last = output.human_qa_history?.at(-1);
    if (output.status === "deferred" && last) return { by: "the people here", text: last.answer };
  }
  return null;
}

function answerWords(answer: Answer | null): string[] {
  return answer ? answer.text.toLowerCase().split(/\W+/).filter((word) => word.length > 3) : [];
}

/* ───────────── Songwriter ───────────── */

const songwriter: StepBuilder[] = [
  (context) =>
    context.request
      ? intention(
          context,
          `${requesterName(context)} asked me: “${short(String(context.request.content.ask ?? ""), 80)}” I'll answer in a ${context.mood.name} key.`,
          `Writing ${context.mood.name} lyrics for ${requesterName(context)}'s request`,
        )
      : intention(
          context,
          `I'll write a ${context.mood.name} verse about ${context.subject}.`,
          `Writing a ${context.mood.name} verse about ${context.subject}`,
        ),
  (context) => {
    const answer = answerFrom(context);
    const prefer = [
      ...answerWords(answer),
      ...context.subject.toLowerCase().split(/\W+/),
      ...context.reading.referenced.flatMap((ref) => imagesIn(ref.text, context.mood)),
    ].filter((word) => word.length > 3);
    const verse = lines(context.rng, context.mood.verse, 4, prefer).join("\n");
    const title = answer ? `Verse — after ${answer.by}: “${short(answer.text, 80)}”` : "Verse";
    const chorus = lines(context.rng, context.mood.chorus, context.request ? 2 : 4).join("\n");
    const anchor = context.request ? anchorNearReferences(context) : home(context);
    const versePoint = place(context, anchor);
    const chorusPoint = place({ ...context, createdNodes: () => [...context.createdNodes(), { id: "", text: "", ...versePoint }] }, {
      x: versePoint.x,
      y: versePoint.y + 250,
    });
    if (!context.tools.has("create_node")) {
      return { text: `Here is what I would put on the canvas:\n\n${title}\n${verse}\n\nChorus\n${chorus}`, calls: [] };
    }
    return {
      text: answer
        ? `Going with ${answer.by}'s answer: “${short(answer.text, 80)}”. Verse first, then the chorus.`
        : context.request
          ? "Here are the lines."
          : "Verse first, then the chorus.",
      calls: present([
        node(context, "verse", "lyric", `${title}\n${verse}`, versePoint),
        node(context, "chorus", "lyric", `Chorus\n${chorus}`, chorusPoint),
      ]),
    };
  },
  (context) => {
    const verse = nodeIdOf(context.past("verse"));
    const chorus = nodeIdOf(context.past("chorus"));
    const created = present([verse, chorus]);
    const refs = context.reading.referenced;
    return {
      text: "Sharing what I wrote so the others can build on it.",
      calls: present([
        edge(context, "verse-chorus", verse, chorus, "leads to"),
        ...(context.request ? refs.slice(0, 1).map((ref) => edge(context, "answers", verse, ref.id, "answers")) : []),
        contribution(
          context,
          context.request
            ? `Wrote ${context.mood.name} lyrics answering ${requesterName(context)}`
            : `Wrote a 4-line verse and a chorus about ${context.subject}`,
          created,
        ),
      ]),
    };
  },
  (context) => {
    if (context.request) {
      const call = reaction(
        context,
        context.request.id,
        `Wrote a ${context.mood.name} verse from your ${context.reading.referenced.length ? "sparks" : "request"}`,
      );
      return call ? { text: "", calls: [call] } : null;
    }
    if (!context.tools.has("request_agent")) return null;
    const refNodeIds = present([nodeIdOf(context.past("verse")), nodeIdOf(context.past("chorus"))]);
    if (refNodeIds.length === 0) return null;
    const images = imagesIn(String(context.past("verse")?.input.text ?? ""), context.mood).slice(0, 2);
    return {
      text: "I'd love to see this painted.",
      calls: [
        {
          tag: "request",
          toolName: "request_agent",
          input: {
            targetPersona: "architect",
            prompt: `Paint a visual scene that captures the ${context.mood.name} ${images.join(" and ") || "imagery"} from my lyrics`,
            refNodeIds,
          },
        },
      ],
    };
  },
  (context) => {
    const request = context.past("request");
    if (context.request) return { text: `Done — my answer to ${requesterName(context)} is on the canvas.`, calls: [] };
    if (request && !request.failed) {
      return { text: "The verse and chorus are on the canvas, and the Scene Painter is on its way to illustrate them.", calls: [] };
    }
    if (request?.failed) {
      const reason = (request.output as { error?: string } | undefined)?.error ?? "the request was refused";
      return { text: `The lyrics are on the canvas. I couldn't bring in the Scene Painter: ${reason}`, calls: [] };
    }
    return { text: "The verse and chorus are on the canvas.", calls: [] };
  },
];

/* ───────────── Scene Painter ───────────── */

function sceneText(context: PlanContext): { main: string; detail: string } {
  const fromRefs = context.reading.referenced.flatMap((ref) => imagesIn(ref.text, context.mood));
  const images = [...new Set(fromRefs)].slice(0, 3);
  const base = context.rng.pick(context.mood.scenes);
  const main = images.length
    ? `Scene: ${base}. In the foreground: ${images.join(", ")}.`
    : `Scene: ${base}.`;
  const answer = answerFrom(context);
  const light = answer ? answer.text : context.rng.pick(context.mood.light);
  const detail = `Light: ${light}${answer ? ` (as ${answer.by} suggested)` : ""}.\nPalette: ${context.mood.paletteWords} (${context.palette.join(" ")}).`;
  return { main, detail };
}

const scenePainter: StepBuilder[] = [
  (context) => {
    if (context.request) {
      const images = [...new Set(context.reading.referenced.flatMap((ref) => imagesIn(ref.text, context.mood)))];
      return intention(
        context,
        `Reading ${requesterName(context)}'s lines — I see ${images.slice(0, 3).join(", ") || "the mood more than the objects"}. I'll paint it in ${context.mood.paletteWords}.`,
        `Painting a scene that illustrates ${requesterName(context)}'s ${context.mood.name} lyrics`,
      );
    }
    return intention(context, `I'll paint ${context.subject} in ${context.mood.paletteWords}.`, `Painting ${context.subject}`);
  },
  (context) => {
    const { main, detail } = sceneText(context);
    const anchor = context.request ? anchorNearReferences(context) : home(context);
    const mainPoint = place(context, anchor);
    const detailPoint = place(
      { ...context, createdNodes: () => [...context.createdNodes(), { id: "", text: "", ...mainPoint }] },
      { x: mainPoint.x, y: mainPoint.y + 250 },
    );
    const tint = context.palette[context.palette.length - 1];
    return {
      text: "Laying down the scene and its light.",
      calls: present([
        node(context, "scene", "scene", main, mainPoint, tint),
        node(context, "scene-detail", "scene", detail, detailPoint, tint),
      ]),
    };
  },
  (context) => {
    const scene = nodeIdOf(context.past("scene"));
    const detail = nodeIdOf(context.past("scene-detail"));
    const refs = context.reading.referenced;
    if (context.request && refs.length) {
      return {
        text: "Connecting the painting to the words it illustrates.",
        calls: present([
          edge(context, "illustrates", scene, refs[0]!.id, "illustrates"),
          edge(context, "echoes", detail, (refs[1] ?? refs[0])!.id, "echoes"),
        ]),
      };
    }
    return {
      text: "Sharing the scene with the team.",
      calls: present([
        edge(context, "scene-detail", scene, detail, "lit by"),
        contribution(context, `Painted ${short(context.subject, 50)} in ${context.mood.paletteWords}`, present([scene, detail])),
      ]),
    };
  },
  (context) => {
    if (!context.request) return null;
    const main = String(context.past("scene")?.input.text ?? sceneText(context).main);
    const created = present([nodeIdOf(context.past("scene")), nodeIdOf(context.past("scene-detail"))]);
    return {
      text: "",
      calls: present([
        contribution(context, `Painted a scene for ${requesterName(context)}'s lyrics`, created),
        reaction(
          context,
          answeredEntryId(context),
          `Created ${short(main.replace(/^Scene: /, ""), 70).toLowerCase()} with a ${context.mood.paletteWords} palette to match the ${context.mood.name} mood`,
        ),
      ]),
    };
  },
  (context) => ({
    text: context.request
      ? `The scene now illustrates ${requesterName(context)}'s verse.`
      : "The scene is on the canvas for anyone who wants to write into it.",
    calls: [],
  }),
];

/* ───────────── Idea Weaver ───────────── */

const ideaWeaver: StepBuilder[] = [
  (context) =>
    intention(
      context,
      `Let me gather a few sparks around ${context.subject}.`,
      `Gathering ${context.mood.name} sparks about ${context.subject}`,
    ),
  (context) => {
    const answer = answerFrom(context);
    const sparks = context.rng.sample(context.mood.sparks, 3);
    if (answer) sparks[0] = `${short(answer.text, 80)} (${answer.by}'s direction)`;
    const anchor = home(context);
    const points: Point[] = [];
    const calls = sparks.map((spark, index) => {
      const point = place(
        { ...context, createdNodes: () => [...context.createdNodes(), ...points.map((p) => ({ id: "", text: "", ...p }))] },
        { x: anchor.x, y: anchor.y + index * 250 },
      );
      points.push(point);
      return node(context, `spark-${index}`, "idea", `Spark: ${spark}`, point, "#fff9db");
    });
    const theme =
      context.tools.has("share_creative_context") && !context.reading.board.some((entry) => entry.kind === "theme")
        ? {
            tag: "theme",
            toolName: "share_creative_context",
            input: {
              entryType: "theme",
              content: { mood: context.mood.name, palette: context.palette, keywords: context.mood.images.slice(0, 4) },
            },
          }
        : null;
    return { text: `Three sparks, and a ${context.mood.name} theme for the room.`, calls: present([...calls, theme]) };
  },
  (context) => {
    const sparks = present([0, 1, 2].map((index) => nodeIdOf(context.past(`spark-${index}`))));
    const related = context.reading.canvas.filter((item) => item.kind !== "idea").slice(-2);
    return {
      text: "Tying the sparks to what is already here.",
      calls: present([
        ...related.map((target, index) => edge(context, `spark-link-${index}`, sparks[index], target.id, "sparks")),
        contribution(context, `Offered three ${context.mood.name} sparks about ${context.subject}`, sparks),
      ]),
    };
  },
  (context) => {
    if (context.request || !context.tools.has("request_agent")) return null;
    const sparks = present([0, 1, 2].map((index) => nodeIdOf(context.past(`spark-${index}`))));
    if (sparks.length === 0) return null;
    return {
      text: "The Songwriter could turn these into a chorus.",
      calls: [
        {
          tag: "request",
          toolName: "request_agent",
          input: { targetPersona: "coder", prompt: "Write a short chorus from these sparks", refNodeIds: sparks },
        },
      ],
    };
  },
  finalStep("The sparks are on the canvas."),
];

/* ───────────── Storyteller ───────────── */

const storyteller: StepBuilder[] = [
  (context) => {
    const fragments = context.reading.canvas.filter((item) => item.kind !== "story").length;
    return intention(
      context,
      fragments
        ? `I see ${fragments} fragments on the canvas. I'll weave them into a short story.`
        : `The canvas is quiet, so I'll start a story about ${context.subject}.`,
      `Weaving a ${context.mood.name} story from the canvas`,
    );
  },
  (context) => {
    const quote = context.reading.canvas.find((item) => item.kind === "lyric" || item.kind === "scene");
    const quoted = quote ? ` ${quote.kind === "lyric" ? "Someone was singing" : "The room looked like this"}: “${short(quote.text.replace(/^(Verse|Chorus|Scene:)\s*/i, ""), 70)}”` : "";
    const answer = answerFrom(context);
    const beats = [
      `Opening: ${context.rng.pick(context.mood.beats.opening)}${quoted}${answer ? ` (Told through ${short(answer.text, 60)}, as ${answer.by} asked.)` : ""}`,
      `Turn: ${context.rng.pick(context.mood.beats.turn)}`,
      `Ending: ${context.rng.pick(context.mood.beats.ending)}`,
    ];
    const anchor = home(context);
    const points: Point[] = [];
    return {
      text: "Three beats: an opening, a turn and an ending.",
      calls: present(
        beats.map((beat, index) => {
          const point = place(
            { ...context, createdNodes: () => [...context.createdNodes(), ...points.map((p) => ({ id: "", text: "", ...p }))] },
            { x: anchor.x + index * 380, y: anchor.y },
          );
          points.push(point);
          return node(context, `beat-${index}`, "story", beat, point);
        }),
      ),
    };
  },
  (context) => {
    const beats = present([0, 1, 2].map((index) => nodeIdOf(context.past(`beat-${index}`))));
    const source = context.reading.canvas.find((item) => item.kind === "lyric" || item.kind === "scene");
    return {
      text: "Linking the beats and the work they draw on.",
      calls: present([
        edge(context, "beat-01", beats[0], beats[1], "then"),
        edge(context, "beat-12", beats[1], beats[2], "then"),
        edge(context, "draws-on", beats[0], source?.id, "draws on"),
        contribution(context, `Told a three-beat ${context.mood.name} story`, beats),
      ]),
    };
  },
  (context) => {
    const answered = context.request?.id ?? latestOtherContribution(context)?.id;
    const call = reaction(context, answered, "Turned this into the story's opening beat");
    return call ? { text: "", calls: [call] } : null;
  },
  finalStep("The story is on the canvas, beginning to end."),
];

/* ───────────── Creative Curator ───────────── */

const curator: StepBuilder[] = [
  (context) =>
    intention(
      context,
      context.reading.canvas.length
        ? `There are ${context.reading.canvas.length} pieces here. I'll name the thread that connects them.`
        : "The canvas is empty; I'll set up a space for the work to come.",
      `Grouping the canvas into a ${context.mood.name} thread`,
    ),
  (context) => {
    const keywords = [...new Set(context.reading.canvas.flatMap((item) => imagesIn(item.text, context.mood)))].slice(0, 4);
    const xs = context.reading.canvas.map((item) => item.x);
    const ys = context.reading.canvas.map((item) => item.y);
    const anchor = xs.length ? { x: Math.min(...xs), y: Math.min(...ys) - 220 } : home(context);
    const answer = answerFrom(context);
    const label = `${keywords.length ? keywords.join(" · ") : context.subject}${answer ? ` (grouped ${short(answer.text, 40)})` : ""}`;
    return {
      text: "A label for the thread.",
      calls: present([
        node(context, "group", "group", `Thread: ${context.mood.name} — ${label}`, place(context, anchor), context.palette[3] ?? "#f3f0ff"),
      ]),
    };
  },
  (context) => {
    const group = nodeIdOf(context.past("group"));
    const members = context.reading.canvas.filter((item) => item.kind !== "group").slice(0, 4);
    return {
      text: members.length ? "Connecting the pieces that belong together." : "",
      calls: present([
        ...members.map((member, index) => edge(context, `member-${index}`, member.id, group, "belongs to")),
        contribution(context, `Named the ${context.mood.name} thread`, present([group])),
      ]),
    };
  },
  (context) => {
    const call = reaction(context, context.request?.id ?? latestOtherContribution(context)?.id, `Grouped this into the ${context.mood.name} thread`);
    return call ? { text: "", calls: [call] } : null;
  },
  finalStep("The canvas has a named thread now."),
];

/** Each persona shares its intention, may ask others (as the room's sensitivity says), then works. */
const withAsking = (plan: StepBuilder[]): StepBuilder[] => [plan[0]!, askStep, askAgainStep, ...plan.slice(1)];

export const PLANS: Record<string, StepBuilder[]> = {
  coder: withAsking(songwriter),
  architect: withAsking(scenePainter),
  brainstormer: withAsking(ideaWeaver),
  analyst: withAsking(storyteller),
  "canvas-agent": withAsking(curator),
};

const SHADOW_VOICES: Record<string, string> = {
  coder: "From the lyrics side",
  architect: "From the painting side",
  brainstormer: "As the one throwing sparks",
  analyst: "Thinking about the story",
  "canvas-agent": "Looking at the whole canvas",
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

/** Persona keys the scripted model knows, by the names used in `script:<name>`. */
export const SCRIPT_NAMES: Record<string, string> = {
  songwriter: "coder",
  "scene-painter": "architect",
  "idea-weaver": "brainstormer",
  storyteller: "analyst",
  "creative-curator": "canvas-agent",
};

export function personaDisplayName(persona: string): string {
  return ownValue(PERSONA_NAMES, persona) ?? persona;
}

/** Mood and palette: an active theme on the board wins; otherwise what the prompt talks about. */
export function chooseMood(reading: ScriptReading, rng: SeededRandom): { mood: Mood; palette: string[]; source: "theme" | "text" | "default" } {
  const theme = reading.board.find((entry) => entry.kind === "theme");
  if (theme) {
    const named = findMood(String(theme.content.mood ?? ""));
    const keywords = Array.isArray(theme.content.keywords) ? (theme.content.keywords as string[]).join(" ") : "";
    const mood = named ?? detectMood(`${String(theme.content.mood ?? "")} ${keywords}`).mood;
    const palette = Array.isArray(theme.content.palette) && theme.content.palette.length ? (theme.content.palette as string[]) : mood.palette;
    return { mood, palette, source: "theme" };
  }
  const text = [
    reading.task,
    reading.roomBrief,
    ...reading.requests.map((request) => String(request.content.ask ?? "")),
    ...reading.referenced.map((ref) => ref.text),
  ].join(" ");
  const detected = detectMood(text);
  if (detected.hits > 0) return { mood: detected.mood, palette: detected.mood.palette, source: "text" };
  const mood = rng.pick(MOODS);
  return { mood, palette: mood.palette, source: "default" };
}

/** A short phrase for what the work is about, taken from the task or the room brief. */
export function chooseSubject(reading: ScriptReading, mood: Mood): string {
  for (const text of [reading.task, reading.roomBrief]) {
    const about = text.match(/\b(?:about|of)\s+([^.!?\n]{3,80})/i);
    if (about) return about[1]!.trim().replace(/\s+/g, " ");
  }
  const referenced = reading.referenced.map((ref) => imagesIn(ref.text, mood)).flat();
  return referenced[0] ?? mood.images[0]!;
}

export type { PromptNode };
