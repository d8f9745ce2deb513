// What each turn of a dialogue asks of its agent. The headings are stable: the offline model
// reads them to know which turn it plays.
import type { Dialogue } from "@/db/schema";

export function answerPrompt(dialogue: Pick<Dialogue, "topic" | "maxRounds">, askerName: string, round: number, followUp: string | null): string {
  return [
    `## Dialogue with ${askerName} (round ${round} of ${dialogue.maxRounds}): answer`,
    followUp ? `${askerName} replied: ${followUp}` : `${askerName} asks: ${dialogue.topic}`,
    "Answer directly and briefly, in plain words. Your final message is your answer.",
  ].join("\n\n");
}

export function replyPrompt(dialogue: Pick<Dialogue, "topic" | "maxRounds">, addresseeName: string, round: number, answer: string): string {
  return [
    `## Dialogue with ${addresseeName} (round ${round} of ${dialogue.maxRounds}): reply`,
    `You asked: ${dialogue.topic}`,
    `${addresseeName} answered: ${answer}`,
    "If the answer settles it, call reply_in_dialogue with satisfied true (and, when reviewing, submit_verdict again if your verdict changes). " +
      "If not, call reply_in_dialogue with satisfied false and what remains, and ask your follow-up in your final message. " +
      "Without tools, thank them if it is settled, or ask your follow-up.",
  ].join("\n\n");
}
