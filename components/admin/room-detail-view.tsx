"use client";

import { useQueryClient } from "@tanstack/react-query";
import { ExternalTokensView } from "./external-tokens-view";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import { useSubmit } from "@/components/ui/use-submit";
import type { Allowance } from "@/lib/limits/budget";
import { LIMITS } from "@/lib/protocol";
import type { AdminAgent, AdminRoomDetail } from "@/lib/rooms/list-rooms-for-admin";
import { useAdminQuery } from "./admin-api";
import { formatDollars, formatTokens } from "./admin-format";
import { EventLog } from "./event-log";
import { RoomSettingsForm } from "./room-settings-form";
import { Ago, Clock } from "./time-text";

function AgentEditor({ roomId, agent, onSaved }: { roomId: string; agent: AdminAgent; onSaved: (message: string) => void }) {
  const [model, setModel] = useState(agent.model);
  const [systemPrompt, setSystemPrompt] = useState(agent.systemPrompt);
  const { busy: saving, error, submit } = useSubmit();
  const changed = model.trim() !== agent.model || systemPrompt !== agent.systemPrompt;
  return (
    <form
      className="admin-agent-editor"
      data-testid="agent-editor"
      data-agent-id={agent.id}
      data-agent-name={agent.name}
      onSubmit={submit(async () => {
        const body = {
          ...(model.trim() !== agent.model ? { model: model.trim() } : {}),
          ...(systemPrompt !== agent.systemPrompt ? { systemPrompt } : {}),
        };
        const { agent: saved } = await apiWrite<{ agent: { model: string; unavailableReason: string | null } }>(
          `/api/admin/rooms/${roomId}/agents/${agent.id}`,
          "PATCH",
          body,
        );
        onSaved(
          saved.unavailableReason
            ? `${agent.name} now uses ${saved.model}, which cannot run here yet: ${saved.unavailableReason}`
            : `Saved ${agent.name}.`,
        );
      })}
    >
      <div className="admin-agent-editor__head">
        <span className="admin-dot admin-dot--large" style={{ background: agent.color }} />
        <strong>{agent.name}</strong>
        <span className="muted">{agent.role}</span>
        <span className={`admin-provider${agent.unavailableReason ? " admin-provider--off" : ""}`} data-testid="agent-provider">
          {agent.unavailableReason ? `cannot run: ${agent.unavailableReason}` : "provider configured"}
        </span>
      </div>
      <label className="admin-field">
        <span>Model</span>
        <input
          value={model}
          onChange={(event) => setModel(event.target.value)}
          maxLength={200}
          aria-label={`${agent.name}'s model`}
          data-testid="agent-model"
          placeholder="provider:model"
        />
      </label>
      <label className="admin-field">
        <span>System prompt</span>
        <textarea
          value={systemPrompt}
          onChange={(event) => setSystemPrompt(event.target.value)}
          maxLength={LIMITS.systemPrompt}
          aria-label={`${agent.name}'s system prompt`}
          rows={3}
        />
      </label>
      <div className="admin-agent-editor__foot">
        <span className="muted">
          {agent.identity}
          {agent.endpoint && ` · endpoint ${agent.endpoint}`}
          {agent.apiKeyEnv && ` · key from ${agent.apiKeyEnv}`}
        </span>
        <button
          className="button button--primary button--small"
          type="submit"
          disabled={!changed || saving || !model.trim()}
          data-testid="agent-save"
        >
          Save
        </button>
      </div>
      {error && <p className="form-error">{error}</p>}
    </form>
  );
}

function allowanceText(allowance: Allowance, format: (value: number) => string, unit: string): string {
  return allowance.limit === null
    ? `${format(allowance.used)}${unit} (no daily budget)`
    : `${format(allowance.used)} of ${format(allowance.limit)}${unit}`;
}

/**
 * One room for the operator: rename, delete, open it; what it spent against its budgets; each
 * agent's model (and whether its provider is configured) and system prompt; every setting; and
 * its event log.
 */
export function RoomDetailView({ initial }: { initial: AdminRoomDetail }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const { data } = useAdminQuery<{ room: AdminRoomDetail }>(`/api/admin/rooms/${initial.id}`, {
    initialData: { room: initial },
    refreshMs: 5000,
  });
  const room = data?.room ?? initial;
  const [title, setTitle] = useState(room.title);
  const [message, setMessage] = useState<{ text: string; error?: boolean } | null>(null);
  const done = (text: string) => {
    setMessage({ text });
    void queryClient.invalidateQueries({ queryKey: ["admin"] });
  };
  const failed = (failure: unknown) => setMessage({ text: (failure as Error).message, error: true });

  return (
    <div className="admin-page" data-testid="admin-room-detail">
      <p className="admin-crumbs">
        <Link href="/admin/rooms">Rooms</Link> › {room.title}
      </p>
      <div className="admin-page__head">
        <form
          className="admin-rename"
          onSubmit={async (event) => {
            event.preventDefault();
            try {
              await apiWrite(`/api/admin/rooms/${room.id}`, "PATCH", { title });
              done(`Renamed to “${title.trim()}”.`);
            } catch (failure) {
              failed(failure);
            }
          }}
        >
          <input
            value={title}
            maxLength={LIMITS.roomTitle}
            onChange={(event) => setTitle(event.target.value)}
            aria-label="Room title"
            data-testid="admin-room-title"
          />
          <button className="button" type="submit" disabled={!title.trim() || title.trim() === room.title} data-testid="admin-rename">
            Rename
          </button>
        </form>
        <Link className="button" href={`/rooms/${room.id}`}>
          Open the room
        </Link>
        <button
          className="button button--danger"
          type="button"
          data-testid="admin-delete"
          onClick={async () => {
            if (!window.confirm(`Delete “${room.title}” and everything in it?`)) return;
            try {
              await apiWrite(`/api/admin/rooms/${room.id}`, "DELETE");
              router.push("/admin/rooms");
            } catch (failure) {
              failed(failure);
            }
          }}
        >
          Delete
        </button>
      </div>
      {message && (
        <p className={`banner${message.error ? " banner--danger" : ""}`} role="status">
          {message.text}
        </p>
      )}
      <dl className="admin-facts">
        <div>
          <dt>Template</dt>
          <dd>{room.template}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Clock iso={room.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Last activity</dt>
          <dd>
            <Ago iso={room.lastActivityAt} />
          </dd>
        </div>
        <div>
          <dt>Watching</dt>
          <dd>{room.watching}</dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd>{room.lastSeq.toLocaleString("en-US")}</dd>
        </div>
        <div>
          <dt>Runs</dt>
          <dd>
            <Link href={`/admin/runs?room=${room.id}&room_title=${encodeURIComponent(room.title)}`}>
              {room.runs.running} running · {room.runs.queued} queued · {room.runs.succeeded} finished · {room.runs.failed} failed ·{" "}
              {room.runs.cancelled} cancelled
            </Link>
          </dd>
        </div>
        <div>
          <dt>Spent by its runs</dt>
          <dd>
            {formatTokens(room.runs.inputTokens + room.runs.outputTokens)} tokens · {formatDollars(room.runs.costUsd)}
          </dd>
        </div>
        <div>
          <dt>Today (UTC)</dt>
          <dd data-testid="room-budget">
            {allowanceText(room.spend.daily.tokens, formatTokens, " tokens")} · {allowanceText(room.spend.daily.costUsd, formatDollars, "")}
          </dd>
        </div>
        <div>
          <dt>This week</dt>
          <dd>
            {formatTokens(room.spend.week.inputTokens + room.spend.week.outputTokens)} tokens · {formatDollars(room.spend.week.costUsd)}
          </dd>
        </div>
      </dl>

      <section>
        <h2 className="admin-section-title">Agents</h2>
        <div className="admin-agent-grid">
          {room.agents.map((agent) => (
            <AgentEditor key={`${agent.id}-${agent.model}-${agent.systemPrompt.length}`} roomId={room.id} agent={agent} onSaved={done} />
          ))}
        </div>
      </section>

      <ExternalTokensView roomId={room.id} onDone={done} onFailed={failed} />

      <details className="card admin-settings-card">
        <summary>
          <h2 className="admin-section-title admin-section-title--inline">Settings</h2>{" "}
          <span className="muted">runs, board, scheduler, budgets, broadcasts</span>
        </summary>
        <RoomSettingsForm
          initial={room.settings}
          onSave={async (settings) => {
            try {
              await apiWrite(`/api/admin/rooms/${room.id}`, "PATCH", { settings });
              done("Settings saved.");
            } catch (failure) {
              failed(failure);
            }
          }}
        />
      </details>

      <EventLog roomId={room.id} agents={room.agents} />
    </div>
  );
}
