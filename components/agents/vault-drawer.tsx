"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { AgentDto } from "@/lib/protocol";
import { vaultQuery } from "./vault-query";
import { readableInk } from "@/components/ui/readable-color";

/**
 * What an agent has learned across rooms, read-only: its areas, insights and recent tasks. Read
 * again as it changes (see `vaultQuery`).
 */
export function VaultDrawer({ agent, onClose }: { agent: AgentDto; onClose: () => void }) {
  const roomId = useRoom((state) => state.room.id);
  const version = useRoom((state) => state.vaultVersions[agent.id] ?? 0);
  const admin = useRoom((state) => state.admin);
  const { data: vault, error: unread } = useQuery(vaultQuery(roomId, agent.id, version));
  const [refused, setRefused] = useState<string | null>(null);
  const error = refused ?? (vault ? null : (unread?.message ?? null));

  return (
    <section className="vault" data-testid="vault-drawer" aria-label={`${agent.name}'s knowledge`}>
      <div className="vault__head">
        <strong style={{ color: readableInk(agent.color) }}>{agent.name}</strong> knows
        {admin && (
          <button
            type="button"
            className="link-button vault__clear"
            data-testid="vault-clear"
            onClick={() => {
              if (!window.confirm(`Clear everything ${agent.name} has learned, in every room?`)) return;
              apiRequest(`/api/admin/rooms/${roomId}/agents/${agent.id}/vault`, "DELETE").catch((problem: Error) =>
                setRefused(problem.message),
              );
            }}
          >
            clear
          </button>
        )}
        <button type="button" className="link-button" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {error && <p className="vault__empty">{error}</p>}
      {!vault && !error && <p className="vault__empty">Reading…</p>}
      {vault && (
        <>
          {vault.areas.length === 0 && vault.insights.length === 0 && vault.tasks.length === 0 && (
            <p className="vault__empty">Nothing yet: what {agent.name} learns in any room shows here.</p>
          )}
          {vault.areas.length > 0 && (
            <ul className="vault__areas">
              {vault.areas.map((area) => (
                <li key={area.area}>
                  <span className="vault__area">{area.area}</span>
                  <span className="vault__bar">
                    <span style={{ width: `${area.level}%`, background: agent.color }} />
                  </span>
                  <span className="vault__level">{area.level}</span>
                </li>
              ))}
            </ul>
          )}
          {vault.insights.length > 0 && (
            <ul className="vault__insights" data-testid="vault-insights">
              {vault.insights.slice(0, 10).map((insight) => (
                <li key={insight.id}>{insight.text}</li>
              ))}
            </ul>
          )}
          {vault.tasks.length > 0 && (
            <ul className="vault__tasks">
              {vault.tasks.slice(0, 5).map((task) => (
                <li key={task.id}>
                  <span className="vault__outcome">{task.outcome}</span> {task.asked}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
