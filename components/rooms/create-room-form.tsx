"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import { useSubmit } from "@/components/ui/use-submit";
import { LIMITS } from "@/lib/protocol";
import { readableInk } from "@/components/ui/readable-color";

interface TemplateOption {
  id: string;
  name: string;
  summary: string;
  agents: { name: string; color: string }[];
}

export function CreateRoomForm({ templates }: { templates: TemplateOption[] }) {
  const router = useRouter();
  const [title, setTitle] = useState("");
  const [template, setTemplate] = useState(templates[0]?.id ?? "");
  const { busy, error, submit } = useSubmit();
  const chosen = templates.find((candidate) => candidate.id === template);

  return (
    <form
      className="card create-room"
      data-testid="create-room-form"
      onSubmit={submit(
        async () => {
          const { room } = await apiWrite<{ room: { id: string } }>("/api/rooms", "POST", { title, template });
          router.push(`/rooms/${room.id}`);
        },
        { keepBusy: true },
      )}
    >
      <h2>Start a room</h2>
      <div className="create-room__fields">
        <input
          data-testid="room-title-input"
          placeholder="What should the agents make?"
          value={title}
          maxLength={LIMITS.roomTitle}
          onChange={(event) => setTitle(event.target.value)}
          aria-label="Room title"
        />
        <select value={template} onChange={(event) => setTemplate(event.target.value)} aria-label="Template">
          {templates.map((option) => (
            <option key={option.id} value={option.id}>
              {option.name}
            </option>
          ))}
        </select>
        <button className="button button--primary" type="submit" disabled={busy || !title.trim()} data-testid="create-room">
          Create room
        </button>
      </div>
      {chosen && (
        <p className="create-room__summary">
          {chosen.summary}{" "}
          {chosen.agents.map((agent) => (
            <span key={agent.name} className="chip" style={{ borderColor: agent.color, color: readableInk(agent.color) }}>
              {agent.name}
            </span>
          ))}
        </p>
      )}
      {error && <p className="form-error">{error}</p>}
    </form>
  );
}
