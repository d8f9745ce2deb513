// What each turn of a dialogue asks of its agent, in words and as data: both are made here, from
// the same values, so what the words say and what the data holds agree.
import type { Dialogue } from "@/db/schema";
import type { DialogueTask } from "./task-data";

/** A turn's task: its words (the run's prompt) and the same as data. */
interface TurnTask {
  prompt: string;
  taskData: DialogueTask;
}

/** A message said earlier in the dialogue: who said it and what. */
export interface SaidEarlier {
  from: string;
  text: string;
}

/** Each message of the dialogue's earlier rounds, so a turn from the second round on reads the whole conversation. */
function conversationSoFar(dialogue: Pick<Dialogue, "topic">, askerName: string, earlier: SaidEarlier[]): string | null {
  if (earlier.length === 0) return null;
  return [
    `The conversation so far:`,
    `- ${askerName}, opening it: ${dialogue.topic}`,
    ...earlier.map((message) => `- ${message.from}: ${message.text}`),
  ].join("\n");
}

/**
 * The addressee's turn: the question, or from the second round on the asker's latest reply, after
 * the conversation so far (`earlier`: every message before that reply).
 */
export function answerTask(
  dialogue: Pick<Dialogue, "topic" | "maxRounds">,
  askerName: string,
  round: number,
  followUp: string | null,
  earlier: SaidEarlier[] = [],
): TurnTask {
  const prompt = [
    `## Dialogue with ${askerName} (round ${round} of ${dialogue.maxRounds}): answer`,
    followUp ? `${askerName} replied: ${followUp}` : `${askerName} asks: ${dialogue.topic}`,
    followUp ? conversationSoFar(dialogue, askerName, earlier) : null,
    "Answer directly and briefly, in plain words. Your final message is your answer.",
  ]
    .filter((part) => part !== null)
    .join("\n\n");
  return {
    prompt,
    taskData: {
      workflow: "dialogue",
      turn: "answer",
      with: askerName,
      round,
      maxRounds: dialogue.maxRounds,
      topic: dialogue.topic,
      followUp,
      earlier: followUp ? earlier : [],
    },
  };
}

/** The asker's turn: its question and the latest answer, after the conversation so far (`earlier`: every message before that answer). */
export function replyTask(
  dialogue: Pick<Dialogue, "topic" | "maxRounds">,
  addresseeName: string,
  round: number,
  answer: string,
  earlier: SaidEarlier[] = [],
): TurnTask {
  const prompt = [
    `## Dialogue with ${addresseeName} (round ${round} of ${dialogue.maxRounds}): reply`,
    `You asked: ${dialogue.topic}`,
    `${addresseeName} answered: ${answer}`,
    conversationSoFar(dialogue, "You", earlier),
    "If the answer settles it, call reply_in_dialogue with satisfied true (and, when reviewing, submit_verdict again if your verdict changes). " +
      "If not, call reply_in_dialogue with satisfied false and what remains, and ask your follow-up in your final message. " +
      "Without tools, thank them if it is settled, or ask your follow-up; when reviewing, end with a line `VERDICT: APPROVE` or `VERDICT: CHANGES` if your verdict changes.",
  ]
    .filter((part) => part !== null)
    .join("\n\n");
  return {
    prompt,
    taskData: {
      workflow: "dialogue",
      turn: "reply",
      with: addresseeName,
      round,
      maxRounds: dialogue.maxRounds,
      topic: dialogue.topic,
      answer,
      earlier: earlier.map((message) => ({ from: message.from, text: message.text })),
    },
  };
}
