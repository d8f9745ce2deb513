"use client";

import { useServerNow } from "@/components/room/use-server-now";
import { useHydrated } from "@/components/ui/local-time";
import { useRoom } from "@/components/room/room-store";
import type { DialogueThreadState } from "@/components/room/room-state";
import { turnFigures } from "./turn-figures";
import { readableInk } from "@/components/ui/readable-color";

/**
 * Which round a dialogue is in, of how many: "round 1/2" from its opening until the asker's first
 * reply, then "round 2/2"; once closed, the rounds it took.
 */
function dialogueRound({ dialogue, messages, closed }: Pick<DialogueThreadState, "dialogue" | "messages" | "closed">): string {
  // A round is the addressee's answer and the asker's reply.
  const round = closed ? closed.rounds : Math.min(dialogue.maxRounds, Math.floor(messages.length / 2) + 1);
  return `round ${round}/${dialogue.maxRounds}`;
}

/**
 * Two agents talking, as it happens: "Reviewer ↔ Coder · round 1/2", each message with its
 * duration and cost, the turn being written with a running timer, and how it ended.
 */
export function DialogueThread({ dialogueId }: { dialogueId: string }) {
  const thread = useRoom((state) => state.dialogues[dialogueId]);
  const agents = useRoom((state) => state.agents);
  const typing = useRoom((state) => state.typing);
  const open = !!thread && !thread.closed;
  const now = useServerNow(open, 100);
  const hydrated = useHydrated();
  if (!thread) return null;
  const { dialogue, messages, closed } = thread;
  const agent = (id: string) => agents.find((candidate) => candidate.id === id);
  const asker = agent(dialogue.askerAgentId);
  const addressee = agent(dialogue.addresseeAgentId);
  // Turns alternate: the addressee answers, then the asker replies.
  const speaking = messages.length % 2 === 0 ? addressee : asker;
  const since = new Date(messages.at(-1)?.at ?? dialogue.openedAt).getTime();
  return (
    <div className="dialogue" data-testid="dialogue-thread" data-status={closed?.outcome ?? "open"}>
      <div className="dialogue__head">
        <strong style={{ color: asker && readableInk(asker.color) }}>{asker?.name}</strong> ↔{" "}
        <strong style={{ color: addressee && readableInk(addressee.color) }}>{addressee?.name}</strong>
        <span className="dialogue__round" data-testid="dialogue-round">{` · ${dialogueRound(thread)}`}</span>
      </div>
      <div className="dialogue__topic">{dialogue.topic}</div>
      <ol className="dialogue__messages">
        {messages.map((message) => {
          const from = agent(message.fromAgentId);
          return (
            <li key={`${message.runId}`} className="dialogue__message" data-testid="dialogue-message">
              <span className="dialogue__from" style={{ color: from && readableInk(from.color) }}>
                {from?.name}
              </span>{" "}
              {message.text}
              <div className="dialogue__figures" data-testid="dialogue-figures">
                {turnFigures(message)}
              </div>
            </li>
          );
        })}
        {open && speaking && (
          <li className="dialogue__message dialogue__message--writing" data-testid="dialogue-writing">
            <span className="dialogue__from" style={{ color: readableInk(speaking.color) }}>
              {speaking.name}
            </span>{" "}
            {typing[speaking.id]?.text.slice(-200) ?? "is thinking…"}
            <div className="dialogue__figures" data-testid="dialogue-timer">
              {hydrated ? `${((now - since) / 1000).toFixed(1)} s…` : "…"}
            </div>
          </li>
        )}
      </ol>
      {closed && (
        <div className={`dialogue__closed dialogue__closed--${closed.outcome}`} data-testid="dialogue-closed">
          {closed.outcome === "resolved" ? "Resolved" : closed.outcome === "unresolved" ? "Left unresolved" : "Cancelled"} after{" "}
          {closed.rounds} round{closed.rounds === 1 ? "" : "s"} · {turnFigures(closed)}
          {closed.remaining && <div className="dialogue__remaining">Still open: {closed.remaining}</div>}
        </div>
      )}
    </div>
  );
}

/** While two agents talk, the canvas shows them linked. */
export function DialogueLinks() {
  const dialogues = useRoom((state) => state.dialogues);
  const agents = useRoom((state) => state.agents);
  const open = Object.values(dialogues).filter((thread) => !thread.closed);
  if (open.length === 0) return null;
  return (
    <div className="dialogue-links" data-testid="dialogue-links">
      {open.map((thread) => {
        const { dialogue } = thread;
        const asker = agents.find((agent) => agent.id === dialogue.askerAgentId);
        const addressee = agents.find((agent) => agent.id === dialogue.addresseeAgentId);
        return (
          <div key={dialogue.id} className="dialogue-links__pair">
            <span className="dialogue-links__agent" style={{ background: asker?.color }}>
              {asker?.name}
            </span>
            <span className="dialogue-links__wire" />
            <span className="dialogue-links__agent" style={{ background: addressee?.color }}>
              {addressee?.name}
            </span>
            <span className="dialogue-links__round">{dialogueRound(thread)}</span>
          </div>
        );
      })}
    </div>
  );
}
