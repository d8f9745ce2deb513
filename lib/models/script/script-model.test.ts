import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { isStepCount, streamText, tool } from "ai";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { ShownNote } from "@/db/schema";
import { buildPrompt, type PromptContext } from "@/lib/agents/build-prompt";
import { type ConversationStep, conversationMessages } from "@/lib/agents/run-conversation";
import type { BoardEntryDto, CanvasNodeDto } from "@/lib/protocol";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { CREATIVE_CANVAS, PLAIN_INSTRUCTIONS } from "@/lib/rooms/templates";
import { createScriptModel } from "./script-model";
import { generateText } from "ai";
import { PROMPT_SECTIONS_KEY } from "@/lib/agents/prompt-sections";
import { SHADOW_SECTIONS_KEY, type ShadowSections, buildShadowPrompt } from "@/lib/broadcast/shadow-prompt";
import { creativeWordsIn } from "@/test/off-task";

const team = CREATIVE_CANVAS.agents.map((agent) => ({
  name: agent.name,
  persona: agent.persona,
  role: agent.role,
  description: agent.description,
}));

function persona(key: string) {
  const agent = CREATIVE_CANVAS.agents.find((candidate) => candidate.persona === key)!;
  return { name: agent.name, persona: agent.persona, role: agent.role, systemPrompt: agent.systemPrompt };
}

function node(id: string, kind: string, text: string, x = 0, y = 0): CanvasNodeDto {
  return {
    id,
    kind,
    text,
    x,
    y,
    width: null,
    height: null,
    color: null,
    authorKind: "agent",
    authorId: "agent-songwriter",
    authorName: "Songwriter",
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
}

function entry(id: string, kind: BoardEntryDto["kind"], content: Record<string, unknown>, agentName = "Idea Weaver"): BoardEntryDto {
  return {
    id,
    runId: null,
    agentId: null,
    agentName,
    kind,
    content,
    targetPersona: kind === "request" ? String(content.targetPersona) : null,
    requestStatus: kind === "request" ? "queued" : null,
    answersEntryId: null,
    expiresAt: "2026-01-01T01:00:00.000Z",
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

function context(overrides: Partial<PromptContext> & Pick<PromptContext, "agent">): PromptContext {
  return {
    team,
    settings: DEFAULT_ROOM_SETTINGS,
    run: { prompt: "Write a short verse about rain on a city window at night.", trigger: "human", requestedByName: "Ada", chainDepth: 0 },
    canvas: { nodes: [], edges: [] },
    referencedNodes: [],
    board: [],
    requests: [],
    notes: [],
    toolNames: [],
    ...overrides,
  };
}

interface Recorded {
  text: string;
  calls: { name: string; input: Record<string, unknown> }[];
}

/**
 * Runs the script model through the AI SDK with tools that answer like Parley's, recording every
 * step and what each model call was sent. `arrivals[n]` are notes (participants' messages, say)
 * that arrive while the run works, shown before its step n as a run shows them: the conversation
 * read again before each step, each note where it arrived.
 */
async function play(
  promptContext: PromptContext,
  seed = 1,
  options: { tools?: boolean; answers?: { responder_name: string; content: string }[]; arrivals?: Record<number, string[]> } = {},
) {
  const { system, prompt } = buildPrompt(promptContext);
  let nextId = 0;
  const steps: Recorded[] = [];
  const echo = (result: (input: Record<string, unknown>) => object) =>
    tool({ inputSchema: z.record(z.string(), z.unknown()), execute: async (input) => ({ ok: true, ...result(input) }) });
  const tools = {
    create_node: echo((input) => ({ node: { id: `node-${++nextId}`, x: input.x ?? 0, y: input.y ?? 0, text: input.text } })),
    create_edge: echo(() => ({ edge: { id: `edge-${++nextId}` } })),
    update_node: echo(() => ({})),
    delete_node: echo(() => ({})),
    delete_edge: echo(() => ({})),
    share_creative_context: echo(() => ({ entryId: `entry-${++nextId}` })),
    read_shared_context: echo(() => ({ entries: [] })),
    request_agent: echo(() => ({ requestId: `entry-${++nextId}`, runId: "run-2", status: "queued" })),
    request_help: echo(() => ({ helpId: `entry-${++nextId}`, status: "started" })),
    post_finding: echo(() => ({ findingId: `entry-${++nextId}`, severity: "low" })),
    update_knowledge: echo((input) => ({ insight: input.insight ?? null, area: input.area ?? null, level: 3 })),
    ask_others: echo(() => ({ status: "complete", responses: options.answers ?? [] })),
  };
  const model = createScriptModel({ name: promptContext.agent.persona });
  const modelCalls = vi.spyOn(model, "doStream");
  const history: ConversationStep[] = [];
  let shown: ShownNote[] = [];
  const result = streamText({
    model,
    system,
    messages: [{ role: "user", content: prompt }],
    tools: options.tools === false ? undefined : tools,
    stopWhen: isStepCount(10),
    seed,
    prepareStep: ({ stepNumber }) => {
      shown = (options.arrivals?.[stepNumber] ?? []).map((text, index) => ({ id: `note-${stepNumber}-${index}`, text, kind: "command" }));
      return { messages: conversationMessages(prompt, history, shown, 10_000) };
    },
    onStepEnd: (step) => {
      history.push({ notes: shown, messages: step.response.messages });
    },
  });
  const deltas: string[] = [];
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") deltas.push(part.text);
  }
  for (const step of await result.steps) {
    steps.push({
      text: step.text,
      calls: step.toolCalls.map((call) => ({ name: call.toolName, input: call.input as Record<string, unknown> })),
    });
  }
  const sent: LanguageModelV4Prompt[] = modelCalls.mock.calls.map(([call]) => call.prompt);
  return { steps, deltas, usage: await result.totalUsage, sent };
}

describe("the script model", () => {
  it("is deterministic for a seed, and a different seed writes differently", async () => {
    const songwriter = context({ agent: persona("songwriter") });
    const first = await play(songwriter, 7);
    const again = await play(songwriter, 7);
    expect(again.steps).toEqual(first.steps);

    const verses = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { steps } = await play(songwriter, seed);
      verses.add(String(steps[1]!.calls[0]!.input.text));
    }
    expect(verses.size).toBeGreaterThan(1);
  });

  it("plays the Songwriter's collaboration flow: intention, lyrics, contribution, request, what it learned, summary", async () => {
    const { steps, deltas, usage } = await play(context({ agent: persona("songwriter") }));
    expect(steps.map((step) => step.calls.map((call) => call.name))).toEqual([
      ["share_creative_context"],
      ["create_node", "create_node"],
      ["create_edge", "share_creative_context"],
      ["request_agent"],
      // Alone on the canvas, it has nothing specific to tell the team: no finding, only what it learned.
      ["update_knowledge"],
      [],
    ]);
    expect(steps[0]!.calls[0]!.input).toMatchObject({ entryType: "intention" });
    expect(String(steps[0]!.calls[0]!.input.content && (steps[0]!.calls[0]!.input.content as { plan: string }).plan)).toMatch(
      /melancholic verse about rain on a city window at night/,
    );
    expect(steps[1]!.calls.map((call) => call.input.kind)).toEqual(["lyric", "lyric"]);
    expect(steps[2]!.calls[1]!.input).toMatchObject({ entryType: "contribution", content: { nodeIds: ["node-2", "node-3"] } });
    expect(steps[3]!.calls[0]!.input).toMatchObject({ targetPersona: "scene-painter", refNodeIds: ["node-2", "node-3"] });
    expect(steps[5]!.text).toMatch(/Scene Painter/);
    expect(deltas.length).toBeGreaterThan(10);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
  });

  it("answers a request from another agent instead of starting its own chain", async () => {
    const sparks = [node("spark-1", "idea", "Spark: A lighthouse that keeps a diary", -600, 0)];
    const request = entry("req-1", "request", {
      targetPersona: "songwriter",
      ask: "Write a chorus from these sparks",
      refNodeIds: ["spark-1"],
    });
    const { steps } = await play(
      context({
        agent: persona("songwriter"),
        run: {
          prompt: "Idea Weaver asks you: Write a chorus from these sparks",
          trigger: "request",
          requestedByName: "Idea Weaver",
          chainDepth: 1,
        },
        referencedNodes: sparks,
        canvas: { nodes: sparks, edges: [] },
        requests: [request],
      }),
    );
    const names = steps.flatMap((step) => step.calls.map((call) => call.name));
    expect(names).not.toContain("request_agent");
    const reaction = steps.flatMap((step) => step.calls).find((call) => call.input.entryType === "reaction")!;
    expect(reaction.input.content).toMatchObject({ toEntryId: "req-1" });
    expect(steps.flatMap((step) => step.calls).some((call) => call.name === "create_edge" && call.input.targetId === "spark-1")).toBe(true);
    expect(steps[0]!.text).toMatch(/Idea Weaver asked me/);
  });

  it("paints in the mood and palette of the room's theme", async () => {
    const lyric = node("lyric-1", "lyric", "Verse\nThe tide keeps time the way a heartbeat would", -400, 0);
    const painter = (board: BoardEntryDto[]) =>
      play(
        context({
          agent: persona("scene-painter"),
          run: { prompt: "Paint a scene.", trigger: "human", requestedByName: "Ada", chainDepth: 0 },
          canvas: { nodes: [lyric], edges: [] },
          board,
        }),
      );
    const themed = await painter([
      entry("theme-1", "theme", { mood: "electric", palette: ["#5f3dc4", "#d6336c", "#845ef7", "#f3d9fa"], keywords: ["neon"] }),
    ]);
    const scenes = themed.steps.flatMap((step) => step.calls).filter((call) => call.name === "create_node");
    expect(scenes[0]!.input.color).toBe("#f3d9fa");
    expect(String(scenes[1]!.input.text)).toMatch(/ultraviolet|hot pink|neon lilac/i);

    const calm = await painter([
      entry("theme-2", "theme", { mood: "serene", palette: ["#0b7285", "#3bc9db", "#c5f6fa", "#e3fafc"], keywords: [] }),
    ]);
    const calmScenes = calm.steps.flatMap((step) => step.calls).filter((call) => call.name === "create_node");
    expect(calmScenes[0]!.input.color).toBe("#e3fafc");
    expect(String(calmScenes[1]!.input.text)).toMatch(/deep teal|seafoam|pale morning sky/i);
  });

  it("keeps to the mood of the room's task when what it was asked about speaks of another and no theme is in sight", async () => {
    const verse = node(
      "verse-1",
      "lyric",
      "Verse\nNeon letters flicker out your name\nThe midnight train is never quite the same",
      -380,
      0,
    );
    const request = entry(
      "req-1",
      "request",
      { targetPersona: "scene-painter", ask: "Paint the neon and the midnight train", refNodeIds: ["verse-1"] },
      "Songwriter",
    );
    const { steps } = await play(
      context({
        agent: persona("scene-painter"),
        settings: { ...DEFAULT_ROOM_SETTINGS, task: "Write a song about rain on a city window at night and paint the scene it describes." },
        run: {
          prompt: "Songwriter asks you: Paint the neon and the midnight train",
          trigger: "request",
          requestedByName: "Songwriter",
          chainDepth: 1,
        },
        referencedNodes: [verse],
        canvas: { nodes: [verse], edges: [] },
        requests: [request],
      }),
    );
    const [scene, detail] = steps.flatMap((step) => step.calls).filter((call) => call.name === "create_node");
    expect(String(detail!.input.text)).toMatch(/deep navy|slate blue|rain-washed grey|one warm lamp/i);
    expect(scene!.input.color).toBe("#d0ebff");
  });

  it("illustrates the nodes it was asked about and reacts to the contribution they came from", async () => {
    const verse = node(
      "verse-1",
      "lyric",
      "Verse\nRain taps the glass like it knows my name\nStreetlights blur into a slower flame",
      -380,
      0,
    );
    const contribution = entry("contrib-1", "contribution", { summary: "Wrote a verse", nodeIds: ["verse-1"] }, "Songwriter");
    const request = entry(
      "req-1",
      "request",
      { targetPersona: "scene-painter", ask: "Paint the verse", refNodeIds: ["verse-1"] },
      "Songwriter",
    );
    const { steps } = await play(
      context({
        agent: persona("scene-painter"),
        run: { prompt: "Songwriter asks you: Paint the verse", trigger: "request", requestedByName: "Songwriter", chainDepth: 1 },
        referencedNodes: [verse],
        canvas: { nodes: [verse], edges: [] },
        board: [contribution],
        requests: [request],
      }),
    );
    const calls = steps.flatMap((step) => step.calls);
    const illustrates = calls.find((call) => call.name === "create_edge" && call.input.label === "illustrates")!;
    expect(illustrates.input.targetId).toBe("verse-1");
    const reaction = calls.find((call) => call.input.entryType === "reaction")!;
    expect(reaction.input.content).toMatchObject({ toEntryId: "contrib-1" });
    const scene = calls.find((call) => call.name === "create_node")!;
    expect(String(scene.input.text)).toMatch(/rain|streetlights/);
    expect(Number(scene.input.x)).toBeGreaterThan(verse.x);
  });

  it("plays an agent whose persona is named like an Object.prototype member as any persona it does not know", async () => {
    const flow = async (key: string) => {
      const { steps } = await play(context({ agent: { name: "Builder", persona: key, role: "Builds", systemPrompt: "You build." } }));
      const calls = steps.flatMap((step) => step.calls);
      for (const call of calls.filter((call) => call.name === "create_node")) {
        expect(Number.isFinite(call.input.x) && Number.isFinite(call.input.y)).toBe(true);
      }
      return calls.map((call) => call.name);
    };
    const unknown = await flow("gardener");
    for (const key of ["constructor", "__proto__", "toString"]) expect(await flow(key)).toEqual(unknown);
  });

  it("only calls the tools it is offered", async () => {
    const { steps } = await play(context({ agent: persona("songwriter") }), 1, { tools: false });
    expect(steps.flatMap((step) => step.calls)).toEqual([]);
    expect(steps).toHaveLength(1);
    expect(steps[0]!.text).toMatch(/Verse\n.+\n.+\n.+\n.+\n\nChorus\n/);
  });

  it("acts on a participant's message first, once, then goes on with its plan", async () => {
    const { steps } = await play(context({ agent: persona("songwriter"), messages: ["Ada says: try a sea shanty"] }));
    expect(steps[0]!.text).toBe("Ada asked me to try a sea shanty — doing that now.");
    expect(steps[0]!.calls).toEqual([
      {
        name: "create_node",
        input: expect.objectContaining({ kind: "lyric", text: expect.stringMatching(/^As Ada asked — “try a sea shanty”\n/) }),
      },
    ]);
    const acted = steps.flatMap((step) => step.calls).filter((call) => String(call.input.text ?? "").startsWith("As Ada asked"));
    expect(acted).toHaveLength(1);
    // The rest is the usual plan: an intention, then the verse.
    expect(steps[1]!.calls[0]).toMatchObject({ name: "share_creative_context", input: { entryType: "intention" } });
  });

  it("acts on a message that arrives mid-run in its very next step, then takes up its plan where it left off", async () => {
    const songwriter = context({ agent: persona("songwriter") });
    const planned = await play(songwriter);
    const { steps, sent } = await play(songwriter, 1, { arrivals: { 2: ["Ada says: try a sea shanty"] } });
    // The message is in the model call after its arrival and in every later one; not in those before.
    const mentions = sent.map((call) => JSON.stringify(call).includes("Ada says: try a sea shanty"));
    expect(mentions).toEqual(steps.map((_, index) => index >= 2));
    // That very step acts on it, visibly: it says so and makes a piece that names whose request it answers.
    expect(steps[2]!.text).toBe("Ada asked me to try a sea shanty — doing that now.");
    expect(steps[2]!.calls).toEqual([
      {
        name: "create_node",
        input: expect.objectContaining({ kind: "lyric", text: expect.stringMatching(/^As Ada asked — “try a sea shanty”\n.+/) }),
      },
    ]);
    // Once: the later steps, which still read the message, do not act on it again.
    const acted = steps.flatMap((step) => step.calls).filter((call) => String(call.input.text ?? "").startsWith("As Ada asked"));
    expect(acted).toHaveLength(1);
    // Before and after it, the steps its plan takes without the message, none repeated and none left out.
    const names = (played: Recorded[]) => played.map((step) => step.calls.map((call) => call.name));
    expect(names([...steps.slice(0, 2), ...steps.slice(3)])).toEqual(names(planned.steps));
    expect(steps.slice(0, 2)).toEqual(planned.steps.slice(0, 2));
  });

  it("acts on each of several messages that arrive at different steps, in order, in the step after each arrives", async () => {
    const { steps, sent } = await play(context({ agent: persona("scene-painter") }), 3, {
      arrivals: { 1: ["Ada says: paint the harbour at dusk"], 3: ["Ben says: more gulls", "Ada says: and a lighthouse"] },
    });
    expect(JSON.stringify(sent[0])).not.toMatch(/Ada says: paint/);
    expect(steps[1]!.calls[0]!.input.text).toMatch(/^As Ada asked — “paint the harbour at dusk”/);
    // Two arrive together: one step each, oldest first.
    expect(steps[3]!.calls[0]!.input.text).toMatch(/^As Ben asked — “more gulls”/);
    expect(steps[4]!.calls[0]!.input.text).toMatch(/^As Ada asked — “and a lighthouse”/);
    expect(JSON.stringify(sent[3])).toMatch(/Ben says: more gulls[\s\S]*Ada says: and a lighthouse/);
  });

  it("in a run started for messages, acts on them and stops", async () => {
    const { steps } = await play(
      context({
        agent: persona("scene-painter"),
        run: {
          prompt: 'Ada sent you a message (under "Messages for you"). Act on it now.',
          trigger: "command",
          requestedByName: "Ada",
          chainDepth: 0,
        },
        messages: ["Ada says: paint the harbour at dusk", "Ben says: more gulls"],
      }),
    );
    expect(steps.map((step) => step.calls.map((call) => call.name))).toEqual([["create_node"], ["create_node"], []]);
    expect(String(steps[1]!.calls[0]!.input.text)).toMatch(/^As Ben asked — “more gulls”/);
    expect(steps[2]!.text).toMatch(/^Done/);
  });

  it("answers a help request in one reply, and keeps a finding and an insight after its work", async () => {
    const help = await play(
      context({
        agent: persona("songwriter"),
        run: {
          prompt: "Storyteller asks for your help: Which line should the story open with?",
          trigger: "request",
          requestedByName: "Storyteller",
          chainDepth: 1,
        },
      }),
    );
    expect(help.steps).toHaveLength(1);
    expect(help.steps[0]!.text).toMatch(/^Open with “.+” — it keeps the \w+ feel/);

    const scene = { ...node("scene-1", "scene", "Scene: rain on a city window, one lamp lit", -600, 0), authorName: "Scene Painter" };
    const { steps } = await play(context({ agent: persona("songwriter"), canvas: { nodes: [scene], edges: [] } }));
    const memory = steps.find((step) => step.calls.some((call) => call.name === "update_knowledge"))!;
    expect(memory.calls.map((call) => call.name)).toEqual(["post_finding", "update_knowledge"]);
    expect(memory.calls[0]!.input).toMatchObject({
      severity: "low",
      finding: expect.stringMatching(/^Scene Painter's “rain on a city window, one lamp lit” and my “.+” both turn on “\w+”/),
      nodeIds: expect.arrayContaining([expect.stringMatching(/^node-/)]),
    });
    // What it learned is a general lesson: it goes to other rooms and quotes nothing of this one.
    expect(memory.calls[1]!.input).toMatchObject({ area: expect.stringMatching(/ lyric$/), amount: expect.any(Number), general: true });
    expect(String(memory.calls[1]!.input.insight)).not.toMatch(/rain|window|city/i);
    expect(steps.at(-1)!.calls).toEqual([]);
  });
});

describe("the Storyteller asking the Songwriter for help", () => {
  const SEEDS = Array.from({ length: 16 }, (_, index) => index + 1);
  const storyteller = context({ agent: persona("storyteller") });
  const helpCalls = (steps: Recorded[]) => steps.flatMap((step) => step.calls).filter((call) => call.name === "request_help");

  /** The seeds whose run of `promptContext` asks for help, each with the step it asked in and what it asked. */
  async function askingSeeds(promptContext: PromptContext, seeds = SEEDS) {
    const asking: { seed: number; step: number; input: Record<string, unknown> }[] = [];
    for (const seed of seeds) {
      const { steps } = await play(promptContext, seed);
      const asked = helpCalls(steps);
      expect(asked.length).toBeLessThanOrEqual(1);
      const step = steps.findIndex((candidate) => candidate.calls.some((call) => call.name === "request_help"));
      if (asked.length) asking.push({ seed, step, input: asked[0]!.input });
    }
    return asking;
  }

  it("asks on about every other run, the same runs for the same seed, right after sharing its intention", async () => {
    const asking = await askingSeeds(storyteller);
    // About one run in two: never all, never none.
    expect(asking.length).toBeGreaterThanOrEqual(4);
    expect(asking.length).toBeLessThanOrEqual(12);
    expect(await askingSeeds(storyteller, SEEDS.slice(0, 8))).toEqual(asking.filter((ask) => ask.seed <= 8));
    for (const ask of asking) {
      expect(ask.step).toBe(1);
      expect(ask.input).toEqual({
        target: "songwriter",
        question: expect.stringMatching(/^Which line of your lyrics should my \w+ story about .+ open with\?$/),
      });
    }
  }, 30_000);

  it("asks nobody when the Songwriter is not on its team, nor while it answers another agent's request", async () => {
    const alone = context({ agent: persona("storyteller"), team: team.filter((member) => member.persona !== "songwriter") });
    const request = entry(
      "req-1",
      "request",
      { targetPersona: "storyteller", ask: "Tell the story of my verse", refNodeIds: [] },
      "Songwriter",
    );
    const requested = context({
      agent: persona("storyteller"),
      run: { prompt: "Songwriter asks you: Tell the story of my verse", trigger: "request", requestedByName: "Songwriter", chainDepth: 1 },
      requests: [request],
    });
    expect(await askingSeeds(alone)).toEqual([]);
    expect(await askingSeeds(requested)).toEqual([]);
  }, 30_000);

  it("makes a piece with the Songwriter's answer, in its next run or in the step after the answer arrives mid-run", async () => {
    const [ask] = await askingSeeds(storyteller, SEEDS.slice(0, 8));
    const answer = `Songwriter answered your help request ("${String(ask!.input.question)}"): Open with “A lamp left on”.`;
    // The line it was offered, quoted once: no quotation left open inside another.
    const withHelp = /^With Songwriter's help — “A lamp left on”\n[^“”"]+$/s;

    // The answer waited for the Storyteller's next run: it is the first thing that run acts on, once.
    const next = await play(context({ agent: persona("storyteller"), messages: [answer] }), ask!.seed);
    expect(next.steps[0]!.text).toBe("Songwriter answered my question; I'm using it.");
    expect(next.steps[0]!.calls).toEqual([
      { name: "create_node", input: expect.objectContaining({ kind: "story", text: expect.stringMatching(withHelp) }) },
    ]);
    const used = (steps: Recorded[]) =>
      steps.flatMap((step) => step.calls).filter((call) => /^With Songwriter's help/.test(String(call.input.text ?? "")));
    expect(used(next.steps)).toHaveLength(1);

    // The asker still at work reads it in its very next step and makes the piece there.
    const during = await play(storyteller, ask!.seed, { arrivals: { 3: [answer] } });
    expect(helpCalls(during.steps)).toHaveLength(1);
    expect(during.steps[3]!.calls).toEqual([
      { name: "create_node", input: expect.objectContaining({ kind: "story", text: expect.stringMatching(withHelp) }) },
    ]);
    expect(used(during.steps)).toHaveLength(1);
  });
});

describe("the script model's findings", () => {
  /** `count` pieces on the canvas, taking turns between `authors`, newest last. */
  const pieces = (count: number, authors: string[]) =>
    Array.from({ length: count }, (_, index) => ({
      ...node(`piece-${index}`, "note", `Piece ${index}: rain on the window`, (index % 4) * 300, Math.floor(index / 4) * 200),
      authorName: authors[index % authors.length]!,
    }));
  const theme = entry("theme-1", "theme", {
    mood: "melancholic",
    palette: ["#1c3d5a", "#3e6a8a", "#8fb3cc", "#dfe9f0"],
    keywords: ["rain"],
  });
  const flagged = {
    agentName: "Storyteller",
    severity: "high",
    text: "The canvas holds 13 pieces but no shared theme; a melancholic theme would tie them together.",
  };

  /** The finding the run posted: what it says and how serious it is. */
  async function postedBy(agent: ReturnType<typeof persona>, overrides: Partial<PromptContext> = {}) {
    const { steps } = await play(context({ agent, ...overrides }));
    const posted = steps.flatMap((step) => step.calls).filter((call) => call.name === "post_finding");
    expect(posted, JSON.stringify(steps.map((step) => [step.text, step.calls.map((call) => call.name)]))).toHaveLength(1);
    return posted[0]!.input as { finding: string; severity: string };
  }

  it("has nothing to note on a canvas where nobody else has worked yet", async () => {
    const { steps } = await play(context({ agent: persona("songwriter") }));
    expect(steps.flatMap((step) => step.calls).filter((call) => call.name === "post_finding")).toEqual([]);
  });

  it("notes, as an observation, a teammate's piece and one of its own that share an image, quoting both", async () => {
    const canvas = { nodes: pieces(4, ["Scene Painter", "Storyteller"]), edges: [] };
    const posted = await postedBy(persona("songwriter"), { canvas });
    expect(posted).toMatchObject({
      severity: "low",
      finding: expect.stringMatching(/^(Scene Painter|Storyteller)'s “Piece \d: rain on the window” and my “[^“”]+” both turn on “\w+”/),
    });
    // Specific: the shared word is in both pieces it quotes.
    const [, theirs, mine, word] = posted.finding.match(/“([^”]+)” and my “([^”]+)” both turn on “([^”]+)”/)!;
    expect(theirs!.toLowerCase()).toContain(word);
    expect(mine!.toLowerCase()).toContain(word);
    // Not repeated: with that finding on the board, the next run says nothing of the same pair.
    const again = await play(
      context({ agent: persona("songwriter"), canvas, findings: [{ agentName: "Songwriter", severity: "low", text: posted.finding }] }),
    );
    const later = again.steps.flatMap((step) => step.calls).filter((call) => call.name === "post_finding");
    for (const call of later) expect(call.input.finding).not.toBe(posted.finding);
  });

  it("suggests a theme for a big canvas without one, never as an alarm, counting every piece, also those the prompt left out", async () => {
    const canvas = { nodes: pieces(14, ["Scene Painter", "Storyteller", "Idea Weaver"]), edges: [] };
    expect(await postedBy(persona("songwriter"), { canvas })).toMatchObject({
      severity: "medium",
      finding: expect.stringMatching(/^The canvas holds 14 pieces but no shared theme/),
    });
    // A small budget leaves most of the canvas out of the prompt: the finding still counts all of it.
    const many = { nodes: pieces(40, ["Scene Painter", "Storyteller", "Idea Weaver"]), edges: [] };
    const tight = { ...DEFAULT_ROOM_SETTINGS, context_token_budget: 600 };
    expect(
      buildPrompt(context({ agent: persona("songwriter"), canvas: many, settings: tight })).prompt.match(/^- node /gm)!.length,
    ).toBeLessThan(40);
    expect(await postedBy(persona("songwriter"), { canvas: many, settings: tight })).toMatchObject({
      severity: "medium",
      finding: expect.stringMatching(/^The canvas holds 40 pieces but no shared theme/),
    });
  });

  it("does not suggest a theme where there is one, nor again once a teammate has", async () => {
    const canvas = { nodes: pieces(14, ["Scene Painter", "Storyteller", "Idea Weaver"]), edges: [] };
    const withTheme = await postedBy(persona("songwriter"), { canvas, board: [theme] });
    expect(withTheme.finding).not.toMatch(/no shared theme/);
    const told = await postedBy(persona("scene-painter"), {
      canvas: { nodes: pieces(15, ["Songwriter", "Storyteller"]), edges: [] },
      findings: [flagged],
    });
    expect(told.finding).not.toMatch(/no shared theme/);
    expect(told.severity).toBe("low");
  });

  it("never raises an alarm in a creative room, whoever plays and whatever the canvas holds", async () => {
    for (const key of ["songwriter", "scene-painter", "idea-weaver", "storyteller", "curator"]) {
      for (const count of [0, 3, 14]) {
        const { steps } = await play(
          context({ agent: persona(key), canvas: { nodes: pieces(count, ["Songwriter", "Scene Painter", "Storyteller"]), edges: [] } }),
        );
        for (const call of steps.flatMap((step) => step.calls).filter((call) => call.name === "post_finding")) {
          expect(call.input.severity, `${key}, ${count} pieces`).not.toBe("high");
        }
      }
    }
  });

  it("grades an imported team's findings about its task the same way", async () => {
    const planner = { name: "planner", persona: "planner", role: "Plans.", systemPrompt: "" };
    const team = [
      { name: "planner", persona: "planner", role: "Plans.", description: "Plans the work." },
      { name: "fetcher", persona: "fetcher", role: "Fetches.", description: "Fetches pages." },
      { name: "checker", persona: "checker", role: "Checks.", description: "Checks results." },
    ];
    const settings = { ...DEFAULT_ROOM_SETTINGS, task: "Build a web scraper for product prices" };
    const on = (overrides: Partial<PromptContext>) => postedBy(planner, { team, settings, ...overrides });
    expect(await on({})).toMatchObject({ severity: "low" });
    expect(await on({ canvas: { nodes: pieces(3, ["fetcher", "checker"]), edges: [] } })).toMatchObject({ severity: "medium" });
    const big = { nodes: pieces(13, ["fetcher", "checker"]), edges: [] };
    const high = await on({ canvas: big });
    expect(high).toMatchObject({ severity: "high", finding: expect.stringMatching(/^The canvas holds 13 notes on .* but no shared plan/) });
    expect(await on({ canvas: big, findings: [{ agentName: "fetcher", severity: "high", text: high.finding }] })).toMatchObject({
      severity: "medium",
    });
  });
});

/** How a shadow's call hands its prompt over as data. */
const asShadow = (sections: ShadowSections) => ({ providerOptions: { [PROMPT_SECTIONS_KEY]: { [SHADOW_SECTIONS_KEY]: sections } } });

describe("the script model as a teammate's shadow", () => {
  it("answers with nothing in progress and nothing made yet without quoting the prompt's placeholder", async () => {
    const agents = [
      persona("songwriter"),
      persona("curator"),
      { name: "fetcher", persona: "fetcher", role: "Fetches pages.", systemPrompt: "" },
    ];
    for (const agent of agents) {
      for (const depth of ["low", "medium", "high"] as const) {
        const { system, messages, sections } = buildShadowPrompt({
          agent,
          words: CREATIVE_CANVAS.instructions!,
          askerName: "Scene Painter",
          question: "Should the scene be lit by the streetlights or by a single lamp?",
          options: ["the streetlights", "a single lamp"],
          depth,
          history: [],
          currentText: "",
        });
        expect(JSON.stringify(messages)).toContain("(nothing at the moment)");
        const { text } = await generateText({ model: createScriptModel({ name: agent.persona }), system, messages, ...asShadow(sections) });
        expect(text).toMatch(/: go with (the streetlights|a single lamp)\./);
        expect(text).not.toMatch(/nothing at the moment|“\(|I made “|My note “|Right now I'm/);
      }
    }
  });
});

describe("the script model on a room's own task", () => {
  // A subject none of the moods' imagery speaks of: whatever mood a persona picks, its pieces name the task.
  const TASK = "Write a song about my grandmother's kitchen and paint the scene it describes.";
  const NAMES_TASK = /\b(grandmother|kitchen)/i;
  const elsewhere = [
    node("n-1", "lyric", "Verse\nThe last bus hums a song we used to know\nAn umbrella left open on the bench", -400, 0),
    node("n-2", "scene", "Scene: neon signs over the midnight train", -400, 300),
    node("n-3", "idea", "Spark: The tide as a patient letter-writer", -400, 600),
  ].map((item, index) => ({ ...item, authorName: ["Songwriter", "Scene Painter", "Idea Weaver"][index]! }));

  it("makes every piece, entry and finding about what the task is about, whoever plays and whatever the canvas shows", async () => {
    for (const key of ["songwriter", "scene-painter", "idea-weaver", "storyteller", "curator"]) {
      for (const seed of [1, 2, 3]) {
        const { steps } = await play(
          context({
            agent: persona(key),
            settings: { ...DEFAULT_ROOM_SETTINGS, task: TASK },
            run: { prompt: `${TASK}\n\nYour part: do your part.`, trigger: "scheduler", requestedByName: "Scheduler", chainDepth: 0 },
            canvas: { nodes: elsewhere, edges: [] },
          }),
          seed,
        );
        const calls = steps.flatMap((step) => step.calls);
        const made = calls.filter((call) => call.name === "create_node").map((call) => String(call.input.text));
        const shared = calls
          .filter((call) => ["share_creative_context", "post_finding", "request_agent"].includes(call.name))
          .map((call) => JSON.stringify(call.input));
        expect(made.length, key).toBeGreaterThan(0);
        for (const text of [...made, ...shared]) expect(text, `${key}, seed ${seed}`).toMatch(NAMES_TASK);
      }
    }
  });

  it("reads the subject up to the next thing the task asks for", async () => {
    const { steps } = await play(context({ agent: persona("songwriter"), settings: { ...DEFAULT_ROOM_SETTINGS, task: TASK } }));
    const plan = (steps[0]!.calls[0]!.input.content as { plan: string }).plan;
    expect(plan).toMatch(/verse about my grandmother's kitchen$/);
  });
});

describe("the script model, for an imported team's agent", () => {
  const TASK = "Build a web scraper for product prices";
  const TASK_WORDS = /\b(web|scraper|product|prices)\b/i;
  const importedTeam = [
    { name: "planner", persona: "planner", role: "openai · gpt-5", description: "Plans the work." },
    { name: "fetcher", persona: "fetcher", role: "vllm · qwen2.5-coder", description: "Fetches pages." },
    { name: "checker", persona: "checker", role: "claude · claude-sonnet-4-5", description: "Checks results." },
  ];
  const agent = (key: string) => ({ ...importedTeam.find((member) => member.persona === key)!, systemPrompt: "" });
  const imported = (overrides: Partial<PromptContext> & Pick<PromptContext, "agent">) =>
    context({
      team: importedTeam,
      settings: { ...DEFAULT_ROOM_SETTINGS, task: TASK, broadcast: "agents", broadcast_sensitivity: "high" },
      run: { prompt: TASK, trigger: "scheduler", requestedByName: "Scheduler", chainDepth: 0 },
      ...overrides,
    });
  const everything = (steps: Recorded[]) =>
    steps.flatMap((step) => [step.text, JSON.stringify(step.calls.map((call) => call.input))]).join("\n");

  it("asks the others about its own task and builds on their answer, never about verses or scenes", async () => {
    const seen = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { steps } = await play(imported({ agent: agent("planner") }), seed, {
        answers: [{ responder_name: "fetcher", content: "From my side: go with scraper. It keeps prices testable." }],
      });
      const ask = steps.flatMap((step) => step.calls).find((call) => call.name === "ask_others")!;
      expect(String(ask.input.question)).toMatch(TASK_WORDS);
      expect((ask.input.options as string[]).every((option) => TASK_WORDS.test(option))).toBe(true);
      const made = steps.flatMap((step) => step.calls).filter((call) => call.name === "create_node");
      expect(made).toHaveLength(1);
      expect(String(made[0]!.input.text)).toMatch(TASK_WORDS);
      expect(String(made[0]!.input.text)).toContain("Agreed with fetcher: From my side: go with scraper.");
      const contribution = steps.flatMap((step) => step.calls).find((call) => call.input.entryType === "contribution")!;
      expect(contribution.input.content).not.toHaveProperty("mood");
      const memory = steps.flatMap((step) => step.calls).filter((call) => call.name === "post_finding" || call.name === "update_knowledge");
      expect(memory.map((call) => call.name)).toEqual(["post_finding", "update_knowledge"]);
      expect(JSON.stringify(memory.map((call) => call.input))).toMatch(TASK_WORDS);
      expect(creativeWordsIn(everything(steps))).toEqual([]);
      seen.add(String(ask.input.question));
    }
    // The question is the task's, but not one fixed sentence.
    expect(seen.size).toBeGreaterThan(1);
  });

  it("asks a teammate for help about a part of the task, and answers a help request about the task", async () => {
    const asked: string[] = [];
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const { steps } = await play(imported({ agent: agent("planner"), settings: { ...DEFAULT_ROOM_SETTINGS, task: TASK } }), seed);
      const help = steps.flatMap((step) => step.calls).find((call) => call.name === "request_help");
      if (help) {
        expect(["fetcher", "checker"]).toContain(help.input.target);
        asked.push(String(help.input.question));
      }
    }
    expect(asked.length).toBeGreaterThan(0);
    for (const question of asked) expect(question).toMatch(TASK_WORDS);

    const { steps } = await play(
      imported({
        agent: agent("fetcher"),
        run: { prompt: `planner asks for your help: ${asked[0]}`, trigger: "request", requestedByName: "planner", chainDepth: 1 },
      }),
    );
    expect(steps).toHaveLength(1);
    expect(steps[0]!.text).toMatch(TASK_WORDS);
    expect(creativeWordsIn(steps[0]!.text)).toEqual([]);
  });

  it("acts on a person's message and on a teammate's help answer with notes about the task", async () => {
    const { steps } = await play(
      imported({
        agent: agent("checker"),
        run: {
          prompt: 'Ada sent you a message (under "Messages for you"). Act on it now.',
          trigger: "command",
          requestedByName: "Ada",
          chainDepth: 0,
        },
        messages: [
          "Ada says: add a retry when a page times out",
          'fetcher answered your help request ("How would you handle prices?"): start with a small parser for prices',
        ],
      }),
    );
    const made = steps.flatMap((step) => step.calls).filter((call) => call.name === "create_node");
    expect(made.map((call) => call.input.kind)).toEqual(["note", "note"]);
    for (const call of made) {
      expect(String(call.input.text)).toContain(`For: ${TASK}`);
      expect(creativeWordsIn(String(call.input.text))).toEqual([]);
    }
  });

  it("answers as a shadow about the question's task, at every depth", async () => {
    for (const depth of ["low", "medium", "high"] as const) {
      const { system, messages, sections } = buildShadowPrompt({
        agent: { ...agent("fetcher"), systemPrompt: "" },
        words: PLAIN_INSTRUCTIONS,
        askerName: "planner",
        question: `For “${TASK}”: what should come first — scraper or prices?`,
        options: ["scraper", "prices"],
        depth,
        history: [
          {
            prompt: TASK,
            transcript: [
              {
                role: "assistant",
                text: "Here is how I would start.",
                toolCalls: [{ name: "create_node", input: { kind: "note", text: "fetcher on the scraper: fetch one product page first" } }],
              },
            ],
          },
        ],
        currentText: "",
      });
      const { text } = await generateText({ model: createScriptModel({ name: "fetcher" }), system, messages, ...asShadow(sections) });
      expect(text).toMatch(/^From my side: go with (scraper|prices)\./);
      expect(text).toMatch(TASK_WORDS);
      expect(creativeWordsIn(text)).toEqual([]);
      if (depth !== "low") expect(text).toContain("fetch one product page first");
    }
  });
});

describe("the script model following people's commands", () => {
  // Varied commands to every persona, each with the word its reply must take up.
  const COMMANDS: [persona: string, command: string, keyWord: RegExp][] = [
    ["songwriter", "try a sea shanty", /shant/i],
    ["storyteller", "write about a lighthouse", /lighthouse/i],
    ["scene-painter", "paint the harbour at dawn", /harbour/i],
    ["idea-weaver", "give me ideas about a night market", /market/i],
    ["curator", "gather the work about the old orchard", /orchard/i],
    ["songwriter", "a verse about my grandmother's kitchen", /kitchen|grandmother/i],
    ["storyteller", "tell a story about a lost umbrella", /umbrella/i],
    ["scene-painter", "draw a desert train station", /desert|station/i],
    ["idea-weaver", "sparks for a song about moving to a new city", /city|moving/i],
    ["songwriter", "write a chorus about snow on the mountains", /snow|mountain/i],
    ["storyteller", "try a ghost story in an old theatre", /ghost|theatre/i],
    ["scene-painter", "paint a rooftop garden in the rain", /rooftop|garden/i],
    ["curator", "make a space for the bicycle parade", /bicycle|parade/i],
    ["idea-weaver", "try a lullaby for a lighthouse keeper", /lullaby|lighthouse|keeper/i],
    ["songwriter", "sing about the last ferry home", /ferry/i],
    ["storyteller", "write about two foxes in the snow", /fox/i],
    ["scene-painter", "a scene of a fishing village at noon", /village|fishing/i],
    ["songwriter", "could you write a love song for a robot", /robot/i],
    ["idea-weaver", "ideas about a library on the moon", /library|moon/i],
    ["curator", "group everything about the summer festival", /festival/i],
    ["storyteller", "tell us about a clockmaker's apprentice", /clockmaker|apprentice/i],
    ["scene-painter", "paint a volcano under the stars", /volcano/i],
  ];

  it("takes up what each command asks: the piece it makes for it names the command's subject", async () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(20);
    for (const [key, command, keyWord] of COMMANDS) {
      const { steps } = await play(
        context({
          agent: persona(key),
          settings: { ...DEFAULT_ROOM_SETTINGS, task: "Write a short verse about rain on a city window at night." },
          run: {
            prompt: 'Ada sent you a message (under "Messages for you"). Act on it now.',
            trigger: "command",
            requestedByName: "Ada",
            chainDepth: 0,
          },
          messages: [`Ada says: ${command}`],
        }),
      );
      const made = steps.flatMap((step) => step.calls).filter((call) => call.name === "create_node");
      expect(made, command).toHaveLength(1);
      const [title, ...body] = String(made[0]!.input.text).split("\n");
      expect(title, command).toBe(`As Ada asked — “${command}”`);
      // The piece itself, not only its title that repeats the command, is about what was asked.
      expect(body.join("\n"), `${key}: ${command}`).toMatch(keyWord);
    }
  }, 60_000);

  it("keeps one name for a story's character across the room's stories", async () => {
    const task = { ...DEFAULT_ROOM_SETTINGS, task: "A lullaby for a lighthouse keeper" };
    const first = await play(
      context({
        agent: persona("storyteller"),
        settings: task,
        run: {
          prompt: "A lullaby for a lighthouse keeper\n\nYour part: tell a tiny story.",
          trigger: "scheduler",
          requestedByName: "Scheduler",
          chainDepth: 0,
        },
      }),
    );
    const beats = first.steps
      .flatMap((step) => step.calls)
      .filter((call) => call.name === "create_node")
      .map((call) => String(call.input.text));
    expect(beats).toHaveLength(3);
    const names = (texts: string[]) =>
      new Set(texts.flatMap((text) => text.match(/\b(Mara|Jun|Teo|Lina|Ravi|Odile|Sam|Noor|Theo|Ada)\b/g) ?? []));
    expect(names(beats).size).toBe(1);
    for (const beat of beats) expect(beat).toMatch(/lullaby|lighthouse|keeper/i);
    // A later run, and a command, on a canvas that holds the story: the same name.
    const canvas = {
      nodes: beats.map((text, index) => ({ ...node(`beat-${index}`, "story", text, index * 380, 0), authorName: "Storyteller" })),
      edges: [],
    };
    for (const seed of [2, 3, 4]) {
      const later = await play(
        context({ agent: persona("storyteller"), settings: task, canvas, messages: ["Ada says: write about a storm at sea"] }),
        seed,
      );
      const told = later.steps
        .flatMap((step) => step.calls)
        .filter((call) => call.name === "create_node")
        .map((call) => String(call.input.text));
      // Its title names who asked for it; the story is in the lines below.
      expect(names([...beats, ...told.map((text) => text.replace(/^As Ada asked — .*\n/, ""))])).toEqual(names(beats));
    }
  }, 30_000);

  it("reads a room's task that does not say what it is about", async () => {
    const { steps } = await play(
      context({
        agent: persona("songwriter"),
        settings: { ...DEFAULT_ROOM_SETTINGS, task: "A lullaby for a lighthouse keeper" },
        run: {
          prompt: "A lullaby for a lighthouse keeper\n\nYour part: write a short verse or chorus for it.",
          trigger: "scheduler",
          requestedByName: "Scheduler",
          chainDepth: 0,
        },
      }),
    );
    const lyrics = steps
      .flatMap((step) => step.calls)
      .filter((call) => call.name === "create_node")
      .map((call) => String(call.input.text));
    expect(lyrics.length).toBeGreaterThan(0);
    for (const lyric of lyrics) expect(lyric).toMatch(/lullaby|lighthouse|keeper/i);
    expect(lyrics.join("\n")).not.toMatch(/\brain\b/i);
  });
});
