import { APICallError } from "@ai-sdk/provider";
import { type ModelMessage, RetryError } from "ai";
import type { Database } from "@/db";
import type { RunOpening, RunStep, ShownNote } from "@/db/schema";
import { notesDeliveredTo } from "@/lib/broadcast/agent-notes";
import { ModelUnavailableError } from "@/lib/models/registry";
import type { ErrorDetails } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { buildPrompt } from "./build-prompt";
import { loadPromptContext } from "./load-prompt-context";
import type { ActiveRun } from "./run-context";
import { ModelCallTimeoutError, providerErrorDetails } from "./visible-retries";

/** What a run that ended on `error` tells the room about it. */
export function errorDetails(error: unknown): ErrorDetails {
  // After its retries the SDK reports the last provider error wrapped in a RetryError.
  if (RetryError.isInstance(error) && error.lastError) return errorDetails(error.lastError);
  if (error instanceof ModelUnavailableError) {
    return { error_type: "model_unavailable", error_message: error.message, retry_possible: false };
  }
  if (APICallError.isInstance(error) || error instanceof ModelCallTimeoutError) return providerErrorDetails(error);
  const message = error instanceof Error ? error.message : String(error);
  return { error_type: "run_error", error_message: message.slice(0, 500), retry_possible: false };
}

/** Whether a saved step asked for tools, so the model has a next step to take. */
function callsTools(messages: ModelMessage[]): boolean {
  return messages.some(
    (message) =>
      message.role === "assistant" && Array.isArray(message.content) && message.content.some((part) => part.type === "tool-call"),
  );
}

/** Builds what the model is first given: persona and guidance, then the task and the room as it is now. */
export async function openConversation(
  active: Pick<ActiveRun, "database" | "run" | "agent" | "team" | "isolated" | "settings" | "now" | "state" | "modelCalls">,
  toolNames: string[],
): Promise<RunOpening> {
  const { run, agent, team, settings } = active;
  const context = await loadPromptContext(active.database.db, {
    run,
    agent,
    team,
    isolated: active.isolated,
    settings,
    now: active.now(),
    toolNames,
    notes: {
      roomId: run.roomId,
      agentId: agent.id,
      agentName: agent.name,
      runId: run.id,
      correlationId: run.correlationId,
      step: active.state.step,
      carry: active.modelCalls,
    },
  });
  const { system, prompt, sections, contextTokens } = buildPrompt(context);
  return { system, prompt, noteIds: context.noteIds, contextTokens, sections };
}

/** Notes an earlier attempt took but saved with no step (its worker died first): not yet shown. */
export async function unshownNotes(database: Database, runId: string, opening: RunOpening, saved: RunStep[]): Promise<ShownNote[]> {
  const shown = new Set([...opening.noteIds, ...saved.flatMap((step) => step.notes.map((note) => note.id))]);
  return (await notesDeliveredTo(database.db, runId)).filter((note) => !shown.has(note.id));
}

/** The steps to take on: the room's budget less the steps earlier attempts completed. */
export function stepsLeft(settings: RoomSettings, saved: { messages: ModelMessage[] }[]): number {
  const last = saved.at(-1);
  // The last saved step answered without tools: the run was done when its worker stopped.
  if (last && !callsTools(last.messages)) return 0;
  return Math.max(0, settings.max_steps - saved.length);
}
