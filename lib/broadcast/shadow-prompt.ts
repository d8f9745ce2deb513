import type { ModelMessage } from "ai";
import type { Agent } from "@/db/schema";
import type { TemplateInstructions } from "@/lib/rooms/templates";

export type ResponseDepth = "low" | "medium" | "high";

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

/** A past run as the conversation the shadow remembers: what it was asked and what it did. */
function runToMessages(run: ShadowHistoryRun): ModelMessage[] {
  const steps = (run.transcript as TranscriptStep[]).filter((step) => step.role === "assistant");
  const said = steps
    .flatMap((step) => [step.text?.trim(), ...(step.toolCalls ?? []).map(describeCall)])
    .filter((line): line is string => Boolean(line));
  if (said.length === 0) return [];
  return [
    { role: "user", content: run.prompt.slice(0, 1000) },
    { role: "assistant", content: said.join("\n").slice(0, 4000) },
  ];
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
  depth: ResponseDepth;
  history: ShadowHistoryRun[];
  currentText: string;
}): { system: string; messages: ModelMessage[] } {
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
  const messages: ModelMessage[] = input.history.flatMap(runToMessages);
  messages.push({
    role: "user",
    content:
      `## Question from ${input.askerName}\n${input.question}\n\n` +
      `## What you are writing right now\n${input.currentText.trim() || "(nothing at the moment)"}`,
  });
  return { system, messages };
}
