"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { LIMITS } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import type { AdminRoom } from "@/lib/rooms/list-rooms-for-admin";
import { apiWrite } from "@/components/room/api";
import { SETTING_GROUPS } from "./settings-fields";

/** Rooms with their settings: rename, delete and tune each one. */
export function AdminDashboard({ initialRooms }: { initialRooms: AdminRoom[] }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const { data: rooms } = useQuery({
    queryKey: ["admin-rooms"],
    queryFn: async () => {
      const response = await fetch("/api/admin/rooms");
      if (!response.ok) throw new Error("Could not load rooms");
      return ((await response.json()) as { rooms: AdminRoom[] }).rooms;
    },
    initialData: initialRooms,
    refetchInterval: 10_000,
  });
  const [message, setMessage] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["admin-rooms"] });

  return (
    <div className="admin-dashboard" data-testid="admin-dashboard">
      <div className="admin-dashboard__head">
        <h1>Rooms</h1>
        <button
          className="button"
          type="button"
          onClick={async () => {
            await apiWrite("/api/admin/session", "DELETE");
            router.refresh();
          }}
        >
          Sign out
        </button>
      </div>
      {message && (
        <p className="banner" role="status">
          {message}
        </p>
      )}
      {rooms.length === 0 && <p className="empty">No rooms yet.</p>}
      {rooms.map((room) => (
        <AdminRoomCard
          key={room.id}
          room={room}
          onChanged={(text) => {
            setMessage(text);
            void refresh();
          }}
        />
      ))}
    </div>
  );
}

function AdminRoomCard({ room, onChanged }: { room: AdminRoom; onChanged: (message: string) => void }) {
  const [title, setTitle] = useState(room.title);
  const [settings, setSettings] = useState<RoomSettings>(room.settings);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const patch = async (body: unknown, done: string) => {
    setError(null);
    try {
      await apiWrite(`/api/admin/rooms/${room.id}`, "PATCH", body);
      onChanged(done);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <section className="card admin-room" data-testid="admin-room" data-room-id={room.id}>
      <div className="admin-room__row">
        <form
          className="admin-room__rename"
          onSubmit={(event) => {
            event.preventDefault();
            void patch({ title }, `Renamed to “${title}”.`);
          }}
        >
          <input
            data-testid="admin-room-title"
            value={title}
            maxLength={LIMITS.roomTitle}
            onChange={(event) => setTitle(event.target.value)}
            aria-label="Room title"
          />
          <button className="button" type="submit" disabled={title.trim() === room.title || !title.trim()} data-testid="admin-rename">
            Rename
          </button>
        </form>
        <span className="muted">
          {room.watching} watching · {room.lastSeq} {room.lastSeq === 1 ? "event" : "events"}
        </span>
        <Link href={`/rooms/${room.id}`} className="button">
          Open
        </Link>
        <button className="button" type="button" onClick={() => setOpen(!open)} data-testid="admin-settings-toggle">
          {open ? "Hide settings" : "Settings"}
        </button>
        <button
          className="button button--danger"
          type="button"
          data-testid="admin-delete"
          onClick={async () => {
            if (!window.confirm(`Delete “${room.title}” and everything in it?`)) return;
            try {
              await apiWrite(`/api/admin/rooms/${room.id}`, "DELETE");
              onChanged(`Deleted “${room.title}”.`);
            } catch (failure) {
              setError((failure as Error).message);
            }
          }}
        >
          Delete
        </button>
      </div>
      {open && (
        <form
          className="settings"
          data-testid="admin-settings"
          onSubmit={(event) => {
            event.preventDefault();
            void patch({ settings }, "Settings saved.");
          }}
        >
          {SETTING_GROUPS.map((group) => (
            <fieldset key={group.title} className="settings__group">
              <legend>{group.title}</legend>
              {group.fields.map((field) => (
                <label key={field.key} className="settings__field">
                  <span>{field.label}</span>
                  {field.kind === "number" && (
                    <input
                      type="number"
                      name={field.key}
                      min={field.min}
                      max={field.max}
                      value={settings[field.key] as number}
                      onChange={(event) => setSettings({ ...settings, [field.key]: Number(event.target.value) })}
                    />
                  )}
                  {field.kind === "boolean" && (
                    <input
                      type="checkbox"
                      name={field.key}
                      checked={settings[field.key] as boolean}
                      onChange={(event) => setSettings({ ...settings, [field.key]: event.target.checked })}
                    />
                  )}
                  {field.kind === "choice" && (
                    <select
                      name={field.key}
                      value={settings[field.key] as string}
                      onChange={(event) => setSettings({ ...settings, [field.key]: event.target.value })}
                    >
                      {field.options.map((option) => (
                        <option key={option}>{option}</option>
                      ))}
                    </select>
                  )}
                  {field.kind === "text" && (
                    <textarea
                      name={field.key}
                      value={settings[field.key] as string}
                      onChange={(event) => setSettings({ ...settings, [field.key]: event.target.value })}
                    />
                  )}
                  {field.kind === "number" && field.unit && <span className="muted">{field.unit}</span>}
                </label>
              ))}
            </fieldset>
          ))}
          <button className="button button--primary" type="submit" data-testid="admin-save-settings">
            Save settings
          </button>
        </form>
      )}
      {error && <p className="form-error">{error}</p>}
    </section>
  );
}
