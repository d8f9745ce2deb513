"use client";

import { useRef, useState } from "react";
import { apiWrite } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import { useServerNow } from "@/components/room/use-server-now";
import { useHydrated } from "@/components/ui/local-time";
import { useSubmit } from "@/components/ui/use-submit";
import { type BrainstormDto, stageDefinition } from "@/lib/protocol/brainstorm";
import { DeliverableView, deliverableUrl } from "./deliverable-view";
import { mayDecideAtGate } from "./gate-access";
import { formatElapsed } from "./stage-figures";

const PROBLEM_MAX = 4000;

/**
 * In a Brainstorm room (`components/workflows/panels.tsx`): the problem box for participants; where the brainstorm stands; the
 * gate, where participants decide on the ranked shortlist (spectators see it); and the final
 * deliverable once it is written.
 */
export function BrainstormPanel() {
  const brainstorm = useRoom((state) => state.brainstorm);
  const seated = useRoom((state) => state.seat !== null);
  const [reading, setReading] = useState(false);
  const busy = brainstorm && (brainstorm.status === "running" || brainstorm.status === "awaiting_gate");
  return (
    <div className="brainstorm-panel" data-testid="brainstorm-panel">
      {brainstorm && <Status brainstorm={brainstorm} onRead={() => setReading(true)} />}
      {seated && busy && brainstorm && <StopButton brainstormId={brainstorm.id} />}
      {brainstorm?.status === "awaiting_gate" && <Gate brainstorm={brainstorm} seated={seated} />}
      {seated && !busy && <ProblemForm again={!!brainstorm} />}
      {!seated && !brainstorm && <p className="brainstorm-panel__hint">Take a seat to give the room a problem to brainstorm.</p>}
      {reading && brainstorm && <DeliverableView brainstorm={brainstorm} onClose={() => setReading(false)} />}
    </div>
  );
}

function Status({ brainstorm, onRead }: { brainstorm: BrainstormDto; onRead: () => void }) {
  const roomId = useRoom((state) => state.room.id);
  const current = Object.entries(brainstorm.stages).find(([, stage]) => stage.status === "running" || stage.status === "awaiting");
  const where =
    brainstorm.status === "complete"
      ? "Finished: the deliverable is ready."
      : brainstorm.status === "cancelled"
        ? "Stopped."
        : current
          ? `Now: ${stageDefinition(current[0] as keyof BrainstormDto["stages"]).name}`
          : "Moving on…";
  return (
    <div className="brainstorm-panel__status" data-testid="brainstorm-status">
      <strong className="brainstorm-panel__problem">{brainstorm.problem}</strong>
      <div>{where}</div>
      {brainstorm.hasDeliverable && (
        <div className="brainstorm-panel__deliverable">
          <button type="button" className="button button--primary" data-testid="read-deliverable" onClick={onRead}>
            Read the deliverable
          </button>
          <a className="button" href={deliverableUrl(roomId, brainstorm.id)} download data-testid="download-deliverable">
            Download .md
          </a>
        </div>
      )}
    </div>
  );
}

/**
 * Candidates that were on the shortlist this page showed and are no longer, each with why: the
 * gate dropped it (and who did), or fact checking and pushback judged it out of the running.
 */
function useLeftShortlist(brainstorm: BrainstormDto): { id: string; title: string; why: string }[] {
  const seen = useRef(new Map<string, string>());
  const seenFor = useRef(brainstorm.id);
  if (seenFor.current !== brainstorm.id) {
    seen.current = new Map();
    seenFor.current = brainstorm.id;
  }
  for (const candidate of brainstorm.ranking) seen.current.set(candidate.id, candidate.title);
  const shown = new Set(brainstorm.ranking.map((candidate) => candidate.id));
  const dropped = new Map(
    brainstorm.decisions.flatMap((decision) =>
      decision.action === "drop" && decision.candidateId ? [[decision.candidateId, decision]] : [],
    ),
  );
  const left = new Set([...seen.current.keys(), ...dropped.keys()].filter((id) => !shown.has(id)));
  return [...left].map((id) => {
    const drop = dropped.get(id);
    return {
      id,
      title: seen.current.get(id) ?? id,
      why: drop ? `dropped by ${drop.byName}` : "judged out of the running by fact checking or pushback",
    };
  });
}

/**
 * The gate: the decision first (approve, or redirect with a comment), then the ranked shortlist.
 * A drop is held here, undoable, until the decision is sent: the drops go first, each re-ranking
 * the shortlist, then the decision on the round they leave open, and the next stage starts.
 */
function Gate({ brainstorm, seated }: { brainstorm: BrainstormDto; seated: boolean }) {
  const roomId = useRoom((state) => state.room.id);
  const now = useServerNow(true, 1000);
  const hydrated = useHydrated();
  const [comment, setComment] = useState("");
  const [dropping, setDropping] = useState<ReadonlySet<string>>(new Set());
  const { busy, error, submit } = useSubmit();
  const admin = useRoom((state) => state.admin);
  const left = useLeftShortlist(brainstorm);
  const mayDecide = mayDecideAtGate(brainstorm.gateDeciders, { seated, admin });
  const waited = hydrated && brainstorm.gateOpenedAt ? formatElapsed(now - Date.parse(brainstorm.gateOpenedAt)) : null;
  const kept = brainstorm.ranking.filter((candidate) => !dropping.has(candidate.id));
  const decide = (body: Record<string, unknown>) =>
    submit(async () => {
      let round = brainstorm.gateRound;
      for (const candidateId of dropping) {
        if (!brainstorm.ranking.some((candidate) => candidate.id === candidateId)) continue;
        const after = await apiWrite<{ brainstorm: BrainstormDto }>(`/api/rooms/${roomId}/brainstorms/${brainstorm.id}/gate`, "POST", {
          round,
          action: "drop",
          candidateId,
        });
        round = after.brainstorm.gateRound;
      }
      setDropping(new Set());
      if (body.action !== "drop") await apiWrite(`/api/rooms/${roomId}/brainstorms/${brainstorm.id}/gate`, "POST", { round, ...body });
      setComment("");
    });
  const toggleDrop = (candidateId: string) =>
    setDropping((current) => {
      const next = new Set(current);
      if (!next.delete(candidateId)) next.add(candidateId);
      return next;
    });
  return (
    <section className="gate" data-testid="gate" aria-labelledby="gate-heading">
      <h2 className="gate__heading" id="gate-heading">
        Your decision
        {waited && (
          <span className="gate__waited" data-testid="gate-waited">
            {" "}
            · waiting {waited}
          </span>
        )}
      </h2>
      {mayDecide ? (
        <div className="gate__decision">
          <button
            type="button"
            className="button button--primary"
            disabled={busy || kept.length === 0}
            onClick={decide({ action: "approve" })}
            data-testid="gate-approve"
          >
            Approve: the Architect takes #1{kept[0] ? ` (${kept[0].title})` : ""}
          </button>
          {dropping.size > 0 && (
            <p className="gate__pending" role="status" data-testid="gate-pending">
              {dropping.size === 1 ? "One candidate is" : `${dropping.size} candidates are`} dropped when you decide; undo below until then.
            </p>
          )}
          <form className="gate__redirect" onSubmit={decide({ action: "redirect", comment })}>
            <input
              value={comment}
              maxLength={1000}
              aria-label="Redirect: what should the ranking weigh more?"
              placeholder="Redirect: what should the ranking weigh more?"
              onChange={(event) => setComment(event.target.value)}
              data-testid="gate-comment"
            />
            <button type="submit" className="button" disabled={busy || !comment.trim()} data-testid="gate-redirect">
              Redirect
            </button>
          </form>
        </div>
      ) : (
        <p className="brainstorm-panel__hint" data-testid="gate-watch-only">
          {brainstorm.gateDeciders === "admins" ? "An admin decides at this room's gate." : "Take a seat to decide."}
        </p>
      )}
      {error && (
        <div className="command-bar__status command-bar__status--error" role="alert">
          {error}
        </div>
      )}
      <ol className="gate__ranking" data-testid="gate-ranking" aria-label="The ranked shortlist">
        {brainstorm.ranking.map((candidate, index) => {
          const dropped = dropping.has(candidate.id);
          return (
            <li
              key={candidate.id}
              data-testid={`gate-candidate-${candidate.id}`}
              className={dropped ? "gate__candidate--dropping" : undefined}
            >
              <div>
                <strong>
                  {index + 1}. {candidate.title}
                </strong>{" "}
                <span className="gate__score">{candidate.score.toFixed(2)}</span>
                {dropped && <span className="gate__dropping"> · to be dropped</span>}
              </div>
              <div className="gate__standing">
                {candidate.id} · {candidate.standing}
              </div>
              {mayDecide && (
                <div className="gate__row-actions">
                  <button
                    type="button"
                    className="button"
                    disabled={busy}
                    aria-pressed={dropped}
                    onClick={() => toggleDrop(candidate.id)}
                    data-testid={`gate-drop-${candidate.id}`}
                  >
                    {dropped ? "Undo drop" : "Drop"}
                  </button>
                  <button
                    type="button"
                    className="button"
                    disabled={busy || dropped}
                    onClick={decide({ action: "deepen", candidateId: candidate.id })}
                    data-testid={`gate-deepen-${candidate.id}`}
                  >
                    Deepen
                  </button>
                </div>
              )}
            </li>
          );
        })}
      </ol>
      {brainstorm.ranking.length === 0 && <p>Nothing is left on the shortlist.</p>}
      {left.length > 0 && (
        <div className="gate__left" data-testid="gate-left">
          <h3>No longer on the shortlist</h3>
          <ul>
            {left.map((candidate) => (
              <li key={candidate.id}>
                <strong>{candidate.title}</strong>: {candidate.why}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/** Stops the brainstorm wherever it is, so a gate nobody decides never holds the room. */
function StopButton({ brainstormId }: { brainstormId: string }) {
  const roomId = useRoom((state) => state.room.id);
  const { busy, error, submit } = useSubmit();
  return (
    <form
      className="brainstorm-panel__stop"
      onSubmit={submit(() => apiWrite(`/api/rooms/${roomId}/brainstorms/${brainstormId}/cancel`, "POST").then(() => undefined))}
    >
      <button type="submit" className="link-button" disabled={busy} data-testid="brainstorm-stop">
        Stop this brainstorm
      </button>
      {error && <div className="command-bar__status command-bar__status--error">{error}</div>}
    </form>
  );
}

function ProblemForm({ again }: { again: boolean }) {
  const roomId = useRoom((state) => state.room.id);
  const [problem, setProblem] = useState("");
  const { busy, error, submit } = useSubmit();
  return (
    <form
      className="brainstorm-panel__form"
      onSubmit={submit(async () => {
        await apiWrite(`/api/rooms/${roomId}/brainstorms`, "POST", { problem });
        setProblem("");
      })}
    >
      <label htmlFor="brainstorm-problem">{again ? "Another problem to brainstorm" : "A problem to brainstorm"}</label>
      <textarea
        id="brainstorm-problem"
        data-testid="brainstorm-problem"
        placeholder="How might we cut onboarding time for new engineers?"
        value={problem}
        maxLength={PROBLEM_MAX}
        onChange={(event) => setProblem(event.target.value)}
      />
      <button type="submit" className="button button--primary" disabled={busy || !problem.trim()} data-testid="brainstorm-start">
        Brainstorm it
      </button>
      {error && <div className="command-bar__status command-bar__status--error">{error}</div>}
    </form>
  );
}
