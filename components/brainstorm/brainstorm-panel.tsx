"use client";

import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import { useServerNow } from "@/components/room/use-server-now";
import { useSubmit } from "@/components/ui/use-submit";
import { type BrainstormDto, stageDefinition } from "@/lib/protocol/brainstorm";
import { DeliverableView, deliverableUrl } from "./deliverable-view";
import { mayDecideAtGate } from "./gate-access";
import { formatElapsed } from "./stage-figures";

const PROBLEM_MAX = 4000;

/**
 * In a Brainstorm room: the problem box for participants; where the brainstorm stands; the
 * gate, where participants decide on the ranked shortlist (spectators see it); and the final
 * deliverable once it is written.
 */
export function BrainstormPanel() {
  const template = useRoom((state) => state.room.template);
  const brainstorm = useRoom((state) => state.brainstorm);
  const seated = useRoom((state) => state.seat !== null);
  const [reading, setReading] = useState(false);
  if (template !== "brainstorm") return null;
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

function Gate({ brainstorm, seated }: { brainstorm: BrainstormDto; seated: boolean }) {
  const roomId = useRoom((state) => state.room.id);
  const now = useServerNow(true, 1000);
  const [comment, setComment] = useState("");
  const { busy, error, submit } = useSubmit();
  const admin = useRoom((state) => state.admin);
  const mayDecide = mayDecideAtGate(brainstorm.gateDeciders, { seated, admin });
  const waited = brainstorm.gateOpenedAt ? formatElapsed(now - Date.parse(brainstorm.gateOpenedAt)) : null;
  const decide = (body: Record<string, unknown>) =>
    submit(async () => {
      await apiWrite(`/api/rooms/${roomId}/brainstorms/${brainstorm.id}/gate`, "POST", { round: brainstorm.gateRound, ...body });
      setComment("");
    });
  return (
    <section className="gate" data-testid="gate" aria-label="The gate">
      <h3>
        Your decision
        {waited && (
          <span className="gate__waited" data-testid="gate-waited">
            {" "}
            · waiting {waited}
          </span>
        )}
      </h3>
      <ol className="gate__ranking" data-testid="gate-ranking">
        {brainstorm.ranking.map((candidate, index) => (
          <li key={candidate.id} data-testid={`gate-candidate-${candidate.id}`}>
            <div>
              <strong>
                {index + 1}. {candidate.title}
              </strong>{" "}
              <span className="gate__score">{candidate.score.toFixed(2)}</span>
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
                  onClick={decide({ action: "drop", candidateId: candidate.id })}
                  data-testid={`gate-drop-${candidate.id}`}
                >
                  Drop
                </button>
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={decide({ action: "deepen", candidateId: candidate.id })}
                  data-testid={`gate-deepen-${candidate.id}`}
                >
                  Deepen
                </button>
              </div>
            )}
          </li>
        ))}
      </ol>
      {brainstorm.ranking.length === 0 && <p>Nothing is left on the shortlist.</p>}
      {mayDecide ? (
        <>
          <button
            type="button"
            className="button button--primary"
            disabled={busy || brainstorm.ranking.length === 0}
            onClick={decide({ action: "approve" })}
            data-testid="gate-approve"
          >
            Approve: the Architect takes #1
          </button>
          <form className="gate__redirect" onSubmit={decide({ action: "redirect", comment })}>
            <input
              value={comment}
              maxLength={1000}
              placeholder="Redirect: what should the ranking weigh more?"
              onChange={(event) => setComment(event.target.value)}
              data-testid="gate-comment"
            />
            <button type="submit" className="button" disabled={busy || !comment.trim()} data-testid="gate-redirect">
              Redirect
            </button>
          </form>
        </>
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
