"use client";

import { useShallow } from "zustand/react/shallow";
import { formatUsage } from "@/components/agents/agent-status";
import { apiWrite } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import { useSubmit } from "@/components/ui/use-submit";
import type { BroadcastDto, BroadcastResponseDto, ReusedAnswerDto } from "@/lib/protocol";
import { useSecondsLeft } from "./countdown";
import { readableInk } from "@/components/ui/readable-color";

const NO_ANSWERS: BroadcastResponseDto[] = [];

function seconds(from: string, to: string | null): string {
  if (!to) return "";
  return `${((new Date(to).getTime() - new Date(from).getTime()) / 1000).toFixed(1)}s`;
}

/** One ask_others call as a thread: the question, each answer as it lands, and how it ended. */
export function BroadcastThread({ broadcastId }: { broadcastId: string }) {
  const { broadcast, answers, agents } = useRoom(
    useShallow((state) => ({
      broadcast: state.broadcasts[broadcastId],
      answers: state.answers[broadcastId] ?? NO_ANSWERS,
      agents: state.agents,
    })),
  );
  if (!broadcast) return null;
  const targets =
    broadcast.mode === "human"
      ? "the people here"
      : broadcast.targetAgentIds.length === agents.length - 1
        ? "the team"
        : broadcast.targetAgentIds.map((id) => agents.find((agent) => agent.id === id)?.name ?? "an agent").join(", ");
  return (
    <div className="thread" data-testid="broadcast-thread" data-status={broadcast.status} data-mode={broadcast.mode}>
      <div className="thread__who">
        <span className="badge badge--mode">{broadcast.mode === "human" ? "asks people" : "asks agents"}</span>
        <span className="muted">to {targets}</span>
      </div>
      <div className="thread__question">{broadcast.question}</div>
      {broadcast.reusedAnswer && <EarlierAnswer earlier={broadcast.reusedAnswer} question={broadcast.question} />}
      {answers.length > 0 && (
        <ul className="thread__answers">
          {answers.map((answer) => {
            const agent = agents.find((candidate) => candidate.id === answer.responderId);
            return (
              <li key={answer.id} className="thread__answer" data-testid="broadcast-answer">
                <div className="thread__who">
                  <span style={{ color: readableInk(agent?.color ?? "#946c00") }}>{answer.responderName}</span>
                  {answer.isHuman ? (
                    <span className="badge badge--human">human</span>
                  ) : (
                    <span className="feed__figures">{formatUsage(answer, { model: agent?.model })}</span>
                  )}
                </div>
                <div>{answer.content}</div>
              </li>
            );
          })}
        </ul>
      )}
      <Outcome broadcast={broadcast} answered={answers.length} />
      {broadcast.status === "reused" && <AskAgain broadcast={broadcast} />}
    </div>
  );
}

/** The earlier answer a question was given instead of a new prompt: whose, and to what question if it was worded otherwise. */
function EarlierAnswer({ earlier, question }: { earlier: ReusedAnswerDto; question: string }) {
  return (
    <ul className="thread__answers">
      <li className="thread__answer" data-testid="broadcast-answer" data-earlier="true">
        <div className="thread__who">
          <span style={{ color: "#946c00" }}>{earlier.answeredBy}</span>
          <span className="badge badge--human">human</span>
          <span className="muted">earlier answer</span>
        </div>
        <div>{earlier.answer}</div>
        {earlier.question !== question && (
          <div className="muted thread__earlier-question">
            to {earlier.askedBy}: “{earlier.question}”
          </div>
        )}
      </li>
    </ul>
  );
}

/**
 * "Ask us again": a participant puts a question that got an earlier answer to the room after all.
 * Once it has been, the thread says so instead.
 */
function AskAgain({ broadcast }: { broadcast: BroadcastDto }) {
  const { seated, roomId, again } = useRoom(
    useShallow((state) => ({
      seated: state.seat !== null,
      roomId: state.room.id,
      again: Object.values(state.broadcasts).find((other) => other.askedAgainOf === broadcast.id)?.status ?? null,
    })),
  );
  const { busy, error, submit } = useSubmit();
  if (again) {
    return (
      <div className="thread__again muted" data-testid="asked-again">
        asked the room again{again === "complete" ? ": answered" : ""}
      </div>
    );
  }
  if (!seated) return null;
  return (
    <form className="thread__again" onSubmit={submit(() => apiWrite(`/api/rooms/${roomId}/broadcasts/${broadcast.id}/ask-again`, "POST"))}>
      <button type="submit" className="button" data-testid="ask-again" disabled={busy}>
        Ask us again
      </button>
      <span className="muted">puts the question to the room; {broadcast.agentName} gets the new answer as a note</span>
      {error && (
        <span className="form-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

function Outcome({ broadcast, answered }: { broadcast: BroadcastDto; answered: number }) {
  const secondsLeft = useSecondsLeft(broadcast.status === "open" ? broadcast.deadlineAt : null, broadcast.openedAt);
  const wall = seconds(broadcast.createdAt, broadcast.closedAt);
  const expected = broadcast.mode === "agents" ? broadcast.targetAgentIds.length : 1;
  const text: Record<BroadcastDto["status"], string> = {
    pending: `waiting for answers (${answered} of ${expected})…`,
    waiting_turn: "waiting for its turn: another question is open",
    open: `waiting for a person to answer${secondsLeft !== null ? ` · ${secondsLeft}s left` : ""}`,
    complete: broadcast.mode === "human" && answered === 0 ? `no answer · ${wall}` : `answered in ${wall}`,
    timeout:
      broadcast.mode === "human"
        ? `nobody answered in time · ${broadcast.agentName} carries on without an answer`
        : `timed out after ${wall} · ${answered} of ${expected} answered`,
    deferred: "not asked: the people's earlier answers were returned instead",
    reused: `answered from ${broadcast.reusedAnswer?.answeredBy ?? "a person"}'s earlier answer`,
    skipped: `skipped · ${wall}`,
    cancelled: `cancelled after ${wall}: ${broadcast.agentName} stopped before collecting the answers`,
  };
  return (
    <div className={`thread__outcome thread__outcome--${broadcast.status}`} data-testid="broadcast-outcome">
      {text[broadcast.status]}
    </div>
  );
}
