"use client";

import { ActivityFeed } from "@/components/feed/activity-feed";
import { FindingsPanel } from "@/components/findings/findings-panel";
import { useRoom } from "./room-store";

/** The feed and the findings board, side by side as tabs. */
export function SidePanel() {
  const tab = useRoom((state) => state.sideTab);
  const show = useRoom((state) => state.showSideTab);
  const findings = useRoom((state) => state.findings);
  const high = findings.filter((finding) => finding.severity === "high").length;
  return (
    <section className="panel feed" aria-label={tab === "activity" ? "Activity" : "Findings"}>
      <div className="panel__tabs" role="tablist">
        <button
          type="button"
          role="tab"
          aria-selected={tab === "activity"}
          className="panel__tab"
          data-testid="tab-activity"
          onClick={() => show("activity")}
        >
          Activity
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === "findings"}
          className="panel__tab"
          data-testid="tab-findings"
          onClick={() => show("findings")}
        >
          Findings <span className="panel__count">{findings.length}</span>
          {high > 0 && <span className="panel__count panel__count--high">{high} high</span>}
        </button>
      </div>
      {tab === "activity" ? <ActivityFeed /> : <FindingsPanel />}
    </section>
  );
}
