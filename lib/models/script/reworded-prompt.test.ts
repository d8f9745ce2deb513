import type { JSONObject } from "@ai-sdk/provider";
import { type ModelMessage, generateText, isStepCount, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type PromptContext, buildPrompt } from "@/lib/agents/build-prompt";
import { PROMPT_SECTIONS_KEY, type WorkflowTaskData } from "@/lib/agents/prompt-sections";
import { stageTask } from "@/lib/brainstorm/prompts";
import { SHADOW_SECTIONS_KEY, buildShadowPrompt } from "@/lib/broadcast/shadow-prompt";
import { codeTask, reviewTask } from "@/lib/build-review/prompts";
import { answerTask } from "@/lib/dialogue/prompts";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { CREATIVE_CANVAS } from "@/lib/rooms/templates";
import { boardEntryDto, nodeDto } from "@/test/builders";
import { IDEA_MOVES, PRECEDENTS, ideaAbout } from "./brainstorm/content";
import { readProblem } from "./brainstorm/problem";
import { createScriptModel } from "./script-model";

/*
 * The offline model acts on the prompt's sections as data: rewording what the renderer writes
 * (titles, lines, the system prompt's guidance) must not change a thing it does.
 */

const team = CREATIVE_CANVAS.agents.map(({ name, persona, role, description }) => ({ name, persona, role, description }));

function persona(key: string) {
  const agent = CREATIVE_CANVAS.agents.find((candidate) => candidate.persona === key)!;
  return { name: agent.name, persona: agent.persona, role: agent.role, systemPrompt: agent.systemPrompt };
}

const pieces = (count: number) =>
  Array.from({ length: count }, (_, index) =>
    nodeDto({
      id: `piece-${index}`,
      kind: "note",
      text: `Piece ${index}: rain on the window`,
      x: (index % 4) * 300,
      y: Math.floor(index / 4) * 200,
      authorName: ["Scene Painter", "Storyteller", "Idea Weaver"][index % 3]!,
    }),
  );

const SCENES: [string, PromptContext][] = [
  [
    "a run a teammate asked for, about nodes it names",
    {
      agent: persona("songwriter"),
      team,
      settings: DEFAULT_ROOM_SETTINGS,
      run: {
        prompt: "Idea Weaver asks you: Write a chorus from these sparks",
        trigger: "request",
        requestedByName: "Idea Weaver",
        chainDepth: 1,
      },
      canvas: { nodes: [nodeDto({ id: "spark-1", kind: "idea", text: "Spark: A lighthouse that keeps a diary" })], edges: [] },
      referencedNodes: [nodeDto({ id: "spark-1", kind: "idea", text: "Spark: A lighthouse that keeps a diary" })],
      board: [],
      requests: [
        boardEntryDto({
          id: "req-1",
          agentName: "Idea Weaver",
          kind: "request",
          content: { targetPersona: "songwriter", ask: "Write a chorus from these sparks", refNodeIds: ["spark-1"] },
          targetPersona: "songwriter",
          requestStatus: "queued",
        }),
      ],
      notes: [],
      toolNames: [],
    },
  ],
  [
    "a big canvas whose missing theme a teammate already flagged, with others to ask",
    {
      agent: persona("scene-painter"),
      team,
      settings: { ...DEFAULT_ROOM_SETTINGS, broadcast: "agents", broadcast_sensitivity: "high" },
      run: { prompt: "Paint the rain on a city window at night.", trigger: "human", requestedByName: "Ada", chainDepth: 0 },
      canvas: { nodes: pieces(15), edges: [] },
      referencedNodes: [],
      board: [boardEntryDto({ id: "b-1", agentName: "Storyteller", kind: "intention", content: { plan: "A story of the rain" } })],
      requests: [],
      notes: [],
      messages: ["Ada says: make it blue"],
      findings: [
        {
          agentName: "Storyteller",
          severity: "high",
          text: "The canvas holds 13 pieces but no shared theme; a melancholic theme would tie them together.",
        },
      ],
      toolNames: [],
    },
  ],
];

/** What the renderer writes, said otherwise: other titles, other lines, the same content. */
function reword(text: string): string {
  return text
    .replace(/^## (.+)$/gm, (_, title: string) => `=== ${title.toUpperCase()} ===`)
    .replace(/^- node (\S+) \[([^\]]+)\] by (.+?) at \((.+?)\): /gm, "* $3 made $2 $1 at [$4]: ")
    .replace(/^- entry (\S+) \[(.+?) · (\w+)\] /gm, "* $3 $1 from $2: ")
    .replace(/^- entry (\S+) \[(.+?) asks\] /gm, "* $2 asks ($1): ")
    .replace(/^- \[(.+?) · (\w+)\] /gm, "* $2 finding from $1: ")
    .replace(/\(persona: ([a-z0-9-]+)\)/g, "<$1>")
    .replace(/^You are (.+?), the /m, "Name: $1. Role: the ")
    .replace(/Requested by/g, "Asked for by")
    .replace(/Sensitivity: (\w+)\./g, "Asking level $1.");
}

async function play(context: PromptContext, wording: (text: string) => string, withSections = true) {
  const { system, prompt, sections } = buildPrompt(context);
  let nextId = 0;
  const echo = (result: (input: Record<string, unknown>) => object) =>
    tool({ inputSchema: z.record(z.string(), z.unknown()), execute: async (input) => ({ ok: true, ...result(input) }) });
  const result = await generateText({
    model: createScriptModel({ name: context.agent.persona }),
    system: wording(system),
    messages: [{ role: "user", content: wording(prompt) }],
    ...(withSections ? { providerOptions: { [PROMPT_SECTIONS_KEY]: { prompt: sections } } } : {}),
    tools: {
      create_node: echo((input) => ({ node: { id: `node-${++nextId}`, x: input.x ?? 0, y: input.y ?? 0, text: input.text } })),
      create_edge: echo(() => ({ edge: { id: `edge-${++nextId}` } })),
      share_creative_context: echo(() => ({ entryId: `entry-${++nextId}` })),
      request_agent: echo(() => ({ requestId: `entry-${++nextId}`, runId: "run-2", status: "queued" })),
      post_finding: echo(() => ({ findingId: `entry-${++nextId}`, severity: "low" })),
      update_knowledge: echo((input) => ({ insight: input.insight ?? null, area: input.area ?? null, level: 3 })),
      ask_others: echo(() => ({ status: "complete", responses: [] })),
    },
    stopWhen: isStepCount(10),
    seed: 3,
  });
  return result.steps.map((step) => ({ text: step.text, calls: step.toolCalls.map((call) => [call.toolName, call.input]) }));
}

describe("the script model, given the prompt's sections", () => {
  for (const [scene, context] of SCENES) {
    it(`does the same whatever the words of the prompt: ${scene}`, async () => {
      const { system, prompt } = buildPrompt(context);
      // The rewording reaches every kind of line the scene shows.
      expect(reword(prompt)).not.toMatch(/^## |^- node |^- entry |^- \[/m);
      expect(reword(system)).not.toContain("(persona: ");
      const asWritten = await play(context, (text) => text);
      expect(asWritten.flatMap((step) => step.calls).length).toBeGreaterThan(1);
      expect(await play(context, reword)).toEqual(asWritten);
    });
  }

  it("would act otherwise on reworded prose without them: the sections, not the words, decide", async () => {
    const differs = await Promise.all(
      SCENES.map(
        async ([, context]) =>
          JSON.stringify(await play(context, reword, false)) !== JSON.stringify(await play(context, (text) => text, false)),
      ),
    );
    expect(differs).toEqual([true, true]);
  });
});

/** A workflow run's opening built as the engine builds it: the task's words, and its data, with the sections the workflow adds. */
function workflowRun(
  agent: { name: string; persona: string; role: string },
  step: { prompt: string; taskData: WorkflowTaskData },
  extraSections: PromptContext["extraSections"] = [],
): PromptContext {
  return {
    agent: { ...agent, systemPrompt: "" },
    team: [],
    settings: DEFAULT_ROOM_SETTINGS,
    run: { prompt: step.prompt, trigger: "request", requestedByName: "the process", chainDepth: 0, taskData: step.taskData },
    canvas: { nodes: [], edges: [] },
    referencedNodes: [],
    board: [],
    requests: [],
    notes: [],
    extraSections,
    toolNames: [],
  };
}

/** A workflow's words said otherwise: its headings, labels, fences and item lines, with the same content. */
function rewordWorkflow(text: string): string {
  return reword(text)
    .replace(/^(Task|Problem|Brief|Brief from the Architect): ?/gm, (_, label: string) => `${label.toUpperCase()} >> `)
    .replace(/^Code \(version (\d+)\):/gm, "Source v$1:")
    .replace(/```/g, "~~~")
    .replace(/^- (C\d+|P\d+|I\d+) \[/gm, "* $1 {")
    .replace(/^- (\d+)\. /gm, "* #$1 ")
    .replace(/^- (Concept|Step \d+|Risk|First action|Key question|Scope in|Scope out|Constraint|Success criterion): /gm, "* $1 = ");
}

const TASK = "Write a function that counts the words in a sentence";
const VERSION_ONE = [
  "export function countWordsSentence(text: string): number {",
  "  return text.split(/\\s+/).filter(Boolean).length;",
  "}",
  "// Examples:",
  '// countWordsSentence("Hello, world!") → 2',
].join("\n");

const PROBLEM = "How might we cut the time it takes new engineers to ship their first change?";
const words = readProblem(PROBLEM);
const IDEAS = ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"].flatMap((persona, ideator) =>
  IDEA_MOVES[persona]!.map((move, index) => ({
    id: `I${ideator * 10 + index + 1}`,
    author: persona,
    ...ideaAbout(move, words),
  })),
);
const PRECEDENT_ITEMS = PRECEDENTS.historian.slice(0, 3).map((precedent, index) => ({
  id: `P${index + 1}`,
  ...precedent,
  lesson: precedent.lesson.replace("{topic}", words.topic).replace("{who}", words.who),
}));
const CANDIDATES = [
  {
    id: "C1",
    cluster: "Learning by doing",
    title: "A real first task",
    summary: "Ship a small change on day one.",
    sourceIdeas: ["I7", "I8"],
  },
  {
    id: "C2",
    cluster: "Guides",
    title: "A buddy for every newcomer",
    summary: "One named person answers every question.",
    sourceIdeas: ["I5"],
  },
].map((candidate) => ({ ...candidate, combination: false, standing: null }));

/** A stage's section as the brainstorm adds it: a line and the data of each item. */
const stageSection = <T extends Record<string, unknown>>(key: string, title: string, items: T[], line: (item: T) => string) => ({
  key,
  title,
  lines: items.map(line),
  items: items as unknown as JSONObject[],
  required: items.length,
});

const WORKFLOW_SCENES: [string, PromptContext, Record<string, unknown>][] = [
  [
    "a build review's Reviewer, reviewing a first version that leaves examples out",
    workflowRun(
      { name: "Reviewer", persona: "reviewer", role: "Reviewer" },
      reviewTask(
        {
          task: TASK,
          brief: 'Examples:\n- countWordsSentence("Hello, world!") → 2\n- countWordsSentence("") → 0',
          codeVersion: 1,
          round: 1,
          maxRounds: 3,
        },
        VERSION_ONE,
      ),
    ),
    { submit_verdict: {} },
  ],
  [
    "a build review's Coder, writing its second version",
    workflowRun(
      { name: "Coder", persona: "coder", role: "Coder" },
      codeTask({ task: TASK, brief: "Handle the edge cases.", codeVersion: 1, round: 2, maxRounds: 3, lastVerdict: null }),
    ),
    { submit_code: {} },
  ],
  [
    "the Coder's turn in a dialogue with the Reviewer",
    workflowRun(
      { name: "Coder", persona: "coder", role: "Coder" },
      answerTask({ topic: "What does an empty sentence return?", maxRounds: 2 }, "Reviewer", 1, null),
    ),
    {},
  ],
  [
    "a brainstorm's Synthesizer, turning the ideas into candidates",
    workflowRun(
      { name: "Synthesizer", persona: "synthesizer", role: "Synthesizer" },
      stageTask({ stage: "convergent", problem: PROBLEM, persona: "synthesizer" }),
      [
        stageSection(
          "ideas",
          `Ideas (${IDEAS.length} from divergent thinking)`,
          IDEAS,
          (idea) => `- ${idea.id} [${idea.author}] ${idea.title} — ${idea.oneLiner}`,
        ),
        stageSection(
          "precedents",
          "Precedents",
          PRECEDENT_ITEMS,
          (p) => `- ${p.id} ${p.name} (${p.domain}) — Lesson: ${p.lesson} Tried: ${p.tried} → ${p.outcome}`,
        ),
      ],
    ),
    { submit_candidates: {}, post_finding: {} },
  ],
  [
    "a brainstorm's Narrator, writing the deliverable from the approved proposal",
    workflowRun(
      { name: "Narrator", persona: "narrator", role: "Narrator" },
      stageTask({ stage: "presentation", problem: PROBLEM, persona: "narrator" }),
      [
        stageSection(
          "chosen",
          "Chosen candidate",
          CANDIDATES.slice(0, 1),
          (c) => `- ${c.id} [${c.cluster}] (from ${c.sourceIdeas.join(", ")}) ${c.title} — ${c.summary}`,
        ),
        stageSection(
          "ranking",
          "Ranking approved at the gate",
          CANDIDATES.map((c, index) => ({ place: index + 1, candidateId: c.id, title: c.title, score: 8 - index, standing: "checked" })),
          (r) => `- ${r.place}. ${r.candidateId} ${r.title} — ${r.score} (${r.standing})`,
        ),
        stageSection(
          "chosen-checks",
          "Checks of the chosen candidate",
          [{ candidateId: "C1", agent: "Skeptic", rating: "flag", text: "Newcomers may lack access on day one." }],
          (j) => `- ${j.candidateId} · ${j.agent}: ${j.rating} — ${j.text}`,
        ),
        stageSection(
          "proposal",
          "Proposal",
          [
            { part: "concept", text: "Every newcomer ships a real change on day one.", mitigation: null },
            { part: "step", text: "Pick three starter tasks a week ahead.", mitigation: null },
            { part: "step", text: "Pair each newcomer with the task's owner.", mitigation: null },
            { part: "risk", text: "Access is not ready in time.", mitigation: "Request it a week before." },
            { part: "firstAction", text: "Name the owner this week.", mitigation: null },
          ],
          (p) => `- ${p.part}: ${p.text}${p.mitigation ? ` Mitigation: ${p.mitigation}` : ""}`,
        ),
        stageSection("precedents", "Precedents", PRECEDENT_ITEMS, (p) => `- ${p.id} ${p.name} (${p.domain}) — Lesson: ${p.lesson}`),
      ],
    ),
    { submit_presentation: {} },
  ],
];

/** Plays a workflow run with the tools it is given, its words as `wording` says them. */
async function playWorkflow(
  context: PromptContext,
  toolNames: Record<string, unknown>,
  wording: (text: string) => string,
  withSections = true,
) {
  const { system, prompt, sections } = buildPrompt(context);
  const tools = Object.fromEntries(
    Object.keys(toolNames).map((name) => [
      name,
      tool({ inputSchema: z.record(z.string(), z.unknown()), execute: async () => ({ ok: true, id: `${name}-1` }) }),
    ]),
  );
  const result = await generateText({
    model: createScriptModel({ name: context.agent.persona }),
    system: wording(system),
    messages: [{ role: "user", content: wording(prompt) }],
    ...(withSections ? { providerOptions: { [PROMPT_SECTIONS_KEY]: { prompt: sections } } } : {}),
    tools,
    stopWhen: isStepCount(5),
    seed: 3,
  });
  return result.steps.map((step) => ({ text: step.text, calls: step.toolCalls.map((call) => [call.toolName, call.input]) }));
}

describe("the script model, given a workflow run's task and sections as data", () => {
  for (const [scene, context, tools] of WORKFLOW_SCENES) {
    it(`does the same whatever the words of the prompt: ${scene}`, async () => {
      const { prompt } = buildPrompt(context);
      // The rewording reaches the workflow's headings and labels.
      expect(rewordWorkflow(prompt)).not.toMatch(/^## |^Task: |^Problem: |^Brief|^Code \(version|```|^- (C|P|I)\d+ \[/m);
      const asWritten = await playWorkflow(context, tools, (text) => text);
      expect(asWritten.map((step) => step.text).join(" ").length).toBeGreaterThan(0);
      expect(await playWorkflow(context, tools, rewordWorkflow)).toEqual(asWritten);
    });
  }

  it("does its part from the data: the Reviewer asks for what the code leaves out, the Synthesizer builds on the ideas' ids", async () => {
    const [review, , , synthesis, presentation] = WORKFLOW_SCENES;
    const verdict = (await playWorkflow(review![1], review![2], rewordWorkflow)).flatMap((step) => step.calls)[0]!;
    expect(verdict).toEqual([
      "submit_verdict",
      expect.objectContaining({ verdict: "changes", openQuestions: [expect.stringMatching(/""/)] }),
    ]);
    const candidates = (await playWorkflow(synthesis![1], synthesis![2], rewordWorkflow)).flatMap((step) => step.calls)[0]!;
    const sources = (candidates[1] as { candidates: { sourceIdeas: string[] }[] }).candidates.flatMap((candidate) => candidate.sourceIdeas);
    expect(sources.length).toBeGreaterThan(2);
    for (const id of sources) expect(IDEAS.map((idea) => idea.id)).toContain(id);
    const deliverable = (await playWorkflow(presentation![1], presentation![2], rewordWorkflow)).flatMap((step) => step.calls)[0]!;
    const markdown = (deliverable[1] as { markdown: string }).markdown;
    expect(markdown).toContain("**A real first task.** Every newcomer ships a real change on day one.");
    expect(markdown).toContain("- A buddy for every newcomer — 7 (checked)");
    expect(markdown).toContain("- **Access is not ready in time.** — Request it a week before.");
  });

  it("would act otherwise on reworded prose without them: the data, not the words, decides", async () => {
    for (const [scene, context, tools] of WORKFLOW_SCENES) {
      const reworded = JSON.stringify(await playWorkflow(context, tools, rewordWorkflow, false));
      expect(reworded, scene).not.toBe(JSON.stringify(await playWorkflow(context, tools, rewordWorkflow)));
    }
  });
});

describe("the script model as a shadow, given the question as data", () => {
  const shadow = (depth: "low" | "medium" | "high") =>
    buildShadowPrompt({
      agent: persona("scene-painter"),
      words: CREATIVE_CANVAS.instructions!,
      askerName: "Songwriter",
      question: "Should the chorus be sung at dawn or at midnight?",
      options: ["at dawn", "at midnight"],
      depth,
      history: [
        {
          prompt: "Paint the harbour at night.",
          transcript: [
            {
              role: "assistant",
              text: "Painting it.",
              toolCalls: [{ name: "create_node", input: { kind: "scene", text: "Scene: the harbour at midnight, one lamp burning" } }],
            },
          ],
        },
      ],
      currentText: "Scene: boats asleep under a midnight sky",
    });

  /** The shadow's answer, its words as `wording` says them. */
  async function answer(built: ReturnType<typeof shadow>, wording: (text: string) => string, withSections = true) {
    const messages = built.messages.map((message) =>
      typeof message.content === "string" ? { ...message, content: wording(message.content) } : message,
    ) as ModelMessage[];
    const { text } = await generateText({
      model: createScriptModel({ name: "scene-painter" }),
      system: wording(built.system),
      messages,
      ...(withSections ? { providerOptions: { [PROMPT_SECTIONS_KEY]: { [SHADOW_SECTIONS_KEY]: built.sections } } } : {}),
      seed: 3,
    });
    return text;
  }

  const rewordShadow = (text: string) =>
    reword(text)
      .replace(/^Options: /gm, "Choices: ")
      .replace(/Response depth: (\w+)\./g, "Depth wanted: $1.")
      .replace(/I added a (\w+): /g, "Made a $1 — ");

  it("answers the same whatever the words of the prompt, at every depth", async () => {
    for (const depth of ["low", "medium", "high"] as const) {
      const built = shadow(depth);
      const asWritten = await answer(built, (text) => text);
      expect(asWritten).toMatch(/^From the painting side: go with at midnight\./);
      if (depth !== "low") expect(asWritten).toContain("the harbour at midnight");
      expect(await answer(built, rewordShadow)).toBe(asWritten);
    }
  });

  it("does not answer as a shadow from the prose alone: a shadow's prompt always comes with its data", async () => {
    const built = shadow("high");
    const withData = await answer(built, (text) => text);
    const proseOnly = await answer(built, (text) => text, false);
    expect(proseOnly).not.toMatch(/^From the painting side/);
    expect(proseOnly).not.toBe(withData);
  });
});
