"use client";

import { useRoom } from "@/components/room/room-store";
import { useServerNow } from "@/components/room/use-server-now";
import { useHydrated } from "@/components/ui/local-time";
import { BRAINSTORM_STAGES } from "@/lib/protocol/brainstorm";
import { STATUS_LABEL, formatElapsed, stageCount, stageElapsed } from "./stage-figures";

/**
 * Across the top of a Brainstorm room (`components/workflows/panels.tsx`): the nine stages and the gate as chips, each with its
 * status, what its artifact counts against what it must hold, and how long it took or has run.
 */
export function StageTracker() {
  const brainstorm = useRoom((state) => state.brainstorm);
  const live = !!brainstorm && (brainstorm.status === "running" || brainstorm.status === "awaiting_gate");
  const now = useServerNow(live, 1000);
  // A running stage's time depends on the viewer's clock: the server's page leaves it out.
  const hydrated = useHydrated();
  if (!brainstorm) return null;
  return (
    <ol className="stage-tracker" data-testid="stage-tracker" aria-label="Brainstorm stages">
      {BRAINSTORM_STAGES.map((stage) => {
        const state = brainstorm.stages[stage.key];
        const ticking = state.status === "running" || state.status === "awaiting";
        const elapsed = ticking && !hydrated ? null : stageElapsed(state, now);
        const count = stageCount(stage.key, state);
        return (
          <li
            key={stage.key}
            className={`stage-chip stage-chip--${state.status}`}
            data-testid={`stage-${stage.key}`}
            data-status={state.status}
            title={[stage.goal, state.shortfall].filter(Boolean).join("\n")}
          >
            <span className="stage-chip__name">
              {stage.number !== null && <span className="stage-chip__number">{stage.number}</span>}
              {stage.name}
            </span>
            <span className="stage-chip__meta">
              {STATUS_LABEL[state.status]}
              {state.rerun && state.status === "running" ? " again" : ""}
              {count && ` · ${count}`}
              {elapsed !== null && ` · ${formatElapsed(elapsed)}`}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
