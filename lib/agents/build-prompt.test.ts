import { describe, expect, it } from "vitest";
import type { BoardEntryDto, CanvasNodeDto } from "@/lib/protocol";
import { DEFAULT_ROOM_SETTINGS, MIN_CONTEXT_TOKEN_BUDGET } from "@/lib/rooms/room-settings";
import { type PromptContext, buildPrompt, estimateTokens } from "./build-prompt";
import { templateInstructions } from "@/lib/rooms/templates";

const node = (index: number): CanvasNodeDto => ({
  id: `node-${index}`,
  kind: "note",
  text: `Note number ${index} ${"word ".repeat(20)}`,
  x: index * 10,
  y: 0,
  width: null,
  height: null,
  color: null,
  authorKind: "human",
  authorId: "human:a",
  authorName: "Ada",
  version: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

const entry = (index: number, kind: BoardEntryDto["kind"] = "intention"): BoardEntryDto => ({
  id: `entry-${index}`,
  runId: null,
  agentId: null,
  agentName: "Idea Weaver",
  kind,
  content:
    kind === "request"
      ? { targetPersona: "songwriter", ask: `Request ${index}`, refNodeIds: [] }
      : { plan: `Plan ${index} ${"detail ".repeat(15)}` },
  targetPersona: kind === "request" ? "songwriter" : null,
  requestStatus: kind === "request" ? "open" : null,
  answersEntryId: null,
  expiresAt: "2026-01-01T01:00:00.000Z",
  createdAt: "2026-01-01T00:00:00.000Z",
});

function context(overrides: Partial<PromptContext> = {}): PromptContext {
  return {
    agent: { name: "Songwriter", persona: "songwriter", role: "Lyricist", systemPrompt: "You write lyrics." },
    team: [
      { name: "Songwriter", persona: "songwriter", role: "Lyricist", description: "Writes" },
      { name: "Scene Painter", persona: "scene-painter", role: "Visual artist", description: "Paints" },
    ],
    settings: DEFAULT_ROOM_SETTINGS,
    run: { prompt: "Write a verse.", trigger: "human", requestedByName: "Ada", chainDepth: 0 },
    canvas: { nodes: [], edges: [] },
    referencedNodes: [],
    board: [],
    requests: [],
    notes: [],
    toolNames: [],
    ...overrides,
  };
}

describe("buildPrompt", () => {
  it("puts persona and guidance in the system prompt, and the team in the prompt with their strongest areas", () => {
    const { system, prompt } = buildPrompt(
      context({
        team: [
          { name: "Songwriter", persona: "songwriter", role: "Lyricist", description: "Writes" },
          {
            name: "Scene Painter",
            persona: "scene-painter",
            role: "Visual artist",
            description: "Paints",
            areas: ["harbours", "light", "fog", "rain"],
          },
        ],
        instructions: templateInstructions("creative-canvas"),
      }),
    );
    expect(system).toMatch(/^You are Songwriter, the Lyricist .*\(persona: songwriter\)/);
    expect(system).toMatch(/You write lyrics\./);
    expect(system).toMatch(/share your creative intention using share_creative_context/);
    expect(system).toMatch(/post_finding/);
    expect(prompt).toMatch(
      /## Your team\n- Scene Painter \(persona: scene-painter\) — Visual artist: Paints · knows harbours, light, fog\n/,
    );
    expect(prompt).not.toMatch(/Songwriter \(persona: songwriter\)/);
  });

  it("tells an agent only its own template's team, node kinds and teammate suggestions", () => {
    const creative = buildPrompt(context({ instructions: templateInstructions("creative-canvas") })).system;
    expect(creative).toMatch(/of a creative team working together/);
    expect(creative).toMatch(/kinds: lyric, scene, idea, story, theme, note, group/);
    expect(creative).toMatch(/ask the Scene Painter to illustrate your lyrics/);
    for (const template of ["build-review", "brainstorm", "no-such-template"]) {
      const reviewer = { name: "Reviewer", persona: "reviewer", role: "Code reviewer", systemPrompt: "You review code." };
      const system = buildPrompt(context({ agent: reviewer, instructions: templateInstructions(template) })).system;
      expect(system).toMatch(/of a team working together on a shared canvas/);
      expect(system).not.toMatch(/creative team|lyric|Scene Painter|scene|palette|mood/i);
    }
  });

  it("shows the room's last findings, newest last, clipped, and leaves the 16th-newest out", () => {
    const findings = Array.from({ length: 16 }, (_, index) => ({
      agentName: index % 2 ? "Scene Painter" : "Storyteller",
      severity: index === 15 ? "high" : "low",
      text: `Finding ${index} ${"x".repeat(index === 15 ? 400 : 5)}`,
    }));
    const { prompt, dropped } = buildPrompt(context({ findings, settings: { ...DEFAULT_ROOM_SETTINGS, context_token_budget: 50_000 } }));
    const section = prompt.split("## Shared findings\n")[1]!.split("\n\n")[0]!.split("\n");
    expect(section).toHaveLength(15);
    expect(section[0]).toBe("- [Scene Painter · low] Finding 1 xxxxx");
    expect(section[14]).toMatch(/^- \[Scene Painter · high\] Finding 15 x+…$/);
    expect(section[14]!.length).toBe("- [Scene Painter · high] ".length + 300);
    expect(prompt).not.toMatch(/Finding 0 /);
    expect(dropped.findings).toBe(1);
  });

  it("cuts findings to the budget before anything above them, and never the persona", () => {
    const findings = Array.from({ length: 15 }, (_, index) => ({
      agentName: "Storyteller",
      severity: "medium",
      text: `Finding ${index} ${"word ".repeat(50)}`,
    }));
    const built = buildPrompt(
      context({ findings, messages: ["Ada says: try a sea shanty"], settings: { ...DEFAULT_ROOM_SETTINGS, context_token_budget: 400 } }),
    );
    expect(built.contextTokens).toBeLessThanOrEqual(400);
    expect(built.dropped.findings).toBeGreaterThan(0);
    expect(built.prompt).toMatch(/## Messages for you\n- Ada says: try a sea shanty/);
    expect(built.system).toMatch(/You write lyrics\./);
  });

  it("shows the agent's knowledge: top 5 areas, last 3 tasks, last 10 insights", () => {
    const knowledge = {
      areas: Array.from({ length: 7 }, (_, index) => ({ area: `area-${index}`, level: 90 - index })),
      insights: Array.from({ length: 12 }, (_, index) => `Insight ${index}`),
      tasks: Array.from({ length: 5 }, (_, index) => ({ asked: `Task ${index}`, outcome: "done" })),
    };
    const { prompt } = buildPrompt(context({ knowledge, settings: { ...DEFAULT_ROOM_SETTINGS, context_token_budget: 50_000 } }));
    const section = prompt.split("## Your knowledge\n")[1]!.split("\n\n")[0]!;
    expect(section).toMatch(/^- Expertise: area-0 90\/100, area-1 89\/100, area-2 88\/100, area-3 87\/100, area-4 86\/100\n/);
    expect(section).not.toMatch(/area-5/);
    expect(section.match(/- Task: /g)).toHaveLength(3);
    expect(section).toMatch(/- Task: Task 4 → done/);
    expect(section).not.toMatch(/Task 1 /);
    expect(section.match(/- Insight: /g)).toHaveLength(10);
    expect(section).toMatch(/Insight 11$/);
    expect(section).not.toMatch(/Insight 1\n/);
  });

  it("trims the agent's knowledge by its oldest insights first, showing what it keeps in order", () => {
    const knowledge = {
      areas: [{ area: "sea-shanties", level: 40 }],
      insights: Array.from({ length: 10 }, (_, index) => `Insight ${index}: ${"the tide turns ".repeat(4)}`),
      tasks: [
        { asked: "Write a verse", outcome: "done" },
        { asked: "Write a chorus", outcome: "done" },
      ],
    };
    const built = buildPrompt(context({ team: [], knowledge, settings: { ...DEFAULT_ROOM_SETTINGS, context_token_budget: 150 } }));
    expect(built.contextTokens).toBeLessThanOrEqual(150);
    expect(built.dropped.knowledge).toBeGreaterThan(0);
    const section = built.prompt.split("## Your knowledge\n")[1]!.split("\n\n")[0]!.split("\n");
    const insights = section.filter((line) => line.startsWith("- Insight: ")).map((line) => Number(line.match(/Insight (\d+):/)![1]));
    expect(insights.length).toBeGreaterThan(0);
    // The newest insights, oldest of them first, after the areas and the tasks.
    expect(insights).toEqual(Array.from({ length: insights.length }, (_, index) => 10 - insights.length + index));
    expect(section.slice(0, 3)).toEqual([
      "- Expertise: sea-shanties 40/100",
      "- Task: Write a verse → done",
      "- Task: Write a chorus → done",
    ]);
    expect(section).toHaveLength(3 + insights.length);

    // With less room still, the insights are all gone before the areas or the newest task.
    const tight = buildPrompt(context({ team: [], knowledge, settings: { ...DEFAULT_ROOM_SETTINGS, context_token_budget: 34 } }));
    expect(tight.prompt.split("## Your knowledge\n")[1]!.split("\n\n")[0]).toBe(
      "- Expertise: sea-shanties 40/100\n- Task: Write a chorus → done",
    );
  });

  it("shows the task, the canvas, other agents' entries and the requests addressed to the agent", () => {
    const { prompt } = buildPrompt(
      context({
        canvas: { nodes: [node(1)], edges: [] },
        board: [entry(1)],
        requests: [entry(2, "request")],
        run: { prompt: "Write a verse.", trigger: "request", requestedByName: "Idea Weaver", chainDepth: 2 },
      }),
    );
    expect(prompt).toMatch(/## Task\nWrite a verse\./);
    expect(prompt).toMatch(/Requested by Idea Weaver \(chain depth 2 of 3\)/);
    expect(prompt).toMatch(/- node node-1 \[note\] by Ada at \(10, 0\): "Note number 1/);
    expect(prompt).toMatch(/- entry entry-1 \[Idea Weaver · intention\]/);
    expect(prompt).toMatch(/## Requests directed at you\n- entry entry-2 \[Idea Weaver asks\]/);
  });

  it("injects at most the room's number of recent board entries (15 by default)", () => {
    const board = Array.from({ length: 30 }, (_, index) => entry(index));
    const { prompt } = buildPrompt(context({ board, settings: { ...DEFAULT_ROOM_SETTINGS, context_token_budget: 50_000 } }));
    expect(prompt.match(/- entry /g)).toHaveLength(15);
    expect(prompt).toMatch(/entry-0 /);
    expect(prompt).not.toMatch(/entry-15 /);
  });

  it("holds the context to the token budget by dropping the oldest board entries and the oldest nodes", () => {
    const board = Array.from({ length: 15 }, (_, index) => entry(index));
    const nodes = Array.from({ length: 60 }, (_, index) => node(index));
    const requests = [entry(99, "request")];
    const built = buildPrompt(context({ board, canvas: { nodes, edges: [] }, requests }));
    expect(built.contextTokens).toBeLessThanOrEqual(DEFAULT_ROOM_SETTINGS.context_token_budget);
    expect(built.dropped.boardEntries).toBeGreaterThan(0);
    expect(built.dropped.boardEntries).toBeLessThan(15);
    expect(built.prompt).toMatch(/entry-0 /);
    expect(built.prompt).not.toMatch(/entry-14 /);
    expect(built.dropped.canvasNodes).toBeGreaterThan(0);
    expect(built.prompt).toMatch(/entry-99/);
    expect(built.prompt).toMatch(/node-59/);
    expect(built.prompt).not.toMatch(/node-0 /);

    const roomy = buildPrompt(context({ board, canvas: { nodes: nodes.slice(0, 3), edges: [] } }));
    expect(roomy.dropped.canvasNodes).toBe(0);
    expect(roomy.dropped.boardEntries).toBeLessThan(15);
    expect(estimateTokens(roomy.prompt)).toBeGreaterThan(0);
  });

  it("holds every section to the budget, keeping the request it serves and the latest notes", () => {
    const requests = Array.from({ length: 10 }, (_, index) => ({
      ...entry(100 + index, "request"),
      content: { targetPersona: "songwriter", ask: `Request ${index}: ${"x".repeat(590)}`, refNodeIds: [] },
    }));
    const notes = Array.from({ length: 40 }, (_, index) => `Note ${index}: ${"the gulls answered ".repeat(12)}`);
    const built = buildPrompt(
      context({
        requests,
        notes,
        run: { prompt: "Write a verse.", trigger: "request", requestedByName: "Idea Weaver", chainDepth: 1, requestEntryId: "entry-100" },
      }),
    );
    const budget = DEFAULT_ROOM_SETTINGS.context_token_budget;
    expect(built.contextTokens).toBeLessThanOrEqual(budget);
    const outsideBudget = built.prompt.slice(0, built.prompt.indexOf("\n\n## ", built.prompt.indexOf("## Why you were started")));
    expect(estimateTokens(built.prompt) - estimateTokens(outsideBudget)).toBeLessThanOrEqual(budget);
    expect(built.prompt).toMatch(/entry entry-100 \[Idea Weaver asks\] \{"targetPersona":"songwriter","ask":"Request 0: x+…"/);
    expect(built.prompt).toMatch(/- Note 39: /);
    expect(built.prompt).not.toMatch(/- Note 0: /);
    expect(built.dropped.notes).toBeGreaterThan(0);
  });

  it("counts the room brief, referenced nodes and people's answers, truncating long ones", () => {
    const referencedNodes = Array.from({ length: 20 }, (_, index) => ({ ...node(index), text: `Referenced ${index} ${"y".repeat(600)}` }));
    const built = buildPrompt(
      context({
        settings: { ...DEFAULT_ROOM_SETTINGS, task: `Brief ${"z".repeat(3990)}` },
        referencedNodes,
        canvas: { nodes: Array.from({ length: 30 }, (_, index) => node(index)), edges: [] },
        board: Array.from({ length: 15 }, (_, index) => entry(index)),
        extraSections: [
          {
            title: "Answers from the people in this room",
            lines: Array.from({ length: 30 }, (_, index) => `- Q: Question ${index}?\n  A: Answer ${index} ${"w".repeat(500)}`),
          },
        ],
      }),
    );
    expect(built.contextTokens).toBeLessThanOrEqual(DEFAULT_ROOM_SETTINGS.context_token_budget);
    expect(built.prompt).toMatch(/## Room brief\nBrief z+…\n/);
    expect(built.prompt).toMatch(/- node node-0 \[note\] by Ada at \(0, 0\): "Referenced 0 y+…"/);
    expect(built.prompt).toMatch(/Answer 29 /);
    expect(built.prompt).toMatch(/entry-0 /);
    expect(built.prompt).toMatch(/node-29 /);
    expect(built.dropped.referencedNodes).toBeGreaterThan(0);
  });
});

describe("buildPrompt over a small budget", () => {
  const ask = `Request 0: ${"x".repeat(590)}`;
  const served = (refNodeIds = ["node-1", "node-2"]): BoardEntryDto => ({
    ...entry(100, "request"),
    content: { targetPersona: "songwriter", ask, refNodeIds },
  });

  /** A crowded room: a long brief, the request the run serves and another, a full canvas and board, notes and answers. */
  const crowded = (budget: number, overrides: Partial<PromptContext> = {}) =>
    context({
      settings: { ...DEFAULT_ROOM_SETTINGS, context_token_budget: budget, task: `Brief ${"z".repeat(3990)}` },
      run: {
        prompt: `Idea Weaver asks you: ${ask}`,
        trigger: "request",
        requestedByName: "Idea Weaver",
        chainDepth: 1,
        requestEntryId: "entry-100",
      },
      requests: [served(), entry(101, "request")],
      referencedNodes: [node(1), node(2)],
      canvas: { nodes: Array.from({ length: 60 }, (_, index) => node(index)), edges: [] },
      board: Array.from({ length: 15 }, (_, index) => entry(index)),
      notes: ["The gulls answered."],
      extraSections: [{ title: "Answers from the people in this room", lines: ["- Q: Which sea?\n  A: The North Sea"] }],
      ...overrides,
    });

  /** What the budget holds: the prompt after the task and why the agent was started. */
  const budgeted = (prompt: string) => prompt.slice(prompt.indexOf("\n\n## ", prompt.indexOf("## Why you were started")));

  /** The line of the request the run serves. */
  const servedLine = (prompt: string) => prompt.match(/^- entry entry-100 .*$/m)?.[0] ?? "";

  it.each([MIN_CONTEXT_TOKEN_BUDGET, 120, 150, 200, 300, 500, 800, 1200])(
    "stays within %i tokens, keeping the persona and the request the run serves",
    (budget) => {
      const built = buildPrompt(crowded(budget));
      expect(built.contextTokens).toBeLessThanOrEqual(budget);
      expect(estimateTokens(budgeted(built.prompt))).toBeLessThanOrEqual(built.contextTokens);
      expect(built.system).toMatch(/^You are Songwriter, the Lyricist .*\(persona: songwriter\)/);
      expect(built.prompt).toContain(`## Task\nIdea Weaver asks you: ${ask}\n`);
      const line = servedLine(built.prompt);
      expect(line).toMatch(/^- entry entry-100 \[Idea Weaver asks\] \{/);
      const content = JSON.parse(line.slice(line.indexOf("{")));
      expect(content).toMatchObject({ targetPersona: "songwriter", refNodeIds: ["node-1", "node-2"] });
      expect(content.ask).toMatch(/^Request 0: x+…$/);
    },
  );

  it("shortens the request's ask, which the task repeats, before cutting the room brief with a marker", () => {
    const built = buildPrompt(crowded(300));
    const line = servedLine(built.prompt);
    expect(JSON.parse(line.slice(line.indexOf("{"))).ask.length).toBeLessThanOrEqual(64);
    expect(built.prompt).toMatch(/## Room brief\nBrief z{100,}…\(truncated\)\n/);
    expect(built.dropped).toMatchObject({ boardEntries: 15, canvasNodes: 60, requests: 1, referencedNodes: 2, notes: 1, extraLines: 1 });

    const roomier = buildPrompt(crowded(500));
    expect(roomier.prompt.match(/## Room brief\n(.*)\n/)![1]!.length).toBeGreaterThan(
      built.prompt.match(/## Room brief\n(.*)\n/)![1]!.length,
    );
  });

  it("leaves the brief out when too little of it fits, then cuts the request's line, never into its id", () => {
    const manyNodes = Array.from({ length: 30 }, (_, index) => `${index}`.padStart(64, "n"));
    const built = buildPrompt(crowded(MIN_CONTEXT_TOKEN_BUDGET, { requests: [served(manyNodes)] }));
    expect(built.contextTokens).toBeLessThanOrEqual(MIN_CONTEXT_TOKEN_BUDGET);
    expect(estimateTokens(budgeted(built.prompt))).toBeLessThanOrEqual(MIN_CONTEXT_TOKEN_BUDGET);
    expect(built.prompt).not.toMatch(/## Room brief/);
    expect(servedLine(built.prompt)).toMatch(
      /^- entry entry-100 \[Idea Weaver asks\] \{"targetPersona":"songwriter","ask":"Request 0: .*…\(truncated\)$/,
    );
  });

  it("keeps a brief cut to fit when no request is served", () => {
    const built = buildPrompt(
      crowded(MIN_CONTEXT_TOKEN_BUDGET, { run: { prompt: "Write a verse.", trigger: "human", requestedByName: "Ada", chainDepth: 0 } }),
    );
    expect(built.contextTokens).toBeLessThanOrEqual(MIN_CONTEXT_TOKEN_BUDGET);
    expect(built.prompt).toMatch(/## Room brief\nBrief z+…\(truncated\)\n/);
    expect(built.prompt).not.toMatch(/- entry entry-10[01] /);
  });

  it("goes over a budget too small for even the request's id and asker by no more than they take", () => {
    const built = buildPrompt(crowded(20));
    expect(servedLine(built.prompt)).toBe("- entry entry-100 [Idea Weaver asks]…(truncated)");
    expect(built.prompt).not.toMatch(/## Room brief/);
    expect(budgeted(built.prompt)).toBe(
      [
        "",
        "## Requests directed at you\n- entry entry-100 [Idea Weaver asks]…(truncated)\nPlease address these requests in your work if relevant.",
        "## Canvas (60 nodes, 0 edges)\n(left out: the context budget is spent)",
      ].join("\n\n"),
    );
  });
});
