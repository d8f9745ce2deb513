// What each turn of a dialogue asks of its agent. The headings are stable: the offline model
// reads them to know which turn it plays.
import type { Dialogue } from "@/db/schema";

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
export function answerPrompt(
  dialogue: Pick<Dialogue, "topic" | "maxRounds">,
  askerName: string,
  round: number,
  followUp: string | null,
  earlier: SaidEarlier[] = [],
): string {
  return [
    `## Dialogue with ${askerName} (round ${round} of ${dialogue.maxRounds}): answer`,
    followUp ? `${askerName} replied: ${followUp}` : `${askerName} asks: ${dialogue.topic}`,
    followUp ? conversationSoFar(dialogue, askerName, earlier) : null,
    "Answer directly and briefly, in plain words. Your final message is your answer.",
  ]
    .filter((part) => part !== null)
    .join("\n\n");
}

/** The asker's turn: its question and the latest answer, after the conversation so far (`earlier`: every message before that answer). */
export function replyPrompt(
  dialogue: Pick<Dialogue, "topic" | "maxRounds">,
  addresseeName: string,
  round: number,
  answer: string,
  earlier: SaidEarlier[] = [],
): string {
  return [
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
}
