import type { JSONObject } from "@ai-sdk/provider";

/**
 * What a run's opening message says, section by section, as data: handed to the model beside
 * the prose (`providerOptions.parley.prompt`), so a model that acts on the prompt — the offline
 * one — reads what was shown without parsing its wording. Real providers ignore the namespace.
 * Only what survived the context budget is here. Plain JSON: it travels in provider options.
 */
export type PromptSections = {
  name: string;
  persona: string;
  role: string;
  task: string;
  /** What started the run: `request` when a teammate asked for it (see `why`). */
  trigger: string;
  why: string;
  roomBrief: string;
  canvas: PromptSectionNode[];
  /** How many nodes the canvas holds, also those left out. */
  canvasTotal: number;
  referenced: PromptSectionNode[];
  board: PromptSectionEntry[];
  requests: PromptSectionEntry[];
  notes: string[];
  /** Participants' messages and answers to help requests, as their lines read. */
  messages: string[];
  team: { name: string; persona: string }[];
  /** The room's findings shown, their text clipped as shown. */
  findings: PromptSectionFinding[];
  /** The sections a workflow added (a brainstorm stage's, people's answers), as shown. */
  extras: PromptSectionExtra[];
  /** What the run's workflow asked of it, as data (see `WorkflowTaskData`); null for a run of no workflow, or one queued before it was kept. */
  workflow: WorkflowTaskData | null;
  /** The room's sensitivity for ask_others; null when asking others is off or the guidance is a workflow's own. */
  sensitivity: "low" | "medium" | "high" | null;
};

/**
 * A section a workflow added: its lines as shown and, when the workflow gave them, `key` naming
 * the section whatever its title, and `items`, the data of each line shown (one per line, in order).
 */
export type PromptSectionExtra = { title: string; lines: string[]; key?: string; items?: JSONObject[] };

/**
 * What a workflow asks of a run, as data, made with the run's task in words when the run is
 * queued: `workflow` names the workflow whose shape the rest has. The engine carries it without
 * reading it; the workflow defines (and checks) its shape.
 */
export type WorkflowTaskData = { workflow: string } & JSONObject;

export type PromptSectionNode = { id: string; kind: string; author: string; x: number; y: number; text: string };

export type PromptSectionFinding = { agent: string; severity: string; text: string };

export type PromptSectionEntry = { id: string; author: string; kind: string; content: JSONObject };

/** The provider-options namespace the sections travel in. */
export const PROMPT_SECTIONS_KEY = "parley";
