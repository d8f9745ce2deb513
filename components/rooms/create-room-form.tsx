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

/** What each template calls the task it starts from. */
const TASK_PROMPTS: Record<string, { label: string; placeholder: string }> = {
  "creative-canvas": { label: "What should the team make?", placeholder: "A lullaby for a lighthouse keeper" },
  "build-review": {
    label: "What should the team build?",
    placeholder: "Write a Python function word_count(s) that returns how many words s has",
  },
  brainstorm: { label: "Which problem should the team brainstorm?", placeholder: "Too much food goes to waste in our office cafeteria" },
};

/**
 * Creating a room: what its team should work on (the title is made from it unless given), the
 * template, and a name to take a seat under — the creator then owns the room, and its team may
 * start at once. Who may create rooms here is said before anyone presses the button.
 */
export function CreateRoomForm({ templates, policy }: { templates: TemplateOption[]; policy: { allowed: boolean; text: string } }) {
  const router = useRouter();
  const [task, setTask] = useState("");
  const [title, setTitle] = useState("");
  const [name, setName] = useState("");
  const [startNow, setStartNow] = useState(true);
  const [template, setTemplate] = useState(templates[0]?.id ?? "");
  const { busy, error, submit } = useSubmit();
  const chosen = templates.find((candidate) => candidate.id === template);
  const wording = TASK_PROMPTS[template] ?? { label: "What should the team work on?", placeholder: "" };
  const ready = policy.allowed && task.trim().length >= 3;

  return (
    <form
      className="card create-room"
      data-testid="create-room-form"
      onSubmit={submit(
        async () => {
          const body = {
            task,
            template,
            ...(title.trim() ? { title } : {}),
            ...(name.trim() ? { displayName: name, start: startNow } : {}),
          };
          const { room } = await apiWrite<{ room: { id: string } }>("/api/rooms", "POST", body);
          router.push(`/rooms/${room.id}`);
        },
        { keepBusy: true },
      )}
    >
      <h2>Start a room</h2>
      <p className="create-room__policy muted" data-testid="room-creation-policy">
        {policy.text}
      </p>
      <label className="create-room__task">
        <span>{wording.label}</span>
        <textarea
          data-testid="room-task-input"
          placeholder={wording.placeholder}
          value={task}
          maxLength={1000}
          rows={2}
          onChange={(event) => setTask(event.target.value)}
        />
      </label>
      <div className="create-room__fields">
        <select value={template} onChange={(event) => setTemplate(event.target.value)} aria-label="Template" data-testid="room-template">
          {templates.map((option) => (
            <option key={option.id} value={option.id}>
              {option.name}
            </option>
          ))}
        </select>
        <input
          data-testid="room-title-input"
          placeholder="Title (optional: made from the task)"
          value={title}
          maxLength={LIMITS.roomTitle}
          onChange={(event) => setTitle(event.target.value)}
          aria-label="Room title"
        />
        <input
          data-testid="room-creator-name"
          placeholder="Your name (optional: take a seat)"
          value={name}
          maxLength={LIMITS.displayName}
          onChange={(event) => setName(event.target.value)}
          aria-label="Your name"
        />
        <button className="button button--primary" type="submit" disabled={busy || !ready} data-testid="create-room">
          Create room
        </button>
      </div>
      {name.trim() && (
        <label className="create-room__start">
          <input type="checkbox" data-testid="room-start-now" checked={startNow} onChange={(event) => setStartNow(event.target.checked)} />{" "}
          Start the team as soon as the room is made
        </label>
      )}
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
