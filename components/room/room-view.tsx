"use client";

import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useState } from "react";
import { AgentRoster } from "@/components/agents/agent-roster";
import { HumanQuestion } from "@/components/broadcast/human-question";
import { RoomCanvas } from "@/components/canvas/room-canvas";
import { WhoAskedWhom } from "@/components/canvas/who-asked-whom";
import { WorkflowTrace } from "@/components/workflows/workflow-trace";
import { DialogueLinks } from "@/components/dialogue/dialogue-thread";
import { WorkflowPanelSlot, WorkflowTopSlot } from "@/components/workflows/panels";
import { TimelineBar } from "@/components/timeline/timeline-bar";
import { LiveRoomScope, TimelineScope, useLiveRoomStoreApi } from "@/components/timeline/timeline-scope";
import { CommandBar } from "./command-bar";
import { RoomHeader } from "./room-header";
import { RoomStoreProvider, useRoom } from "./room-store";
import { SidePanel } from "./side-panel";
import type { RoomSnapshotLike, SeatInfo } from "./room-state";
import { useRoomEvents } from "./use-room-events";

function LiveRoom() {
  const store = useLiveRoomStoreApi();
  const roomId = useRoom((state) => state.room.id);
  const deleted = useRoom((state) => state.deleted);
  const tracing = useRoom((state) => state.tracing);
  const closeTrace = useRoom((state) => state.traceWorkflow);
  const pane = useRoom((state) => state.pane);
  const [error, setError] = useState<string | null>(null);
  useRoomEvents(roomId, store);
  const showError = useCallback((message: string) => {
    setError(message);
    setTimeout(() => setError(null), 5000);
  }, []);

  return (
    <div className="room">
      <SkipLinks />
      <LiveRoomScope>
        <RoomHeader />
      </LiveRoomScope>
      {deleted && (
        <div className="banner banner--danger" data-testid="room-deleted">
          This room was deleted by an admin.
        </div>
      )}
      {error && (
        <div className="banner banner--danger" role="alert" data-testid="write-error">
          {error}
        </div>
      )}
      <main className={`room__body room__body--${pane}`}>
        <div className="room__main">
          <WorkflowTopSlot />
          <div className="room__stage">
            <ReactFlowProvider>
              <RoomCanvas onError={showError} />
            </ReactFlowProvider>
            <DialogueLinks />
            <WhoAskedWhom />
            <WorkflowPanelSlot />
          </div>
          {/* Beside the canvas, not over it: the question never covers a note. */}
          <HumanQuestion onError={showError} />
          <TimelineBar />
          <CommandBar />
        </div>
        <aside className="room__side">
          <AgentRoster onError={showError} />
          <SidePanel />
        </aside>
      </main>
      <PhoneTabs />
      {tracing && <WorkflowTrace correlationId={tracing} onClose={() => closeTrace(null)} />}
    </div>
  );
}

/**
 * The first stops of the Tab key, shown only while focused: straight to the command bar (or,
 * for a spectator, to taking a seat) and to the activity, past the header and every note. Each
 * target is focusable, so following the link moves the focus there.
 */
function SkipLinks() {
  const seated = useRoom((state) => state.seat !== null && !state.deleted);
  const first = seated
    ? { id: "command-input", label: "Skip to the command bar" }
    : { id: "display-name-input", label: "Skip to taking a seat" };
  return (
    <nav aria-label="Skip links">
      <a className="skip-link" href={`#${first.id}`} data-testid="skip-link">
        {first.label}
      </a>
      <a className="skip-link" href="#activity-feed">
        Skip to the activity
      </a>
    </nav>
  );
}

/** On a phone, one pane at a time: the canvas, the agents, or the activity and findings. */
function PhoneTabs() {
  const pane = useRoom((state) => state.pane);
  const show = useRoom((state) => state.showPane);
  const tabs = [
    { id: "canvas", label: "Canvas" },
    { id: "agents", label: "Agents" },
    { id: "activity", label: "Activity" },
  ] as const;
  return (
    <nav className="phone-tabs" aria-label="Room panes">
      {tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          className="phone-tabs__tab"
          aria-pressed={pane === tab.id}
          data-testid={`phone-tab-${tab.id}`}
          onClick={() => show(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </nav>
  );
}

/** The live room page: canvas, roster and feed, all fed by one event stream. */
export function RoomView({ snapshot, seat, admin = false }: { snapshot: RoomSnapshotLike; seat: SeatInfo | null; admin?: boolean }) {
  return (
    <RoomStoreProvider snapshot={snapshot} seat={seat} admin={admin}>
      <TimelineScope>
        <LiveRoom />
      </TimelineScope>
    </RoomStoreProvider>
  );
}
