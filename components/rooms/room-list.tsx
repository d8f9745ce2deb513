"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { LocalTime } from "@/components/ui/local-time";
import type { RoomListItem } from "@/lib/rooms/list-rooms";

export interface RoomListEntry extends RoomListItem {
  watching: number;
}

function relativeTime(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/** All rooms, most recently active first; refreshed every few seconds for the watching counts. */
export function RoomList({ initial }: { initial: RoomListEntry[] }) {
  const { data } = useQuery({
    queryKey: ["rooms"],
    queryFn: async () => {
      const response = await fetch("/api/rooms");
      if (!response.ok) throw new Error("Could not load rooms");
      return ((await response.json()) as { rooms: RoomListEntry[] }).rooms;
    },
    initialData: initial,
    refetchInterval: 5000,
  });
  if (data.length === 0) return <p className="empty">No rooms yet. Start one above.</p>;
  return (
    <ul className="room-list" data-testid="room-list">
      {data.map((room) => (
        <li key={room.id} className="card room-card" data-testid="room-card">
          <Link href={`/rooms/${room.id}`} className="room-card__title">
            {room.title}
          </Link>
          <div className="room-card__meta">
            <span className="badge">{room.template.replace(/-/g, " ")}</span>
            <span className="room-card__agents">
              {room.agents.map((agent) => (
                <span key={agent.id} className="avatar" style={{ background: agent.color }} title={agent.name}>
                  {agent.name.slice(0, 1)}
                </span>
              ))}
            </span>
            <span data-testid="room-watching">{room.watching} watching</span>
            <span className="muted">
              active <LocalTime iso={room.lastActivityAt} format={relativeTime} />
            </span>
          </div>
        </li>
      ))}
    </ul>
  );
}
