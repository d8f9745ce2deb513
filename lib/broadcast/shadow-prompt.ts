import type { ModelMessage } from "ai";
import { z } from "zod";
import type { Agent } from "@/db/schema";
import type { TemplateInstructions } from "@/lib/rooms/templates";

export type ResponseDepth = "low" | "medium" | "high";

/**
 * A shadow's prompt as data, handed to the model beside the prose (`providerOptions.parley.shadow`),
 * so a model that acts on the prompt — the offline one — reads what it was asked without
 * parsing its wording. Real providers ignore the namespace.
 */
export const shadowSectionsSchema = z.object({
  name: z.string(),
  persona: z.string(),
  role: z.string(),
  asker: z.string(),
  /** The question, without its options. */
  question: z.string(),
  options: z.array(z.string()),
  depth: z.enum(["low", "medium", "high"]),
  /** What the responder is writing right now; empty when nothing. */
  currentWork: z.string(),
  /** What it was asked in the runs it remembers, oldest first, as shown. */
  earlierTasks: z.array(z.string()),
  /** What it made in them (the nodes it added), oldest first, as shown. */
  ownWork: z.array(z.string()),
});

export type ShadowSections = z.infer<typeof shadowSectionsSchema>;

/** The provider-options key, in Parley's namespace, the shadow's sections travel under. */
export const SHADOW_SECTIONS_KEY = "shadow";

/**
 * How thorough a shadow's answer should be (`response_depth`: more effort for a more considered answer):
 * low = quick and minimal, medium = balanced, high = thorough with examples.
 */
const DEPTH_GUIDANCE: Record<ResponseDepth, string> = {
  low:
    "Response depth: low. Give a quick, simple answer: prefer the most straightforward option, avoid elaborate " +
    "plans, and keep it to one or two sentences.",
  medium:
    "Response depth: medium. Give a balanced answer: a clear recommendation with a short reason, following good " +
    "practice without over-engineering; concise but complete.",
  high:
    "Response depth: high. Give a thorough answer: weigh the options, recommend one with reasons, and add concrete " +
    "examples, details or next steps.",
};

const SHADOW_SECTION = "Answering a question from a teammate";

export interface ShadowHistoryRun {
  prompt: string;
  transcript: unknown[];
}

interface TranscriptStep {
  role?: string;
  text?: string;
  toolCalls?: { name: string; input: unknown }[];
}

function describeCall(call: { name: string; input: unknown }): string | null {
  const input = (call.input ?? {}) as Record<string, unknown>;
  switch (call.name) {
    case "create_node":
      return `I added a ${String(input.kind ?? "note")}: “${String(input.text ?? "").slice(0, 400)}”`;
    case "create_edge":
      return `I linked two nodes (“${String(input.label ?? "")}”).`;
    case "share_creative_context": {
      const content = (input.content ?? {}) as Record<string, unknown>;
      const gist = content.plan ?? content.summary ?? content.response ?? content.mood ?? content.ask;
      return gist ? `I shared a ${String(input.entryType)}: ${String(gist)}` : null;
    }
    case "request_agent":
      return `I asked ${String(input.targetPersona)}: ${String(input.prompt ?? "")}`;
    default:
      return null;
  }
}

/** What a node the shadow added says, as its line quotes it. */
function addedText(call: { name: string; input: unknown }): string | null {
  return call.name === "create_node" ? String(((call.input ?? {}) as Record<string, unknown>).text ?? "").slice(0, 400) : null;
}

/** A past run as the conversation the shadow remembers (what it was asked and what it did), and what it added in it as shown. */
function rememberRun(run: ShadowHistoryRun): { messages: ModelMessage[]; task: string; added: string[] } | null {
  const steps = (run.transcript as TranscriptStep[]).filter((step) => step.role === "assistant");
  const said = steps
    .flatMap((step) => [step.text?.trim(), ...(step.toolCalls ?? []).map(describeCall)])
    .filter((line): line is string => Boolean(line));
  if (said.length === 0) return null;
  const task = run.prompt.slice(0, 1000);
  const content = said.join("\n").slice(0, 4000);
  const added = steps.flatMap((step) =>
    (step.toolCalls ?? []).flatMap((call) => {
      const line = describeCall(call);
      const text = addedText(call);
      // Only what the shortened conversation still shows.
      return text !== null && line !== null && content.includes(line) ? [text] : [];
    }),
  );
  return {
    messages: [
      { role: "user", content: task },
      { role: "assistant", content },
    ],
    task,
    added,
  };
}

/**
 * A shadow responder's prompt: the responder's own identity, in the words its room's template
 * uses for its team (`templateInstructions`), its conversation so far and what it is streaming
 * right now, then the question. No tools, no workflow instructions.
 */
export function buildShadowPrompt(input: {
  agent: Pick<Agent, "name" | "role" | "persona" | "systemPrompt">;
  /** What the room's template tells its agents about their team. */
  words: Pick<TemplateInstructions, "team">;
  askerName: string;
  question: string;
  /** The answers the asker offers, if any. */
  options?: string[];
  depth: ResponseDepth;
  history: ShadowHistoryRun[];
  currentText: string;
}): { system: string; messages: ModelMessage[]; sections: ShadowSections } {
  const { agent } = input;
  const system = [
    `You are ${agent.name}, the ${agent.role} of ${input.words.team} (persona: ${agent.persona}).`,
    agent.systemPrompt,
    `## ${SHADOW_SECTION}\n${input.askerName} asked the team a question while you were working. Answer as yourself, ` +
      "from what you have done and what you are working on right now; your main work carries on without you. " +
      "You have no tools here: answer in plain text, directly.",
    DEPTH_GUIDANCE[input.depth],
  ]
    .filter(Boolean)
    .join("\n\n");
  const remembered = input.history.flatMap((run) => rememberRun(run) ?? []);
  const messages: ModelMessage[] = remembered.flatMap((run) => run.messages);
  const options = input.options ?? [];
  const question = options.length ? `${input.question}\nOptions: ${options.join(" | ")}` : input.question;
  messages.push({
    role: "user",
    content:
      `## Question from ${input.askerName}\n${question}\n\n` +
      `## What you are writing right now\n${input.currentText.trim() || "(nothing at the moment)"}`,
  });
  const sections: ShadowSections = {
    name: agent.name,
    persona: agent.persona,
    role: agent.role,
    asker: input.askerName,
    question: input.question,
    options,
    depth: input.depth,
    currentWork: input.currentText.trim(),
    earlierTasks: remembered.map((run) => run.task),
    ownWork: remembered.flatMap((run) => run.added),
  };
  return { system, messages, sections };
}
