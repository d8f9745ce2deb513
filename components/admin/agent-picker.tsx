"use client";

import type { AdminAgentMatch } from "@/lib/admin/find-agents";
import { queryString } from "./admin-api";
import { agentChoices } from "./agent-choices";
import { type PickerChoice, SearchPicker } from "./search-picker";

/**
 * Picks an agent by its name across the instance, or among one room's agents when `room` is
 * given: one agent in its room, or every agent of a name. The value is what the runs list's
 * `agent` filter takes (an id, or a name).
 */
export function AgentPicker({
  agent,
  room,
  onChange,
}: {
  agent: PickerChoice | null;
  room: string | null;
  onChange: (agent: PickerChoice | null) => void;
}) {
  return (
    <SearchPicker<{ agents: AdminAgentMatch[] }>
      chosen={agent}
      onChange={onChange}
      label="Agent"
      placeholder="Agent — type a name"
      testId="agent"
      url={(text) => `/api/admin/agents${queryString({ q: text || undefined, room, limit: 8 })}`}
      optionsOf={({ agents }) => agentChoices(agents, room !== null)}
      empty={room ? "No agent of this room has that name." : "No agent has that name."}
    />
  );
}
