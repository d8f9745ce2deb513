import type { AgentDto, BoardEntryDto, CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import type { PromptSectionEntry, PromptSectionNode, PromptSections } from "./prompt-sections";
import { PLAIN_INSTRUCTIONS, type TemplateInstructions } from "@/lib/rooms/templates";

interface PromptAgent {
  name: string;
  persona: string;
  role: string;
  systemPrompt: string;
}

/** A finding as prompts show it. */
interface PromptFinding {
  agentName: string;
  severity: string;
  text: string;
}

/** What an agent remembers from earlier runs, in any room. */
interface PromptKnowledge {
  /** Strongest first. */
  areas: { area: string; level: number }[];
  /** Oldest first. */
  insights: string[];
  /** Oldest first. */
  tasks: { asked: string; outcome: string }[];
}

export interface PromptContext {
  agent: PromptAgent;
  /** The room's agents; `areas` are each one's strongest areas of expertise. */
  team: (Pick<AgentDto, "name" | "persona" | "role" | "description"> & { areas?: string[] })[];
  settings: RoomSettings;
  run: { prompt: string; trigger: string; requestedByName: string; chainDepth: number; requestEntryId?: string | null };
  canvas: { nodes: CanvasNodeDto[]; edges: CanvasEdgeDto[] };
  referencedNodes: CanvasNodeDto[];
  /** Board entries from other runs, newest first. */
  board: BoardEntryDto[];
  /** Requests addressed to this agent, oldest first. */
  requests: BoardEntryDto[];
  /** "While you were working" notes for this agent (answers its shadow gave, etc.). */
  notes: string[];
  /** Participants' messages and answers to its help requests, oldest first. */
  messages?: string[];
  /** The room's newest findings, oldest first. */
  findings?: PromptFinding[];
  knowledge?: PromptKnowledge;
  /**
   * Extra sections contributed by features such as broadcasts and brainstorms: formatted lines,
   * oldest first; `required` lines (the last ones) are never trimmed nor shortened, the others
   * are shortened to 300 characters; `share` is the part of the budget the section is protected
   * for (default 0.1).
   */
  extraSections?: { title: string; lines: string[]; required?: number; share?: number }[];
  /** Guidance that replaces the canvas, collaboration and team-memory guidance (a brainstorm stage's). */
  guidance?: string;
  toolNames: string[];
  /** What the room's template tells its agents about their team and canvas; the plain wording when absent. */
  instructions?: TemplateInstructions;
}

interface BuiltPrompt {
  system: string;
  prompt: string;
  /** The same, as data. */
  sections: PromptSections;
  /** Estimated tokens of everything injected besides the task itself, after trimming. */
  contextTokens: number;
  /** What was left out to stay within the budget, by section. */
  dropped: {
    boardEntries: number;
    canvasNodes: number;
    requests: number;
    referencedNodes: number;
    notes: number;
    messages: number;
    findings: number;
    knowledge: number;
    team: number;
    extraLines: number;
  };
}

/** The share of the context budget kept for notes when other sections compete for it. */
export const NOTES_SHARE = 0.1;

/** Rough token count (about four characters a token), good enough for budgeting context. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function oneLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Ends text that was cut to keep within the context budget, so the model knows there was more. */
const TRUNCATED = "…(truncated)";

/** Text cut to fit the budget keeps at least this many characters, or is left out: less says nothing. */
const SHORTEST_TEXT = 20;

/** Cuts `text` to at most `chars` characters, marker included, never into its first `keep`. */
function truncate(text: string, chars: number, keep = 0): string {
  if (text.length <= chars) return text;
  return `${text.slice(0, Math.max(chars - TRUNCATED.length, keep)).trimEnd()}${TRUNCATED}`;
}

/** Shortens each line of a multi-line item (a question and its answer) on its own, keeping its indent. */
function clipLines(text: string, max: number): string {
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

/** A finding as every prompt shows it: `[Agent · high] text`, clipped. */
function formatFindingLine(finding: PromptFinding): string {
  return `- [${finding.agentName} · ${finding.severity}] ${oneLine(finding.text, 300)}`;
}

/**
 * The lines of "Your knowledge" — top areas, last tasks, last insights, each oldest first —
 * and the order in which they matter: the areas, then the tasks and then the insights, newest
 * first, so that trimming leaves out the oldest insights first and the areas last.
 */
function knowledgeLines(knowledge: PromptKnowledge | undefined): { lines: string[]; importance: number[] } {
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

// `+ 0` turns a rounded -0 into the 0 the prose writes.
function nodeData(node: CanvasNodeDto, textLength = 140): PromptSectionNode {
  return {
    id: node.id,
    kind: node.kind,
    author: node.authorName,
    x: Math.round(node.x) + 0,
    y: Math.round(node.y) + 0,
    text: oneLine(node.text, textLength),
  };
}

function entryData(entry: BoardEntryDto, kind = entry.kind): PromptSectionEntry {
  return {
    id: entry.id,
    author: entry.agentName,
    kind,
    content: JSON.parse(shortContent(entry.content, 300)) as PromptSectionEntry["content"],
  };
}

/** The items of `items` a trimmed section shows. */
function shownOf<T>(section: BudgetedSection, items: T[]): T[] {
  return (section.shown?.(section.kept) ?? []).map((index) => items[index]!);
}

function formatNodeLine(node: CanvasNodeDto, textLength = 140): string {
  return `- node ${node.id} [${node.kind}] by ${node.authorName} at (${Math.round(node.x)}, ${Math.round(node.y)}): "${oneLine(node.text, textLength)}"`;
}

/** An entry's content with long text shortened, still valid JSON (agents and the script model parse it). */
function shortContent(content: Record<string, unknown>, textLength: number): string {
  return JSON.stringify(content, (_key, value: unknown) => (typeof value === "string" ? oneLine(value, textLength) : value));
}

function formatBoardLine(entry: BoardEntryDto, textLength = 300): string {
  return `- entry ${entry.id} [${entry.agentName} · ${entry.kind}] ${shortContent(entry.content, textLength)}`;
}

/** The longest node id a request may name (see `boardContentSchemas`): shortening its texts below this would garble ids. */
const LONGEST_ID = 64;

const requestLinePrefix = (entry: BoardEntryDto) => `- entry ${entry.id} [${entry.agentName} asks] `;

function formatRequestLine(entry: BoardEntryDto, textLength = 300): string {
  return `${requestLinePrefix(entry)}${shortContent(entry.content, textLength)}`;
}

/**
 * The line of the request a run serves in at most `chars` characters where it can be: by
 * shortening its texts, which keeps it an entry the agent can read and answer (its ask is
 * the run's task anyway), or — with `mayCut` — by cutting the line, never into its id and asker.
 */
function shortenRequestLine(entry: BoardEntryDto, chars: number, mayCut: boolean): string {
  for (let textLength = 300; textLength > LONGEST_ID; textLength -= 10) {
    const line = formatRequestLine(entry, textLength);
    if (line.length <= chars) return line;
  }
  const shortest = formatRequestLine(entry, LONGEST_ID);
  return mayCut ? truncate(shortest, chars, requestLinePrefix(entry).length) : shortest;
}

/**
 * A part of the prompt that competes for the context budget: `count` items of which the
 * first `kept` are shown (items are ordered most important first), never fewer than
 * `required`. A section holding more than its `share` of the budget is trimmed before the
 * others, so no one section — a big canvas, many long requests — crowds out the rest.
 */
interface BudgetedSection {
  /** The indexes of the items shown when `kept` are, in the order shown. */
  shown?: (kept: number) => number[];
  count: number;
  kept: number;
  required: number;
  share: number;
  render: (kept: number) => string;
  /**
   * Says less in the section's one required item so that it renders in at most `chars`
   * characters, as far as the item can be shortened (`mayCut`: even if it no longer reads as
   * what it is), or leaves it out when it cannot say anything in so little. Only for when
   * the required items alone overrun the budget.
   */
  shrink?: (chars: number, mayCut: boolean) => void;
}

/**
 * A titled list shown in its own order, keeping its most important lines when trimmed: the
 * `first` ones, the `last` ones, or those at the front of `keep` when it lists the lines'
 * indexes most important first. `shorten` gives its most important line in at most `chars`
 * characters where it can (see `BudgetedSection.shrink`), or null when that line is not worth
 * showing in so few.
 */
function listSection(
  title: string,
  lines: string[],
  keep: "first" | "last" | number[],
  share: number,
  options: { required?: number; footer?: string; shorten?: (chars: number, mayCut: boolean) => string | null } = {},
): BudgetedSection {
  const shownLines = lines.slice();
  const importance =
    keep === "first" ? lines.map((_, index) => index) : keep === "last" ? lines.map((_, index) => lines.length - 1 - index) : keep;
  const shownIndexes = (kept: number) => importance.slice(0, kept).sort((a, b) => a - b);
  const section: BudgetedSection = {
    count: lines.length,
    kept: lines.length,
    required: Math.min(options.required ?? 0, lines.length),
    share,
    shown: (kept) => (kept === 0 || section.render(kept) === "" ? [] : shownIndexes(kept)),
    render: (kept) => {
      if (kept === 0) return "";
      const shown = shownIndexes(kept).map((index) => shownLines[index]!);
      return [`## ${title}`, ...shown, options.footer].filter(Boolean).join("\n");
    },
  };
  const { shorten } = options;
  if (shorten) {
    section.shrink = (chars, mayCut) => {
      if (section.kept !== 1) return;
      const first = importance[0]!;
      const around = section.render(1).length - shownLines[first]!.length;
      const shorter = shorten(chars - around, mayCut);
      if (shorter !== null) {
        shownLines[first] = shorter;
        return;
      }
      section.required = 0;
      section.kept = 0;
    };
  }
  return section;
}

/** What separates the sections of the prompt. */
const SECTION_GAP = "\n\n";

/** The tokens a section adds to the prompt, the gap before it included. */
function sectionTokens(section: BudgetedSection): number {
  const text = section.render(section.kept);
  return text ? estimateTokens(`${SECTION_GAP}${text}`) : 0;
}

/**
 * Trims sections (listed most important first) until their estimated tokens fit the budget:
 * each time, the least important item of the least important section over its share goes,
 * or — when none is over its share — of the least important section that can lose one.
 * Should the required items alone overrun it, they are shortened, least important first:
 * as far as each still reads as what it is, then cut outright, so the budget holds unless
 * even the shortest they can be does not fit.
 */
function fitToBudget(sections: BudgetedSection[], budget: number): number {
  const tokens = sections.map(sectionTokens);
  let total = tokens.reduce((sum, value) => sum + value, 0);
  const recount = (index: number) => {
    total -= tokens[index]!;
    tokens[index] = sectionTokens(sections[index]!);
    total += tokens[index]!;
  };
  while (total > budget) {
    const trimmable = sections.map((_, index) => index).filter((index) => sections[index]!.kept > sections[index]!.required);
    if (trimmable.length === 0) break;
    const over = trimmable.filter((index) => tokens[index]! > sections[index]!.share * budget);
    const index = (over.length ? over : trimmable).at(-1)!;
    sections[index]!.kept -= 1;
    recount(index);
  }
  for (const mayCut of [false, true]) {
    for (let index = sections.length - 1; index >= 0 && total > budget; index--) {
      const { shrink } = sections[index]!;
      if (!shrink) continue;
      // A section of n tokens holds 4n characters, the gap before it included.
      shrink((tokens[index]! - (total - budget)) * 4 - SECTION_GAP.length, mayCut);
      recount(index);
    }
  }
  return total;
}

/**
 * Builds what an agent reads at the start of a run: persona and guidance in the system
 * prompt (never trimmed); the task, its messages, its team, its knowledge, the findings, the
 * canvas, the shared board and the requests addressed to it in the user message. Everything
 * in the user message besides the task is held to the room's token budget: long entries are
 * shortened, and sections are trimmed in this order of importance — the room brief and the
 * request the run serves (always kept), other requests, participants' messages (the newest
 * always kept), referenced nodes, notes, people's answers, the team, the agent's knowledge
 * (its areas kept longest, its oldest insights dropped first), the findings (newest kept), the canvas (newest nodes kept) and the board (newest entries
 * kept) — with each section's share of the budget protected from the ones below it. Should the brief and the request alone overrun a small budget, they say less:
 * the request's texts are shortened (its ask is the task), then the brief is cut with a
 * "…(truncated)" marker (left out when too little of it fits), then the request's line is
 * cut, down to its id and asker.
 */
export function buildPrompt(context: PromptContext): BuiltPrompt {
  const { agent, settings } = context;
  const words = context.instructions ?? PLAIN_INSTRUCTIONS;
  const teamLines = context.team
    .filter((member) => member.persona !== agent.persona)
    .map(
      (member) =>
        `- ${member.name} (persona: ${member.persona}) — ${member.role}: ${oneLine(member.description, 160)}` +
        (member.areas?.length ? ` · knows ${member.areas.slice(0, 3).join(", ")}` : ""),
    );
  const system = [
    `You are ${agent.name}, the ${agent.role} of ${words.team} (persona: ${agent.persona}).`,
    agent.systemPrompt,
    ...(context.guidance
      ? [context.guidance]
      : [canvasGuidance(words), collaborationGuidance(words), TEAM_GUIDANCE, broadcastGuidance(settings)]),
  ]
    .filter(Boolean)
    .join("\n\n");

  const why =
    context.run.trigger === "request"
      ? `Requested by ${context.run.requestedByName} (chain depth ${context.run.chainDepth} of ${settings.max_chain_depth}).`
      : context.run.trigger === "scheduler"
        ? "Started by the scheduler."
        : `Started by ${context.run.requestedByName}.`;
  const instructions = `## Task\n${context.run.prompt}\n\n## Why you were started\n${why}`;

  const [first] = context.requests;
  const served = first && first.id === context.run.requestEntryId ? first : null;
  const requests = listSection(
    "Requests directed at you",
    context.requests.map((request) => formatRequestLine(request)),
    "first",
    0.2,
    {
      required: served ? 1 : 0,
      footer: "Please address these requests in your work if relevant.",
      ...(served ? { shorten: (chars: number, mayCut: boolean) => shortenRequestLine(served, chars, mayCut) } : {}),
    },
  );
  const briefText = settings.task ? clip(settings.task.trim(), 1200) : "";
  const brief = listSection("Room brief", briefText ? [briefText] : [], "first", 0.15, {
    required: 1,
    shorten: (chars) => (chars - TRUNCATED.length >= SHORTEST_TEXT ? truncate(briefText, chars) : null),
  });
  const referenced = listSection(
    "Nodes referenced for you",
    context.referencedNodes.map((node) => formatNodeLine(node, 400)),
    "first",
    0.25,
  );
  const notes = listSection(
    "While you were working",
    context.notes.map((note) => `- ${formatNote(note)}`),
    "last",
    NOTES_SHARE,
  );
  const messages = listSection(
    "Messages for you",
    (context.messages ?? []).map((message) => `- ${formatNote(message)}`),
    "last",
    0.15,
    {
      required: 1,
    },
  );
  const team = listSection("Your team", teamLines, "first", 0.1);
  const known = knowledgeLines(context.knowledge);
  const knowledge = listSection("Your knowledge", known.lines, known.importance, 0.1);
  const findings = listSection(
    "Shared findings",
    (context.findings ?? []).slice(-settings.findings_in_prompt).map(formatFindingLine),
    "last",
    0.15,
  );
  const extraLines = (context.extraSections ?? []).map((section) => {
    const required = section.required ?? 0;
    // What the run must act on (a brainstorm stage's ideas, say) is shown whole: its own schema bounds it. Only the rest is clipped.
    return section.lines.map((line, index) => (index >= section.lines.length - required ? line : clipLines(line, 300)));
  });
  const extras = (context.extraSections ?? []).map((section, index) =>
    listSection(section.title, extraLines[index]!, "last", section.share ?? 0.1, { required: section.required ?? 0 }),
  );

  const allNodes = context.canvas.nodes;
  // Each line formatted once: the section is rendered again for every node trimming takes off.
  const nodeLines = allNodes.map((node) => formatNodeLine(node));
  const edgeLines = context.canvas.edges.map((edge) => ({
    edge,
    line: `- edge ${edge.id}: node ${edge.sourceId} → node ${edge.targetId} "${oneLine(edge.label, 60)}"`,
  }));
  const canvas: BudgetedSection = {
    count: allNodes.length,
    kept: allNodes.length,
    required: 0,
    share: 0.4,
    render: (kept) => {
      const from = allNodes.length - kept;
      const ids = new Set(allNodes.slice(from).map((node) => node.id));
      const lines = [
        ...nodeLines.slice(from),
        ...edgeLines.filter(({ edge }) => ids.has(edge.sourceId) && ids.has(edge.targetId)).map(({ line }) => line),
      ];
      const none = allNodes.length ? "(left out: the context budget is spent)" : "(empty)";
      return `## Canvas (${allNodes.length} nodes, ${context.canvas.edges.length} edges)\n${lines.join("\n") || none}`;
    },
  };
  const boardEntries = context.board.slice(0, settings.board_entries_in_prompt);
  const board = listSection(
    "Creative context from other agents",
    boardEntries.map((entry) => formatBoardLine(entry)),
    "first",
    0.3,
  );

  const contextTokens = fitToBudget(
    [brief, requests, messages, referenced, notes, ...extras, team, knowledge, findings, canvas, board],
    settings.context_token_budget,
  );
  const shown = [brief, messages, referenced, requests, notes, ...extras, team, knowledge, findings, canvas, board].map((section) =>
    section.render(section.kept),
  );
  const prompt = [instructions, ...shown].filter(Boolean).join(SECTION_GAP);
  const extraSections = context.extraSections ?? [];
  const sections: PromptSections = {
    name: agent.name,
    persona: agent.persona,
    role: agent.role,
    task: context.run.prompt,
    why,
    roomBrief: brief.kept ? briefText : "",
    canvas: allNodes.slice(allNodes.length - canvas.kept).map((node) => nodeData(node)),
    canvasTotal: allNodes.length,
    referenced: shownOf(referenced, context.referencedNodes).map((node) => nodeData(node, 400)),
    board: shownOf(board, boardEntries).map((entry) => entryData(entry)),
    requests: shownOf(requests, context.requests).map((entry) => entryData(entry, "request")),
    notes: shownOf(notes, context.notes).map(formatNote),
    messages: shownOf(messages, context.messages ?? []).map(formatNote),
    team: shownOf(
      team,
      context.team.filter((member) => member.persona !== agent.persona),
    ).map((member) => ({ name: member.name, persona: member.persona })),
    findings: shownOf(findings, (context.findings ?? []).slice(-settings.findings_in_prompt)).map((finding) =>
      formatFindingLine(finding).slice(2),
    ),
    extras: extras.flatMap((section, index) => {
      const lines = shownOf(section, extraLines[index]!);
      return lines.length ? [{ title: extraSections[index]!.title, lines }] : [];
    }),
    sensitivity: context.guidance || settings.broadcast === "off" ? null : settings.broadcast_sensitivity,
  };
  const droppedFrom = (section: BudgetedSection) => section.count - section.kept;
  return {
    system,
    prompt,
    sections,
    contextTokens,
    dropped: {
      boardEntries: droppedFrom(board),
      canvasNodes: droppedFrom(canvas),
      requests: droppedFrom(requests),
      referencedNodes: droppedFrom(referenced),
      notes: droppedFrom(notes),
      messages: droppedFrom(messages),
      findings: droppedFrom(findings) + Math.max(0, (context.findings ?? []).length - settings.findings_in_prompt),
      knowledge: droppedFrom(knowledge),
      team: droppedFrom(team),
      extraLines: extras.reduce((sum, section) => sum + droppedFrom(section), 0),
    },
  };
}
