import type { AgentDto, BoardEntryDto, CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import type { TemplateInstructions } from "@/lib/rooms/templates";

/*
 * The one place that turns a run's prompt into words: the system prompt's guidance, each
 * section's title and lines, and how they are joined. `build-prompt.ts` decides what each
 * section holds and what the context budget keeps, measuring it in these words; the typed
 * sections (`prompt-sections.ts`) carry the same content as data.
 */

/** A finding as prompts show it. */
export interface PromptFinding {
  agentName: string;
  severity: string;
  text: string;
}

/** What an agent remembers from earlier runs, in any room. */
export interface PromptKnowledge {
  /** Strongest first. */
  areas: { area: string; level: number }[];
  /** Oldest first. */
  insights: string[];
  /** Oldest first. */
  tasks: { asked: string; outcome: string }[];
}

/** The titles of the prompt's sections, and the line under the requests. */
export const SECTION_TITLES = {
  requests: "Requests directed at you",
  brief: "Room brief",
  referenced: "Nodes referenced for you",
  notes: "While you were working",
  messages: "Messages for you",
  team: "Your team",
  knowledge: "Your knowledge",
  findings: "Shared findings",
  board: "Creative context from other agents",
} as const;

export const REQUESTS_FOOTER = "Please address these requests in your work if relevant.";

/** What separates the sections of the prompt. */
export const SECTION_GAP = "\n\n";

export function oneLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Ends text that was cut to keep within the context budget, so the model knows there was more. */
export const TRUNCATED = "…(truncated)";

/** Text cut to fit the budget keeps at least this many characters, or is left out: less says nothing. */
export const SHORTEST_TEXT = 20;

/** Cuts `text` to at most `chars` characters, marker included, never into its first `keep`. */
export function truncate(text: string, chars: number, keep = 0): string {
  if (text.length <= chars) return text;
  return `${text.slice(0, Math.max(chars - TRUNCATED.length, keep)).trimEnd()}${TRUNCATED}`;
}

/** Shortens each line of a multi-line item (a question and its answer) on its own, keeping its indent. */
export function clipLines(text: string, max: number): string {
  return text
    .split("\n")
    .map((line) => line.match(/^\s*/)![0] + oneLine(line, max))
    .join("\n");
}

/** How to work with the other agents, in the words of the room's template. */
function collaborationGuidance(instructions: TemplateInstructions): string {
  const example = instructions.requestExample ? ` (e.g. ${instructions.requestExample})` : "";
  return [
    "## Collaboration with other agents",
    `- Before creating content, ${instructions.intention} using share_creative_context (entryType "intention").`,
    "- After creating a meaningful piece, share a contribution summary (with the node ids) so other agents can react to it.",
    `- ${instructions.harmonize}`,
    "- If another agent has requested your help, prioritize responding to that request.",
    `- Use request_agent to ask a complementary persona to extend your work${example}. At most one request per run.`,
    '- React to other agents\' contributions when your work relates to theirs (entryType "reaction" with toEntryId).',
  ].join("\n");
}

const TEAM_GUIDANCE = [
  "## Team memory",
  "- post_finding shares a discovery the whole team should know (a problem, a risk, something that works). Severity: high only for what changes the team's direction (at most two a run), medium for what others should act on, low for observations.",
  "- update_knowledge saves an insight you will want in later rooms, and raises your expertise in an area you worked in.",
  "- request_help asks a teammate a question without stopping your work; the answer arrives as a message in a later step.",
  '- Messages from people in the room ("Name says: …") come first: act on them in your next step.',
].join("\n");

/** How to use the canvas, with the node kinds and edge labels of the room's template. */
function canvasGuidance(instructions: TemplateInstructions): string {
  const labels = instructions.edgeLabels.map((label) => `"${label}"`);
  const labelList = labels.length > 1 ? `${labels.slice(0, -1).join(", ")} or ${labels.at(-1)}` : labels.join("");
  return [
    "## Working on the canvas",
    `- create_node places a node (kinds: ${instructions.nodeKinds.join(", ")}); omit x/y to be placed in free space.`,
    `- create_edge connects two nodes with a short label such as ${labelList}.`,
    `- Keep each node short: ${instructions.nodeSize}. Finish with one or two sentences saying what you did.`,
  ].join("\n");
}

const SENSITIVITY_GUIDANCE = {
  high: "Use ask_others often: before each major piece of work, check the direction with them.",
  medium: "Use ask_others when a choice affects the others' work or you are unsure which way to go.",
  low: "Use ask_others rarely: only when you are blocked and cannot decide alone.",
} as const;

/** How to use ask_others, shaped by the room's mode and sensitivity (docs/behaviour/asking-others.md). */
function broadcastGuidance(settings: RoomSettings): string {
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

/** A "while you were working" note as the agent reads it, in its opening message or later in its run. */
export function formatNote(note: string): string {
  return oneLine(note, 400);
}

/** A finding's text as every prompt shows it: on one line, clipped. */
export function findingText(finding: PromptFinding): string {
  return oneLine(finding.text, 300);
}

/** A finding as every prompt shows it: `[Agent · high] text`, clipped. */
export function formatFindingLine(finding: PromptFinding): string {
  return `- [${finding.agentName} · ${finding.severity}] ${findingText(finding)}`;
}

/**
 * The lines of "Your knowledge" — top areas, last tasks, last insights, each oldest first —
 * and the order in which they matter: the areas, then the tasks and then the insights, newest
 * first, so that trimming leaves out the oldest insights first and the areas last.
 */
export function knowledgeLines(knowledge: PromptKnowledge | undefined): { lines: string[]; importance: number[] } {
  if (!knowledge) return { lines: [], importance: [] };
  const areas = knowledge.areas.slice(0, 5);
  const expertise = areas.length ? [`- Expertise: ${areas.map((area) => `${area.area} ${area.level}/100`).join(", ")}`] : [];
  const tasks = knowledge.tasks.slice(-3).map((task) => `- Task: ${oneLine(task.asked, 200)} → ${oneLine(task.outcome, 120)}`);
  const insights = knowledge.insights.slice(-10).map((insight) => `- Insight: ${oneLine(insight, 300)}`);
  const newestFirst = (from: number, count: number) => Array.from({ length: count }, (_, index) => from + count - 1 - index);
  return {
    lines: [...expertise, ...tasks, ...insights],
    importance: [
      ...newestFirst(0, expertise.length),
      ...newestFirst(expertise.length, tasks.length),
      ...newestFirst(expertise.length + tasks.length, insights.length),
    ],
  };
}

export function formatNodeLine(node: CanvasNodeDto, textLength = 140): string {
  return `- node ${node.id} [${node.kind}] by ${node.authorName} at (${Math.round(node.x)}, ${Math.round(node.y)}): "${oneLine(node.text, textLength)}"`;
}

/** An entry's content with long text shortened, still valid JSON (agents and the script model parse it). */
export function shortContent(content: Record<string, unknown>, textLength: number): string {
  return JSON.stringify(content, (_key, value: unknown) => (typeof value === "string" ? oneLine(value, textLength) : value));
}

export function formatBoardLine(entry: BoardEntryDto, textLength = 300): string {
  return `- entry ${entry.id} [${entry.agentName} · ${entry.kind}] ${shortContent(entry.content, textLength)}`;
}

/** The longest node id a request may name (see `boardContentSchemas`): shortening its texts below this would garble ids. */
const LONGEST_ID = 64;

const requestLinePrefix = (entry: BoardEntryDto) => `- entry ${entry.id} [${entry.agentName} asks] `;

export function formatRequestLine(entry: BoardEntryDto, textLength = 300): string {
  return `${requestLinePrefix(entry)}${shortContent(entry.content, textLength)}`;
}

/**
 * The line of the request a run serves in at most `chars` characters where it can be: by
 * shortening its texts, which keeps it an entry the agent can read and answer (its ask is
 * the run's task anyway), or — with `mayCut` — by cutting the line, never into its id and asker.
 */
export function shortenRequestLine(entry: BoardEntryDto, chars: number, mayCut: boolean): string {
  for (let textLength = 300; textLength > LONGEST_ID; textLength -= 10) {
    const line = formatRequestLine(entry, textLength);
    if (line.length <= chars) return line;
  }
  const shortest = formatRequestLine(entry, LONGEST_ID);
  return mayCut ? truncate(shortest, chars, requestLinePrefix(entry).length) : shortest;
}

/**
 * The system prompt: who the agent is in the words of its template, its own prompt, then the
 * workflow's guidance when it gives one, or else the canvas, collaboration, team-memory and
 * ask_others guidance.
 */
export function renderSystem(input: {
  agent: { name: string; persona: string; role: string; systemPrompt: string };
  words: TemplateInstructions;
  guidance?: string;
  settings: RoomSettings;
}): string {
  const { agent, words } = input;
  return [
    `You are ${agent.name}, the ${agent.role} of ${words.team} (persona: ${agent.persona}).`,
    agent.systemPrompt,
    ...(input.guidance
      ? [input.guidance]
      : [canvasGuidance(words), collaborationGuidance(words), TEAM_GUIDANCE, broadcastGuidance(input.settings)]),
  ]
    .filter(Boolean)
    .join("\n\n");
}

/** Why the run was started, as the agent reads it. */
export function whyStarted(run: { trigger: string; requestedByName: string; chainDepth: number }, settings: RoomSettings): string {
  return run.trigger === "request"
    ? `Requested by ${run.requestedByName} (chain depth ${run.chainDepth} of ${settings.max_chain_depth}).`
    : run.trigger === "scheduler"
      ? "Started by the scheduler."
      : `Started by ${run.requestedByName}.`;
}

/** The opening's first section: the task and why the run was started. */
export function renderTask(task: string, why: string): string {
  return `## Task\n${task}\n\n## Why you were started\n${why}`;
}

/** A teammate as "Your team" lists it, with its strongest areas. */
export function formatTeamLine(member: Pick<AgentDto, "name" | "persona" | "role" | "description"> & { areas?: string[] }): string {
  return (
    `- ${member.name} (persona: ${member.persona}) — ${member.role}: ${oneLine(member.description, 160)}` +
    (member.areas?.length ? ` · knows ${member.areas.slice(0, 3).join(", ")}` : "")
  );
}

export function formatEdgeLine(edge: CanvasEdgeDto): string {
  return `- edge ${edge.id}: node ${edge.sourceId} → node ${edge.targetId} "${oneLine(edge.label, 60)}"`;
}

/** A titled list section; empty when it shows no line. */
export function renderList(title: string, lines: string[], footer?: string): string {
  if (lines.length === 0) return "";
  return [`## ${title}`, ...lines, footer].filter(Boolean).join("\n");
}

/** The canvas section: its size, then the lines shown, or why none is. */
export function renderCanvas(input: { nodes: number; edges: number; lines: string[] }): string {
  const none = input.nodes ? "(left out: the context budget is spent)" : "(empty)";
  return `## Canvas (${input.nodes} nodes, ${input.edges} edges)\n${input.lines.join("\n") || none}`;
}

/** The opening message: its sections in order, the empty ones left out. */
export function joinSections(sections: string[]): string {
  return sections.filter(Boolean).join(SECTION_GAP);
}
