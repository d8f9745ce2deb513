import type { AgentDto, BoardEntryDto, CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import type { JSONObject } from "@ai-sdk/provider";
import type { PromptSectionEntry, PromptSectionNode, PromptSections, WorkflowTaskData } from "./prompt-sections";
import { PLAIN_INSTRUCTIONS, type TemplateInstructions } from "@/lib/rooms/templates";
import {
  type PromptFinding,
  type PromptKnowledge,
  REQUESTS_FOOTER,
  SECTION_GAP,
  SECTION_TITLES,
  SHORTEST_TEXT,
  TRUNCATED,
  clip,
  clipLines,
  formatBoardLine,
  formatEdgeLine,
  findingText,
  formatFindingLine,
  formatNodeLine,
  formatNote,
  formatRequestLine,
  formatTeamLine,
  joinSections,
  knowledgeLines,
  oneLine,
  renderCanvas,
  renderList,
  renderSystem,
  renderTask,
  shortContent,
  shortenRequestLine,
  truncate,
  whyStarted,
} from "./render-prompt";

interface PromptAgent {
  name: string;
  persona: string;
  role: string;
  systemPrompt: string;
}

export interface PromptContext {
  agent: PromptAgent;
  /** The room's agents; `areas` are each one's strongest areas of expertise. */
  team: (Pick<AgentDto, "name" | "persona" | "role" | "description"> & { areas?: string[] })[];
  settings: RoomSettings;
  run: {
    prompt: string;
    trigger: string;
    requestedByName: string;
    chainDepth: number;
    requestEntryId?: string | null;
    /** What the run's workflow asks of it, as data beside `prompt`. */
    taskData?: WorkflowTaskData | null;
  };
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
   * for (default 0.1). `key` and `items` (each line's data) are handed over as data with the lines shown.
   */
  extraSections?: { title: string; lines: string[]; required?: number; share?: number; key?: string; items?: JSONObject[] }[];
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
    render: (kept) =>
      renderList(
        title,
        shownIndexes(kept).map((index) => shownLines[index]!),
        options.footer,
      ),
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
  const teamLines = context.team.filter((member) => member.persona !== agent.persona).map(formatTeamLine);
  const system = renderSystem({ agent, words, guidance: context.guidance, settings });
  const why = whyStarted(context.run, settings);
  const instructions = renderTask(context.run.prompt, why);

  const [first] = context.requests;
  const served = first && first.id === context.run.requestEntryId ? first : null;
  const requests = listSection(
    SECTION_TITLES.requests,
    context.requests.map((request) => formatRequestLine(request)),
    "first",
    0.2,
    {
      required: served ? 1 : 0,
      footer: REQUESTS_FOOTER,
      ...(served ? { shorten: (chars: number, mayCut: boolean) => shortenRequestLine(served, chars, mayCut) } : {}),
    },
  );
  const briefText = settings.task ? clip(settings.task.trim(), 1200) : "";
  const brief = listSection(SECTION_TITLES.brief, briefText ? [briefText] : [], "first", 0.15, {
    required: 1,
    shorten: (chars) => (chars - TRUNCATED.length >= SHORTEST_TEXT ? truncate(briefText, chars) : null),
  });
  const referenced = listSection(
    SECTION_TITLES.referenced,
    context.referencedNodes.map((node) => formatNodeLine(node, 400)),
    "first",
    0.25,
  );
  const notes = listSection(
    SECTION_TITLES.notes,
    context.notes.map((note) => `- ${formatNote(note)}`),
    "last",
    NOTES_SHARE,
  );
  const messages = listSection(
    SECTION_TITLES.messages,
    (context.messages ?? []).map((message) => `- ${formatNote(message)}`),
    "last",
    0.15,
    {
      required: 1,
    },
  );
  const team = listSection(SECTION_TITLES.team, teamLines, "first", 0.1);
  const known = knowledgeLines(context.knowledge);
  const knowledge = listSection(SECTION_TITLES.knowledge, known.lines, known.importance, 0.1);
  const findings = listSection(
    SECTION_TITLES.findings,
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
  const edgeLines = context.canvas.edges.map((edge) => ({ edge, line: formatEdgeLine(edge) }));
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
      return renderCanvas({ nodes: allNodes.length, edges: context.canvas.edges.length, lines });
    },
  };
  const boardEntries = context.board.slice(0, settings.board_entries_in_prompt);
  const board = listSection(
    SECTION_TITLES.board,
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
  const prompt = joinSections([instructions, ...shown]);
  const extraSections = context.extraSections ?? [];
  const sections: PromptSections = {
    name: agent.name,
    persona: agent.persona,
    role: agent.role,
    task: context.run.prompt,
    trigger: context.run.trigger,
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
    findings: shownOf(findings, (context.findings ?? []).slice(-settings.findings_in_prompt)).map((finding) => ({
      agent: finding.agentName,
      severity: finding.severity,
      text: findingText(finding),
    })),
    extras: extras.flatMap((section, index) => {
      const { title, key, items } = extraSections[index]!;
      const lines = shownOf(section, extraLines[index]!);
      if (!lines.length) return [];
      return [{ title, lines, ...(key ? { key } : {}), ...(items ? { items: shownOf(section, items) } : {}) }];
    }),
    workflow: context.run.taskData ?? null,
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
