import type { AdminAgentMatch } from "@/lib/admin/find-agents";
import type { PickerChoice } from "./search-picker";

/**
 * The choices the agents matching what was typed offer: each agent in its room (by id), and
 * before the first of a name found in several rooms, that name in every room (by name).
 */
export function agentChoices(matches: AdminAgentMatch[], inRoom: boolean): (PickerChoice & { detail?: string })[] {
  const rooms = new Map<string, number>();
  for (const agent of matches) rooms.set(agent.name.toLowerCase(), (rooms.get(agent.name.toLowerCase()) ?? 0) + 1);
  const choices: (PickerChoice & { detail?: string })[] = [];
  const offered = new Set<string>();
  for (const agent of matches) {
    const name = agent.name.toLowerCase();
    if (!inRoom && (rooms.get(name) ?? 0) > 1 && !offered.has(name)) {
      offered.add(name);
      choices.push({ value: agent.name, label: `${agent.name} (every room)`, detail: "every agent of that name" });
    }
    choices.push({ value: agent.id, label: inRoom ? agent.name : `${agent.name} in ${agent.roomTitle}`, detail: agent.model });
  }
  return choices;
}
