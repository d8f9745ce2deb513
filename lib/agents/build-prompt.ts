import type { AgentDto, BoardEntryDto, CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";

export interface PromptAgent {
  name: string;
  persona: string;
  role: string;
  systemPrompt: string;
}

export interface PromptContext {
  agent: PromptAgent;
  team: Pick<AgentDto, "name" | "persona" | "role" | "description">[];
  settings: RoomSettings;
  run: { prompt: string; trigger: string; requestedByName: string; chainDepth: number };
  canvas: { nodes: CanvasNodeDto[]; edges: CanvasEdgeDto[] };
  referencedNodes: CanvasNodeDto[];
  /** Board entries from other runs, newest first. */
  board: BoardEntryDto[];
  /** Requests addressed to this agent, oldest first. */
  requests: BoardEntryDto[];
  /** "While you were working" notes for this agent (answers its shadow gave, etc.). */
  notes: string[];
  /** Extra sections contributed by features such as broadcasts (already formatted). */
  extraSections?: { title: string; body: string }[];
  toolNames: string[];
}

export interface BuiltPrompt {
  system: string;
  prompt: string;
  /** Estimated tokens of the injected collaboration context, after trimming. */
  contextTokens: number;
  dropped: { boardEntries: number; canvasNodes: number };
}

/** Rough token count (about four characters a token), good enough for budgeting context. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function oneLine(text: string, max: number): string {
  const single = text.replace(/\s+/g, " ").trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}

const COLLABORATION_GUIDANCE = [
  "## Collaboration with other agents",
  "- Before creating content, share your creative intention using share_creative_context (entryType \"intention\").",
  "- After creating a meaningful piece, share a contribution summary (with the node ids) so other agents can react to it.",
  "- Check the creative context from other agents and harmonize your work with active themes (mood, palette).",
  "- If another agent has requested your help, prioritize responding to that request.",
  "- Use request_agent to ask a complementary persona to extend your work (e.g. ask the Scene Painter to illustrate your lyrics). At most one request per run.",
  "- React to other agents' contributions when your work relates to theirs (entryType \"reaction\" with toEntryId).",
].join("\n");

const CANVAS_GUIDANCE = [
  "## Working on the canvas",
  "- create_node places a node (kinds: lyric, scene, idea, story, theme, note, group); omit x/y to be placed in free space.",
  "- create_edge connects two nodes with a short label such as \"illustrates\", \"echoes\", \"continues\" or \"belongs to\".",
  "- Keep each node short: a verse, a scene, an idea. Finish with one or two sentences saying what you did.",
].join("\n");

const SENSITIVITY_GUIDANCE = {
  high: "Use ask_others often: before each major piece of work, check the direction with them.",
  medium: "Use ask_others when a choice affects the others' work or you are unsure which way to go.",
  low: "Use ask_others rarely: only when you are blocked and cannot decide alone.",
} as const;

/** The broadcast guidance of seed 000, shaped by the room's mode and sensitivity. */
export function broadcastGuidance(settings: RoomSettings): string {
  if (settings.broadcast === "off") return "";
  const who =
    settings.broadcast === "human"
      ? "Your question goes to the people watching this room; only they answer, one question at a time."
      : "Your question goes to the other agents; each answers from its own work while it keeps working.";
  return [
    "## Asking others (ask_others)",
    `- ${who}`,
    `- Sensitivity: ${settings.broadcast_sensitivity}. ${SENSITIVITY_GUIDANCE[settings.broadcast_sensitivity]}`,
    "- ask_others waits for the answers; use them in your next step. Offer answer choices with `options` when the question has a few clear answers.",
  ].join("\n");
}

export function formatNodeLine(node: CanvasNodeDto, textLength = 140): string {
  return `- node ${node.id} [${node.kind}] by ${node.authorName} at (${Math.round(node.x)}, ${Math.round(node.y)}): "${oneLine(node.text, textLength)}"`;
}

export function formatBoardLine(entry: BoardEntryDto): string {
  return `- entry ${entry.id} [${entry.agentName} · ${entry.kind}] ${JSON.stringify(entry.content)}`;
}

export function formatRequestLine(entry: BoardEntryDto): string {
  return `- entry ${entry.id} [${entry.agentName} asks] ${JSON.stringify(entry.content)}`;
}

/**
 * Builds what an agent reads at the start of a run: persona and collaboration guidance in
 * the system prompt; the task, the canvas, the shared board and the requests addressed to
 * it in the user message. The collaboration context is held to the room's token budget by
 * dropping the oldest board entries first, then the oldest canvas nodes.
 */
export function buildPrompt(context: PromptContext): BuiltPrompt {
  const { agent, settings } = context;
  const team = context.team
    .filter((member) => member.persona !== agent.persona)
    .map((member) => `- ${member.name} (persona: ${member.persona}) — ${member.role}: ${member.description}`)
    .join("\n");
  const system = [
    `You are ${agent.name}, the ${agent.role} of a creative team working together on a shared canvas (persona: ${agent.persona}).`,
    agent.systemPrompt,
    CANVAS_GUIDANCE,
    COLLABORATION_GUIDANCE,
    broadcastGuidance(settings),
    team ? `## Your team\n${team}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");

  const why =
    context.run.trigger === "request"
      ? `Requested by ${context.run.requestedByName} (chain depth ${context.run.chainDepth} of ${settings.max_chain_depth}).`
      : context.run.trigger === "scheduler"
        ? "Started by the scheduler."
        : `Started by ${context.run.requestedByName}.`;

  const fixed: string[] = [`## Task\n${context.run.prompt}`, `## Why you were started\n${why}`];
  if (settings.task) fixed.push(`## Room brief\n${settings.task}`);
  if (context.referencedNodes.length) {
    fixed.push(`## Nodes referenced for you\n${context.referencedNodes.map((node) => formatNodeLine(node, 600)).join("\n")}`);
  }
  if (context.requests.length) {
    fixed.push(
      `## Requests directed at you\n${context.requests.map(formatRequestLine).join("\n")}\nPlease address these requests in your work if relevant.`,
    );
  }
  if (context.notes.length) fixed.push(`## While you were working\n${context.notes.map((note) => `- ${note}`).join("\n")}`);
  for (const section of context.extraSections ?? []) fixed.push(`## ${section.title}\n${section.body}`);

  const budget = settings.context_token_budget;
  let board = context.board.slice(0, settings.board_entries_in_prompt);
  let nodes = context.canvas.nodes.slice();
  const nodeIds = () => new Set(nodes.map((node) => node.id));
  const render = () => {
    const sections: string[] = [];
    const ids = nodeIds();
    const edges = context.canvas.edges.filter((edge) => ids.has(edge.sourceId) && ids.has(edge.targetId));
    const canvasLines = [
      ...nodes.map((node) => formatNodeLine(node)),
      ...edges.map((edge) => `- edge ${edge.id}: node ${edge.sourceId} → node ${edge.targetId} "${oneLine(edge.label, 60)}"`),
    ];
    sections.push(
      `## Canvas (${context.canvas.nodes.length} nodes, ${context.canvas.edges.length} edges)\n${canvasLines.join("\n") || "(empty)"}`,
    );
    if (board.length) {
      sections.push(`## Creative context from other agents\n${board.map(formatBoardLine).join("\n")}`);
    }
    return sections.join("\n\n");
  };

  let contextText = render();
  const fixedTokens = estimateTokens(fixed.filter((part) => part.startsWith("## Requests")).join("\n"));
  while (estimateTokens(contextText) + fixedTokens > budget && (board.length > 0 || nodes.length > 0)) {
    if (board.length > 0) board = board.slice(0, -1);
    else nodes = nodes.slice(1);
    contextText = render();
  }

  const prompt = [...fixed, contextText].join("\n\n");
  return {
    system,
    prompt,
    contextTokens: estimateTokens(contextText) + fixedTokens,
    dropped: {
      boardEntries: Math.min(context.board.length, settings.board_entries_in_prompt) - board.length,
      canvasNodes: context.canvas.nodes.length - nodes.length,
    },
  };
}
