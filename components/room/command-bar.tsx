"use client";

import { useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useSubmit } from "@/components/ui/use-submit";
import { type AgentDto, LIMITS } from "@/lib/protocol";
import { apiRequest } from "./api";
import { useRoom } from "./room-store";

interface Sent {
  kind: "message" | "focus";
  command?: { id: string; agentId: string; delivery: "next_step" | "queued_run" | "new_run" | "inbox" };
  agentId?: string | null;
}

const DELIVERY = {
  next_step: "in its next step",
  queued_run: "when its queued run starts",
  new_run: "starting now",
  inbox: "when its client reads its messages",
} as const;

/** Names offered while typing `@…` or `/focus …`: the agents whose name or persona starts with what was typed. */
function suggestions(
  text: string,
  agents: Pick<AgentDto, "id" | "name" | "persona">[],
): { agent: Pick<AgentDto, "id" | "name" | "persona">; completion: string }[] {
  const focus = text.match(/^\/focus\s+@?(.*)$/i);
  const mention = text.match(/^@([^\s,:]*(?:\s[^\s,:]*)?)$/);
  const typed = (focus?.[1] ?? mention?.[1])?.toLowerCase().replace(/[\s\-_]+/g, "");
  if (typed === undefined) return [];
  return agents
    .filter((agent) =>
      [agent.name, agent.persona].some((key) =>
        key
          .toLowerCase()
          .replace(/[\s\-_]+/g, "")
          .startsWith(typed),
      ),
    )
    .map((agent) => ({ agent, completion: focus ? `/focus ${agent.name}` : `@${agent.name} ` }));
}

/**
 * Withdraws one of this seat's waiting messages. Returns why it was refused (it reached its
 * agent meanwhile, say), or null. The message leaves the list when `command.cancelled` arrives.
 */
export async function withdrawCommand(roomId: string, commandId: string): Promise<string | null> {
  try {
    await apiRequest(`/api/rooms/${roomId}/commands/${commandId}`, "DELETE");
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Whether the room has seen `commandId` reach its agent (or be withdrawn): then the line saying it is on its way is done. */
function selectTakenUp(commandId: string | undefined) {
  return (state: { feed: { type: string; payload: unknown }[] }) =>
    commandId !== undefined &&
    state.feed.some(
      (event) =>
        (event.type === "command.delivered" && (event.payload as { commandIds: string[] }).commandIds.includes(commandId)) ||
        (event.type === "command.cancelled" && (event.payload as { commandId: string }).commandId === commandId),
    );
}

/**
 * Where participants steer the agents: `@Name message` reaches that agent at once (its next
 * step, its queued run, or a run started for it), plain text goes to the focused agent, and
 * `/focus Name` (or `/focus` alone: whoever worked last) sets that focus.
 */
export function CommandBar() {
  const { roomId, agents, seat, pending } = useRoom(
    useShallow((state) => ({ roomId: state.room.id, agents: state.agents, seat: state.seat, pending: state.pendingCommands })),
  );
  const [text, setText] = useState("");
  const { busy, error, submit, clearError } = useSubmit();
  const [status, setStatus] = useState<{ tone: "ok" | "error"; text: string; commandId?: string } | null>(null);
  // "Sent to … — starting now" lasts until the agent reads the message in a step, which acts on it.
  const takenUp = useRoom(selectTakenUp(status?.commandId));
  if (!seat) return null;
  const nameOf = (agentId: string | null | undefined) => agents.find((agent) => agent.id === agentId)?.name;
  const focusName = nameOf(seat.focusAgentId);
  const mine = Object.values(pending).filter((command) => command.senderId === `human:${seat.id}`);
  const offered = suggestions(text, agents);
  // A failed send says why until the next try or the next edit, over what the last one said.
  const shown = error !== null ? { tone: "error" as const, text: error } : takenUp ? null : status;

  const send = submit(async () => {
    if (!text.trim()) return;
    const sent = await apiRequest<Sent>(`/api/rooms/${roomId}/commands`, "POST", { text }, { idempotencyKey: crypto.randomUUID() });
    setText("");
    setStatus({
      tone: "ok",
      text:
        sent.kind === "focus"
          ? `Plain messages now go to ${nameOf(sent.agentId) ?? "whichever agent worked last"}.`
          : `Sent to ${nameOf(sent.command?.agentId)} — ${DELIVERY[sent.command!.delivery]}.`,
      commandId: sent.command?.id,
    });
  });
  const withdraw = async (commandId: string) => {
    const refused = await withdrawCommand(roomId, commandId);
    if (!refused) return;
    clearError();
    setStatus({ tone: "error", text: refused });
  };

  return (
    <div className="command-bar" data-testid="command-bar">
      {mine.length > 0 && (
        <ul className="command-bar__pending">
          {mine.map((command) => (
            <li key={command.id} data-testid="pending-command">
              <span className="command-bar__waiting">waiting</span> {nameOf(command.agentId)}: “{command.text}”
              <button type="button" className="link-button" onClick={() => void withdraw(command.id)} data-testid="withdraw-command">
                withdraw
              </button>
            </li>
          ))}
        </ul>
      )}
      {offered.length > 0 && (
        <ul className="command-bar__suggestions" aria-label="Agents to address" data-testid="command-suggestions">
          {offered.map(({ agent, completion }) => (
            <li key={agent.id}>
              <button type="button" onClick={() => setText(completion)}>
                {agent.name} <span className="command-bar__persona">{agent.persona}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="command-bar__form" onSubmit={send}>
        <span className="command-bar__focus" title="Where a message without @Name goes">
          → {focusName ?? "latest agent"}
        </span>
        <input
          className="command-bar__input"
          data-testid="command-input"
          id="command-input"
          placeholder={`@${agents[0]?.name ?? "Name"} your message · /focus ${agents.at(-1)?.name ?? "Name"}`}
          value={text}
          maxLength={LIMITS.commandText}
          aria-label="Message an agent"
          onChange={(event) => {
            setText(event.target.value);
            setStatus(null);
            clearError();
          }}
          onKeyDown={(event) => {
            if (event.key === "Tab" && offered[0]) {
              event.preventDefault();
              setText(offered[0].completion);
            }
          }}
        />
        <button type="submit" className="button button--primary" disabled={busy || !text.trim()} data-testid="command-send">
          Send
        </button>
      </form>
      {shown && (
        <div
          className={`command-bar__status command-bar__status--${shown.tone}`}
          role={shown.tone === "error" ? "alert" : "status"}
          data-testid="command-status"
        >
          {shown.text}
        </div>
      )}
    </div>
  );
}
