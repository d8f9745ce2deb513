"use client";

import { useState } from "react";
import type { AdminRoom } from "@/lib/rooms/list-rooms-for-admin";
import { queryString, useAdminQuery } from "./admin-api";

/**
 * Picks a room by its title: the rooms whose title holds what was typed, ten at a time from the
 * server (an instance may have thousands). Shows the chosen room with a way to clear it.
 */
export function RoomPicker({ room, onChange, label = "Room" }: { room: { id: string; title: string } | null; onChange: (room: { id: string; title: string } | null) => void; label?: string }) {
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const { data } = useAdminQuery<{ rooms: AdminRoom[] }>(`/api/admin/rooms${queryString({ q: text.trim() || undefined, limit: 8 })}`, { enabled: open });
  if (room) {
    return (
      <span className="admin-chip" data-testid="room-filter">
        {label}: {room.title}
        <button type="button" className="link-button" aria-label={`Any ${label.toLowerCase()}`} onClick={() => onChange(null)}>
          ×
        </button>
      </span>
    );
  }
  return (
    <div className="admin-picker" onBlur={(event) => !event.currentTarget.contains(event.relatedTarget) && setOpen(false)}>
      <input
        value={text}
        placeholder={`${label} — type a title`}
        aria-label={label}
        data-testid="room-picker"
        onFocus={() => setOpen(true)}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
      />
      {open && data && (
        <ul className="admin-picker__list" role="listbox">
          {data.rooms.length === 0 && <li className="muted">No room has that in its title.</li>}
          {data.rooms.map((each) => (
            <li key={each.id}>
              <button
                type="button"
                role="option"
                aria-selected={false}
                onClick={() => {
                  onChange({ id: each.id, title: each.title });
                  setText("");
                  setOpen(false);
                }}
              >
                {each.title} <span className="muted">· {each.template}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
