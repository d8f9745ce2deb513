import { describe, expect, it } from "vitest";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { PLAIN_INSTRUCTIONS, templateInstructions } from "@/lib/rooms/templates";
import { boardEntryDto, edgeDto, nodeDto } from "@/test/builders";
import {
  formatEdgeLine,
  formatNodeLine,
  formatRequestLine,
  formatTeamLine,
  joinSections,
  renderCanvas,
  renderList,
  renderSystem,
  shortenRequestLine,
  whyStarted,
} from "./render-prompt";

const agent = { name: "Coder", persona: "coder", role: "Coder", systemPrompt: "You write code." };

describe("the prompt's words", () => {
  it("writes the system prompt in the template's words, with the engine's guidance or the workflow's in its place", () => {
    const review = renderSystem({
      agent,
      words: templateInstructions("build-review"),
      settings: { ...DEFAULT_ROOM_SETTINGS, broadcast: "agents" },
    });
    expect(review).toMatch(/^You are Coder, the Coder of /);
    expect(review).toContain("You write code.");
    expect(review).toContain("## Working on the canvas");
    expect(review).toContain("## Asking others (ask_others)");
    const plain = renderSystem({ agent, words: PLAIN_INSTRUCTIONS, settings: { ...DEFAULT_ROOM_SETTINGS, broadcast: "off" } });
    expect(plain).toContain(`the Coder of ${PLAIN_INSTRUCTIONS.team}`);
    expect(plain).not.toContain("ask_others");
    const staged = renderSystem({
      agent,
      words: PLAIN_INSTRUCTIONS,
      guidance: "## Your stage\n- Submit ideas.",
      settings: DEFAULT_ROOM_SETTINGS,
    });
    expect(staged.split("\n\n")).toEqual([
      `You are Coder, the Coder of ${PLAIN_INSTRUCTIONS.team} (persona: coder).`,
      "You write code.",
      "## Your stage\n- Submit ideas.",
    ]);
  });

  it("says why a run was started", () => {
    const run = { requestedByName: "Ada", chainDepth: 1 };
    expect(whyStarted({ ...run, trigger: "request" }, { ...DEFAULT_ROOM_SETTINGS, max_chain_depth: 3 })).toBe(
      "Requested by Ada (chain depth 1 of 3).",
    );
    expect(whyStarted({ ...run, trigger: "scheduler" }, DEFAULT_ROOM_SETTINGS)).toBe("Started by the scheduler.");
    expect(whyStarted({ ...run, trigger: "human" }, DEFAULT_ROOM_SETTINGS)).toBe("Started by Ada.");
  });

  it("writes each line of a section on one line, clipped, and lists, canvases and sections as headed blocks", () => {
    const node = nodeDto({ id: "n1", kind: "idea", authorName: "Ada", x: 10.4, y: -0.2, text: "A  long\nidea ".repeat(40) });
    const line = formatNodeLine(node);
    expect(line).toMatch(/^- node n1 \[idea\] by Ada at \(10, 0\): "A long idea A long/);
    expect(line).not.toContain("\n");
    expect(line.endsWith('…"')).toBe(true);
    expect(formatEdgeLine(edgeDto({ id: "e1", sourceId: "n1", targetId: "n2", label: "builds on" }))).toBe(
      '- edge e1: node n1 → node n2 "builds on"',
    );
    expect(
      formatTeamLine({ name: "Ada", persona: "poet", role: "Poet", description: "Writes.", areas: ["rhyme", "metre", "form", "sound"] }),
    ).toBe("- Ada (persona: poet) — Poet: Writes. · knows rhyme, metre, form");
    expect(renderList("Your team", [])).toBe("");
    expect(renderList("Your team", ["- a", "- b"], "Footer.")).toBe("## Your team\n- a\n- b\nFooter.");
    expect(renderCanvas({ nodes: 0, edges: 0, lines: [] })).toBe("## Canvas (0 nodes, 0 edges)\n(empty)");
    expect(renderCanvas({ nodes: 3, edges: 1, lines: [] })).toBe("## Canvas (3 nodes, 1 edges)\n(left out: the context budget is spent)");
    expect(joinSections(["## A", "", "## B"])).toBe("## A\n\n## B");
  });

  it("shortens a request's line by its texts first, and cuts it only when allowed, never into its id and asker", () => {
    const entry = boardEntryDto({
      id: "req-1",
      agentName: "Poet",
      kind: "request",
      content: { ask: "Paint ".repeat(100), toPersona: "painter" },
      targetPersona: "painter",
      requestStatus: "open",
    });
    const full = formatRequestLine(entry);
    const shortened = shortenRequestLine(entry, 200, false);
    expect(shortened.length).toBeLessThanOrEqual(200);
    expect(shortened.length).toBeLessThan(full.length);
    expect(JSON.parse(shortened.slice("- entry req-1 [Poet asks] ".length))).toMatchObject({ toPersona: "painter" });
    const cut = shortenRequestLine(entry, 40, true);
    expect(cut.startsWith("- entry req-1 [Poet asks] ")).toBe(true);
    expect(cut.endsWith("…(truncated)")).toBe(true);
    expect(shortenRequestLine(entry, 40, false).length).toBeGreaterThan(40);
  });
});
