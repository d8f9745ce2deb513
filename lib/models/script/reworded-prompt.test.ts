import { generateText, isStepCount, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type PromptContext, buildPrompt } from "@/lib/agents/build-prompt";
import { PROMPT_SECTIONS_KEY } from "@/lib/agents/prompt-sections";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { CREATIVE_CANVAS } from "@/lib/rooms/templates";
import { boardEntryDto, nodeDto } from "@/test/builders";
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
