"use client";

import type { AdminRoom } from "@/lib/rooms/list-rooms-for-admin";
import { queryString } from "./admin-api";
import { SearchPicker } from "./search-picker";

/**
 * Picks a room by its title: the rooms whose title holds what was typed, eight at a time from the
 * server (an instance may have thousands). Shows the chosen room with a way to clear it.
 */
export function RoomPicker({
  room,
  onChange,
  label = "Room",
}: {
  room: { id: string; title: string } | null;
  onChange: (room: { id: string; title: string } | null) => void;
  label?: string;
}) {
  return (
    <SearchPicker<{ rooms: AdminRoom[] }>
      chosen={room ? { value: room.id, label: room.title } : null}
      onChange={(choice) => onChange(choice ? { id: choice.value, title: choice.label } : null)}
      label={label}
      placeholder={`${label} — type a title`}
      testId="room"
      url={(text) => `/api/admin/rooms${queryString({ q: text || undefined, limit: 8 })}`}
      optionsOf={({ rooms }) => rooms.map((each) => ({ value: each.id, label: each.title, detail: each.template }))}
      empty="No room has that in its title."
    />
  );
}
