"use client";

import { useRoom } from "@/components/room/room-store";

export function modelLabel(model: string): { provider: string; name: string; scripted: boolean } {
  const [provider = "", ...rest] = model.split(":");
  return { provider, name: rest.join(":"), scripted: provider === "script" };
}

/** The room's agents: who they are, what model drives them and what they are doing now. */
export function AgentRoster() {
  const agents = useRoom((state) => state.agents);
  return (
    <section className="panel roster" aria-label="Agents">
      <h2 className="panel__title">Agents</h2>
      <ul className="roster__list" data-testid="agent-roster">
        {agents.map((agent) => {
          const model = modelLabel(agent.model);
          return (
            <li key={agent.id} className="roster__agent" data-testid={`agent-${agent.persona}`}>
              <span className="roster__avatar" style={{ background: agent.color }}>
                {agent.name.slice(0, 1)}
              </span>
              <div className="roster__who">
                <div className="roster__name">
                  {agent.name} <span className="roster__role">{agent.role}</span>
                </div>
                <div className="roster__description">{agent.description}</div>
              </div>
              <div className="roster__side">
                <span className="status status--idle" data-testid="agent-status">
                  idle
                </span>
                <span className={`badge${model.scripted ? " badge--scripted" : ""}`} title={agent.model}>
                  {model.scripted ? "scripted" : model.provider}
                </span>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
