"use client";

import { useEffect, useRef, useState } from "react";
import { useNow } from "@/components/ui/use-now";
import { useShallow } from "zustand/react/shallow";
import type { AgentDto } from "@/lib/protocol";
import { LIMITS } from "@/lib/protocol";
import { apiWrite } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { RoomState } from "@/components/room/room-state";
import { EXTERNAL_QUIET_MS, agentStatus, formatUsage, withRemoteTask } from "./agent-status";
import { ExternalAgentsPanel } from "./external-agents-panel";
import { VaultDrawer } from "./vault-drawer";

function modelLabel(model: string): { provider: string; name: string; scripted: boolean; outside: boolean } {
  const [provider = "", ...rest] = model.split(":");
  return { provider, name: rest.join(":"), scripted: provider === "script", outside: provider === "external" };
}

const selectRoster = (state: RoomState) => ({
  agents: state.agents,
  runs: state.runs,
  typing: state.typing,
  broadcasts: state.broadcasts,
  answers: state.answers,
  canAct: state.seat !== null && !state.deleted,
  roomId: state.room.id,
  pending: state.pendingCommands,
  externalActiveAt: state.externalActiveAt,
  remoteTasks: state.remoteTasks,
});

/** The room's agents: who they are, what drives them and what each is doing right now. */
export function AgentRoster({ onError }: { onError: (message: string) => void }) {
  const { agents, runs, typing, broadcasts, answers, canAct, roomId, pending, externalActiveAt, remoteTasks } = useRoom(
    useShallow(selectRoster),
  );
  const waiting = (agentId: string) => Object.values(pending).filter((command) => command.agentId === agentId).length;
  // An outside agent that called lately turns idle a minute later without any event: the clock must tick until then.
  const outsideWorking = Object.values(externalActiveAt).some((at) => Date.now() - at < EXTERNAL_QUIET_MS);
  const busy = outsideWorking || Object.values(runs).some((run) => run.status === "running" || run.status === "queued");
  const now = useNow(busy, outsideWorking ? 1000 : 500);
  return (
    <section className="panel roster" aria-label="Agents">
      <h2 className="panel__title">Agents</h2>
      <ul className="roster__list" data-testid="agent-roster">
        {agents.map((agent) => (
          <AgentRow
            key={agent.id}
            agent={agent}
            status={withRemoteTask(
              agentStatus(agent, runs, typing, now, broadcasts, answers, externalActiveAt[agent.id]),
              remoteTasks[agent.id],
            )}
            typingText={typing[agent.id]?.text}
            canAct={canAct}
            roomId={roomId}
            onError={onError}
            waiting={waiting(agent.id)}
          />
        ))}
      </ul>
      {canAct && <ExternalAgentsPanel roomId={roomId} onError={onError} />}
    </section>
  );
}

function AgentRow({
  agent,
  status,
  typingText,
  canAct,
  roomId,
  onError,
  waiting,
}: {
  agent: AgentDto;
  status: ReturnType<typeof agentStatus>;
  typingText: string | undefined;
  canAct: boolean;
  roomId: string;
  onError: (message: string) => void;
  /** Participants' messages waiting for it. */
  waiting: number;
}) {
  const [prompting, setPrompting] = useState(false);
  // Opening the prompt box is asking to type in it.
  const promptInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (prompting) promptInput.current?.focus();
  }, [prompting]);
  const [knowledge, setKnowledge] = useState(false);
  const [prompt, setPrompt] = useState("");
  const model = modelLabel(agent.model);
  const start = async (text?: string) => {
    setPrompting(false);
    setPrompt("");
    try {
      await apiWrite(`/api/rooms/${roomId}/runs`, "POST", { agentId: agent.id, ...(text ? { prompt: text } : {}) });
    } catch (error) {
      onError((error as Error).message);
    }
  };
  const cancel = async () => {
    if (!status.run) return;
    try {
      await apiWrite(`/api/rooms/${roomId}/runs/${status.run.id}/cancel`, "POST");
    } catch (error) {
      onError((error as Error).message);
    }
  };
  const active = status.kind === "running" || status.kind === "typing" || status.kind === "asking";

  return (
    <li className={`roster__agent roster__agent--${status.kind}`} data-testid={`agent-${agent.persona}`} data-status={status.kind}>
      <span className={`roster__avatar${active ? " roster__avatar--active" : ""}`} style={{ background: agent.color }}>
        {agent.name.slice(0, 1)}
      </span>
      <div className="roster__who">
        <div className="roster__name">
          {agent.name} <span className="roster__role">{agent.role}</span>
        </div>
        {status.kind === "unavailable" ? (
          <div className="roster__problem" data-testid="agent-unavailable">
            Cannot run: {agent.unavailableReason}
          </div>
        ) : active && typingText ? (
          <div className="roster__typing" data-testid="agent-typing">
            {typingText.slice(-120)}
            <span className="caret" />
          </div>
        ) : active && status.run ? (
          <div className="roster__description">
            Working on: {status.run.prompt.slice(0, 80)} · {formatUsage(status.run, { model: agent.model })}
          </div>
        ) : (
          <div className="roster__description">{agent.description}</div>
        )}
        {prompting && (
          <form
            className="roster__prompt"
            onSubmit={(event) => {
              event.preventDefault();
              void start(prompt.trim() || undefined);
            }}
          >
            <input
              ref={promptInput}
              data-testid="agent-prompt-input"
              placeholder={`What should ${agent.name} do? (optional)`}
              value={prompt}
              maxLength={LIMITS.noteText}
              onChange={(event) => setPrompt(event.target.value)}
            />
            <button type="submit" className="button button--primary" data-testid="agent-prompt-start">
              Start
            </button>
          </form>
        )}
        {knowledge && <VaultDrawer agent={agent} onClose={() => setKnowledge(false)} />}
      </div>
      <div className="roster__side">
        <span className={`status status--${status.kind}`} data-testid="agent-status">
          {status.label}
        </span>
        <span
          className={`badge${model.scripted ? " badge--scripted" : ""}${model.outside ? " badge--external" : ""}`}
          title={model.outside ? "An agent from another system, taking part over MCP" : agent.model}
          data-testid={model.outside ? "agent-external-badge" : undefined}
        >
          {model.scripted ? "scripted" : model.outside ? `external · ${model.name.toUpperCase()}` : model.provider}
        </span>
        {waiting > 0 && (
          <span className="badge badge--waiting" data-testid="agent-waiting" title="Messages from people waiting for this agent">
            {waiting} waiting
          </span>
        )}
        <button
          type="button"
          className="link-button roster__knowledge"
          data-testid="agent-knowledge"
          aria-expanded={knowledge}
          onClick={() => setKnowledge(!knowledge)}
        >
          knowledge
        </button>
        {canAct &&
          !model.outside &&
          (status.run ? (
            <button type="button" className="link-button" data-testid="agent-cancel" onClick={cancel}>
              Stop
            </button>
          ) : (
            <span className="roster__actions">
              <button
                type="button"
                className="button button--small"
                data-testid="agent-start"
                disabled={status.kind === "unavailable"}
                onClick={() => void start()}
              >
                Start
              </button>
              <button
                type="button"
                className="link-button"
                data-testid="agent-prompt"
                disabled={status.kind === "unavailable"}
                onClick={() => setPrompting(!prompting)}
                aria-label={`Give ${agent.name} a prompt`}
              >
                …
              </button>
            </span>
          ))}
      </div>
    </li>
  );
}
