import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { type PromptContext, buildPrompt } from "@/lib/agents/build-prompt";
import type { BoardEntryDto, CanvasNodeDto } from "@/lib/protocol";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { templateInstructions } from "@/lib/rooms/templates";
import { promptSectionsOf, readPrompt } from "./read-prompt";

const node = (index: number): CanvasNodeDto => ({
  id: `node-${index}`,
  kind: index % 2 ? "lyric" : "scene",
  text: `Line ${index}: rain on the harbour ${"word ".repeat(index * 10)}`,
  x: index * 10.4,
  y: -index,
  width: null,
  height: null,
  color: null,
  authorKind: "agent",
  authorId: `agent-${index}`,
  authorName: "Scene Painter",
  version: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

const entry = (index: number, kind: BoardEntryDto["kind"]): BoardEntryDto => ({
  id: `entry-${index}`,
  runId: null,
  agentId: null,
  agentName: "Idea Weaver",
  kind,
  content:
    kind === "request"
      ? { targetPersona: "songwriter", ask: `Request ${index} ${"please ".repeat(60)}`, refNodeIds: ["node-1"] }
      : { plan: `Plan ${index}` },
  targetPersona: kind === "request" ? "songwriter" : null,
  requestStatus: kind === "request" ? "open" : null,
  answersEntryId: null,
  expiresAt: "2026-01-01T01:00:00.000Z",
  createdAt: "2026-01-01T00:00:00.000Z",
});

function context(budget: number): PromptContext {
  return {
    agent: { name: "Songwriter", persona: "songwriter", role: "Lyricist", systemPrompt: "You write lyrics." },
    team: [
      { name: "Songwriter", persona: "songwriter", role: "Lyricist", description: "Writes" },
      { name: "Scene Painter", persona: "scene-painter", role: "Visual artist", description: "Paints", areas: ["light"] },
    ],
    settings: { ...DEFAULT_ROOM_SETTINGS, task: "A song about a harbour town", context_token_budget: budget, broadcast: "agents" },
    run: { prompt: "Write a verse.", trigger: "request", requestedByName: "Idea Weaver", chainDepth: 1, requestEntryId: "entry-9" },
    canvas: { nodes: Array.from({ length: 12 }, (_, index) => node(index)), edges: [] },
    referencedNodes: [node(3)],
    board: [entry(1, "intention"), entry(2, "theme")],
    requests: [entry(9, "request"), entry(8, "request")],
    notes: ["The Storyteller answered: the one who stays."],
    messages: ["Ada says: make it rain", 'Scene Painter answered your help request ("Which light?"): dawn'],
    findings: [{ agentName: "Curator", severity: "high", text: "The canvas is crowded" }],
    extraSections: [{ title: "Answers from the people in this room", lines: ["- Q: Rain or sun?\n  A: Rain"] }],
    instructions: templateInstructions("creative-canvas"),
    toolNames: ["ask_others"],
  };
}

function asPrompt(built: { system: string; prompt: string }): LanguageModelV4Prompt {
  return [
    { role: "system", content: built.system },
    { role: "user", content: [{ type: "text", text: built.prompt }] },
  ];
}

describe("reading the opening as data", () => {
  it.each([8000, 1500, 400])("reads what the prose says, at a budget of %i tokens", (budget) => {
    const built = buildPrompt(context(budget));
    const fromProse = readPrompt(asPrompt(built));
    const fromData = readPrompt(asPrompt(built), built.sections);
    // A workflow's sections are read as data only: prose never carried their items.
    const { extras: _prose, ...prose } = fromProse;
    const { extras: _data, ...data } = fromData;
    expect(data).toEqual(prose);
    expect(data.persona).toBe("songwriter");
    expect(data.requests[0]?.id).toBe("entry-9");
  });

  it("does not depend on the prose's wording when the sections are given", () => {
    const built = buildPrompt(context(8000));
    const reworded = { system: "Some other wording entirely.", prompt: "# Everything said differently" };
    const reading = readPrompt(asPrompt(reworded), built.sections);
    expect(reading).toMatchObject({
      name: "Songwriter",
      persona: "songwriter",
      task: "Write a verse.",
      broadcast: { sensitivity: "medium" },
    });
    expect(reading.canvas).toHaveLength(12);
    expect(reading.team).toEqual([{ name: "Scene Painter", persona: "scene-painter" }]);
    expect(reading.messages.map((message) => message.kind)).toEqual(["command", "help"]);
    expect(reading.humanAnswers).toEqual([{ question: "Rain or sun?", answer: "Rain" }]);
  });

  it("takes the sections only from its own provider-options namespace", () => {
    const { sections } = buildPrompt(context(8000));
    expect(promptSectionsOf({ parley: { prompt: sections } })).toEqual(sections);
    expect(promptSectionsOf({ openai: { prompt: sections } })).toBeNull();
    expect(promptSectionsOf({ parley: { prompt: "text" } })).toBeNull();
    expect(promptSectionsOf(undefined)).toBeNull();
  });
});
