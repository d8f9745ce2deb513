import type { LanguageModelV4Prompt, SharedV4ProviderOptions } from "@ai-sdk/provider";
import { PROMPT_SECTIONS_KEY, type PromptSectionExtra, type PromptSectionFinding, type PromptSections } from "@/lib/agents/prompt-sections";
import { SHADOW_SECTIONS_KEY, type ShadowSections, shadowSectionsSchema } from "@/lib/broadcast/shadow-prompt";
import { type WorkflowTask, olderWorkflowTask, workflowTaskOf } from "./workflow-task";

interface PromptNode {
  id: string;
  kind: string;
  author: string;
  x: number;
  y: number;
  text: string;
}

export interface PromptEntry {
  id: string;
  author: string;
  kind: string;
  content: Record<string, unknown>;
}

/** One tool call the model made earlier in this run, with what came back. */
export interface PastCall {
  id: string;
  toolName: string;
  input: Record<string, unknown>;
  output: unknown;
  failed: boolean;
}

/** A message for the agent: a participant's (`command`) or the answer to its help request (`help`). */
export interface PromptMessage {
  kind: "command" | "help";
  /** Who sent it, or who answered. */
  from: string;
  body: string;
  /** The line as the agent read it: names the message for good. */
  line: string;
}

/** A teammate as "Your team" lists them. */
interface PromptTeammate {
  name: string;
  persona: string;
}

/** What a scripted persona understands of the prompt it was given. */
export interface ScriptReading {
  name: string;
  persona: string;
  task: string;
  /** A teammate asked for the run. */
  requested: boolean;
  why: string;
  roomBrief: string;
  canvas: PromptNode[];
  /** How many nodes the canvas holds, also those the prompt left out. */
  canvasTotal: number;
  referenced: PromptNode[];
  board: PromptEntry[];
  requests: PromptEntry[];
  notes: string[];
  /** Messages for it, in the order they arrived: the opening's, then those shown in later steps. */
  messages: PromptMessage[];
  team: PromptTeammate[];
  /** Findings on the room's board, as shown. */
  findings: PromptSectionFinding[];
  /** The sections a workflow added, as data where the workflow gave it (`key`, `items`). */
  extras: PromptSectionExtra[];
  /** What the run's workflow asked of it; null for a run of no workflow. */
  workflow: WorkflowTask | null;
  /** Everything the model wrote or called so far, one entry per earlier step. */
  steps: { text: string; calls: PastCall[] }[];
  /** Broadcast settings the system prompt announced, when ask_others is on. */
  broadcast: { sensitivity: "low" | "medium" | "high" } | null;
  /** Answers people gave earlier in the room. */
  humanAnswers: { question: string; answer: string }[];
  /** Set when the model answers a broadcast as someone's shadow. */
  shadow: Pick<ShadowSections, "asker" | "question" | "options" | "currentWork" | "depth" | "ownWork"> | null;
}

function sectionsOf(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = text.split(/^## /m);
  for (const part of parts.slice(1)) {
    const newline = part.indexOf("\n");
    const title = (newline < 0 ? part : part.slice(0, newline)).trim();
    sections.set(title.replace(/\s*\(.*\)$/, ""), newline < 0 ? "" : part.slice(newline + 1).trim());
  }
  return sections;
}

const NODE_LINE = /^- node (\S+) \[([^\]]+)\] by (.+?) at \((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\): "(.*)"$/;
const ENTRY_LINE = /^- entry (\S+) \[(.+?) · (\w+)\] (\{.*\})$/;
const REQUEST_LINE = /^- entry (\S+) \[(.+?) asks\] (\{.*\})$/;

function parseNodes(body: string | undefined): PromptNode[] {
  if (!body) return [];
  return body
    .split("\n")
    .map((line) => line.match(NODE_LINE))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => ({
      id: match[1]!,
      kind: match[2]!,
      author: match[3]!,
      x: Number(match[4]),
      y: Number(match[5]),
      text: match[6]!,
    }));
}

function parseJson(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function parseEntries(body: string | undefined, pattern: RegExp, kindIndex: number | null): PromptEntry[] {
  if (!body) return [];
  return body
    .split("\n")
    .map((line) => line.match(pattern))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => ({
      id: match[1]!,
      author: match[2]!,
      kind: kindIndex ? match[kindIndex]! : "request",
      content: parseJson(match[kindIndex ? 4 : 3]!),
    }));
}

function textOf(parts: { type: string; text?: string }[]): string {
  return parts
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}

const FINDING_LINE = /^\[(.+?) · (\w+)\] (.*)$/;

/** Findings shown as "[Agent · severity] text" lines: in prose, and in the sections of runs opened before they were data. */
function parseFindings(lines: string[]): PromptSectionFinding[] {
  return lines.flatMap((line) => {
    const match = line.replace(/^- /, "").trim().match(FINDING_LINE);
    return match ? [{ agent: match[1]!, severity: match[2]!, text: match[3]! }] : [];
  });
}

const COMMAND_LINE = /^(.+?) says: (.+)$/;
const HELP_LINE = /^(.+?) answered your help request \(".*?"\): (.+)$/;

/** The messages among lines the agent was shown. */
function parseMessages(lines: string[]): PromptMessage[] {
  const messages: PromptMessage[] = [];
  for (const raw of lines) {
    const line = raw.replace(/^- /, "").trim();
    const help = line.match(HELP_LINE);
    if (help) {
      messages.push({ kind: "help", from: help[1]!, body: help[2]!, line });
      continue;
    }
    const command = line.match(COMMAND_LINE);
    if (command) messages.push({ kind: "command", from: command[1]!, body: command[2]!, line });
  }
  return messages;
}

/** The opening as data, when the run handed it over (`providerOptions.parley.prompt`); null for a prompt given as prose only. */
export function promptSectionsOf(options: SharedV4ProviderOptions | undefined): PromptSections | null {
  const given = options?.[PROMPT_SECTIONS_KEY]?.prompt;
  if (!given || typeof given !== "object" || typeof (given as { persona?: unknown }).persona !== "string") return null;
  return given as PromptSections;
}

/** A shadow's prompt as data (`providerOptions.parley.shadow`); null when the call is no shadow's. */
export function shadowSectionsOf(options: SharedV4ProviderOptions | undefined): ShadowSections | null {
  const parsed = shadowSectionsSchema.safeParse(options?.[PROMPT_SECTIONS_KEY]?.[SHADOW_SECTIONS_KEY]);
  return parsed.success ? parsed.data : null;
}

/**
 * Reads the run's opening — from its sections as data when given, else from the prose the
 * prompt builder wrote (a conversation recorded before the sections were kept) — and the
 * run's own history so far. A shadow's call is read from its sections only (`shadow`): it is
 * never resumed, so no shadow's prompt was ever kept without them.
 */
export function readPrompt(
  prompt: LanguageModelV4Prompt,
  typed: PromptSections | null = null,
  shadowSections: ShadowSections | null = null,
): ScriptReading {
  const system = prompt
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n");
  const firstUser = prompt.find((message) => message.role === "user");
  const userText = firstUser && firstUser.role === "user" ? textOf(firstUser.content) : "";
  const sections = sectionsOf(userText);

  const outputs = new Map<string, { output: unknown; failed: boolean }>();
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      const failed = output.type === "error-text" || output.type === "error-json";
      const value = "value" in output ? output.value : undefined;
      const parsedValue = typeof value === "string" && output.type !== "error-text" ? parseJson(value) : value;
      const okFalse = !!parsedValue && typeof parsedValue === "object" && (parsedValue as { ok?: unknown }).ok === false;
      outputs.set(part.toolCallId, { output: parsedValue, failed: failed || okFalse });
    }
  }
  const steps: ScriptReading["steps"] = [];
  for (const message of prompt) {
    if (message.role !== "assistant") continue;
    const calls: PastCall[] = [];
    let text = "";
    for (const part of message.content) {
      if (part.type === "text") text += part.text;
      if (part.type === "tool-call") {
        const result = outputs.get(part.toolCallId);
        calls.push({
          id: part.toolCallId,
          toolName: part.toolName,
          input: (typeof part.input === "string" ? parseJson(part.input) : part.input) as Record<string, unknown>,
          output: result?.output,
          failed: result?.failed ?? true,
        });
      }
    }
    steps.push({ text, calls });
  }

  const sensitivity = system.match(/Sensitivity: (low|medium|high)\./)?.[1] as "low" | "medium" | "high" | undefined;
  const answersBody = sections.get("Answers from the people in this room") ?? "";
  const humanAnswers = [...answersBody.matchAll(/- Q: (.+)\n\s+A: (.+)/g)].map((match) => ({ question: match[1]!, answer: match[2]! }));

  // Notes shown in later steps come as user messages after the opening one.
  const laterLines = prompt
    .filter((message) => message.role === "user" && message !== firstUser)
    .flatMap((message) => (message.role === "user" ? textOf(message.content).split("\n") : []));
  const messages = parseMessages([...(sections.get("Messages for you") ?? "").split("\n"), ...laterLines]);
  const team = [...(sections.get("Your team") ?? "").matchAll(/^- (.+?) \(persona: ([a-z0-9-]+)\)/gm)].map((match) => ({
    name: match[1]!,
    persona: match[2]!,
  }));
  const findings = parseFindings((sections.get("Shared findings") ?? "").split("\n"));

  const identity = system.match(/^You are (.+?), the (.+?) of .*\(persona: ([a-z0-9-]+)\)/m);
  const shadow: ScriptReading["shadow"] = shadowSections && {
    asker: shadowSections.asker,
    question: shadowSections.question,
    options: shadowSections.options,
    currentWork: shadowSections.currentWork,
    depth: shadowSections.depth,
    ownWork: shadowSections.ownWork,
  };
  // The task as the run's workflow wrote it, for a run queued before the workflow kept it as data.
  const taskWords = typed ? typed.task : userText.split("\n\n## Why you were started")[0]!.replace(/^## Task\n/, "");
  const workflow = workflowTaskOf(typed?.workflow) ?? olderWorkflowTask(taskWords);
  const history = { steps, shadow, workflow };
  if (shadowSections) {
    // A shadow remembers its earlier runs' tasks, not a room's opening.
    return {
      ...emptyOpening(),
      ...history,
      name: shadowSections.name,
      persona: shadowSections.persona,
      task: shadowSections.earlierTasks[0] ?? "",
      workflow: null,
    };
  }
  if (typed) {
    const answers = typed.extras.find((extra) => extra.title === "Answers from the people in this room")?.lines.join("\n") ?? "";
    return {
      ...history,
      name: typed.name,
      persona: typed.persona,
      task: typed.task,
      // Runs opened before the trigger was data say it in `why` only.
      requested: typed.trigger === undefined ? typed.why.startsWith("Requested by") : typed.trigger === "request",
      why: typed.why,
      roomBrief: typed.roomBrief,
      canvas: typed.canvas,
      canvasTotal: typed.canvasTotal,
      referenced: typed.referenced,
      board: typed.board,
      requests: typed.requests,
      notes: typed.notes,
      messages: parseMessages([...typed.messages, ...laterLines]),
      team: typed.team,
      findings: typed.findings.map((finding) => (typeof finding === "string" ? parseFindings([finding])[0]! : finding)).filter(Boolean),
      extras: typed.extras,
      broadcast: typed.sensitivity ? { sensitivity: typed.sensitivity } : null,
      humanAnswers: [...answers.matchAll(/- Q: (.+)\n\s+A: (.+)/g)].map((match) => ({ question: match[1]!, answer: match[2]! })),
    };
  }
  return {
    ...history,
    name: identity?.[1] ?? "Agent",
    persona: identity?.[3] ?? "",
    task: sections.get("Task") ?? userText,
    requested: (sections.get("Why you were started") ?? "").startsWith("Requested by"),
    why: sections.get("Why you were started") ?? "",
    roomBrief: sections.get("Room brief") ?? "",
    canvas: parseNodes(sections.get("Canvas")),
    canvasTotal: Number(userText.match(/^## Canvas \((\d+) nodes/m)?.[1] ?? 0),
    referenced: parseNodes(sections.get("Nodes referenced for you")),
    board: parseEntries(sections.get("Creative context from other agents"), ENTRY_LINE, 3),
    requests: parseEntries(sections.get("Requests directed at you"), REQUEST_LINE, null),
    notes: (sections.get("While you were working") ?? "")
      .split("\n")
      .map((line) => line.replace(/^- /, "").trim())
      .filter(Boolean),
    messages,
    team,
    findings,
    extras: [],
    broadcast: sensitivity ? { sensitivity } : null,
    humanAnswers,
  };
}

/** A reading of an opening that shows nothing. */
function emptyOpening(): Omit<ScriptReading, "steps" | "shadow" | "workflow"> {
  return {
    name: "Agent",
    persona: "",
    task: "",
    requested: false,
    why: "",
    roomBrief: "",
    canvas: [],
    canvasTotal: 0,
    referenced: [],
    board: [],
    requests: [],
    notes: [],
    messages: [],
    team: [],
    findings: [],
    extras: [],
    broadcast: null,
    humanAnswers: [],
  };
}
