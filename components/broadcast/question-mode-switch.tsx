"use client";

import { useShallow } from "zustand/react/shallow";
import { apiWrite } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { SidePanelState } from "@/components/room/room-store";
import type { RoomState } from "@/components/room/room-state";
import { useSubmit } from "@/components/ui/use-submit";

const MODES = [
  { mode: "off", label: "nobody" },
  { mode: "agents", label: "their teammates" },
  { mode: "human", label: "the people here" },
] as const;

const selectSwitch = (state: RoomState & SidePanelState) => ({
  roomId: state.room.id,
  mode: state.settings.broadcast,
  // The room's creator, or an admin with a seat: the server refuses anyone else.
  allowed: state.seat !== null && (state.seat.owner === true || state.admin),
});

/** "Agents' questions go to: …" for the room's owner (or a seated admin); nothing for anyone else. */
export function QuestionModeSwitch() {
  const { roomId, mode, allowed } = useRoom(useShallow(selectSwitch));
  const { busy, error, submit } = useSubmit();
  if (!allowed) return null;
  return (
    <label className="watching question-mode" title={error ?? "Who answers when an agent asks the room a question"}>
      Questions go to{" "}
      <select
        data-testid="question-mode"
        value={mode}
        disabled={busy}
        onChange={(event) => {
          const next = event.target.value;
          void submit(async () => void (await apiWrite(`/api/rooms/${roomId}/question-mode`, "PUT", { mode: next })))(event);
        }}
      >
        {MODES.map((option) => (
          <option key={option.mode} value={option.mode}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
