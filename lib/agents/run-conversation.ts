import type { ModelMessage } from "ai";
import type { ShownNote } from "@/db/schema";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { NOTES_SHARE, estimateTokens } from "./build-prompt";
import { formatNote } from "./render-prompt";

/** A step of a run's conversation: the notes that arrived before it, then the model's turn and its tools' results. */
export interface ConversationStep {
  notes: ShownNote[];
  messages: ModelMessage[];
}

/**
 * The tokens the notes that arrive during a run may take: what the opening message left of
 * the room's context budget, and never less than the notes' share of it.
 */
export function lateNotesBudget(settings: RoomSettings, openingContextTokens: number): number {
  const budget = settings.context_token_budget;
  return Math.max(budget - openingContextTokens, Math.floor(budget * NOTES_SHARE));
}

function notesMessage(notes: ShownNote[]): ModelMessage {
  return { role: "user", content: notes.map((note) => formatNote(note.text)).join("\n") };
}

/**
 * What the model reads for its next step: the opening message, then each step taken so far
 * after the notes that arrived before it, then the notes that arrived since (`arrived`).
 * A note stays in the conversation where it arrived
 * for the rest of the run, and appears there once. When the notes outgrow `budget` tokens
 * the oldest are left out; the newest is always shown.
 */
export function conversationMessages(opening: string, steps: ConversationStep[], arrived: ShownNote[], budget: number): ModelMessage[] {
  const newestFirst = [...steps.flatMap((step) => step.notes), ...arrived].reverse();
  const kept = new Set<ShownNote>();
  let spent = 0;
  for (const note of newestFirst) {
    spent += estimateTokens(`${formatNote(note.text)}\n`);
    if (spent > budget && kept.size > 0) break;
    kept.add(note);
  }
  const withKeptNotes = (notes: ShownNote[]): ModelMessage[] => {
    const shown = notes.filter((note) => kept.has(note));
    return shown.length ? [notesMessage(shown)] : [];
  };
  return [
    { role: "user", content: opening },
    ...steps.flatMap((step) => [...withKeptNotes(step.notes), ...step.messages]),
    ...withKeptNotes(arrived),
  ];
}
