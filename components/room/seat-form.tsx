"use client";

import { useState } from "react";
import { useSubmit } from "@/components/ui/use-submit";
import { LIMITS } from "@/lib/protocol";
import { apiWrite } from "./api";
import { useRoom, useRoomStoreApi } from "./room-store";

/** Lets a spectator take a seat with a display name; shows the name once seated. */
export function SeatForm() {
  const seat = useRoom((state) => state.seat);
  const roomId = useRoom((state) => state.room.id);
  const store = useRoomStoreApi();
  const [name, setName] = useState("");
  const { busy, error, submit } = useSubmit();

  if (seat) {
    return (
      <span className="seat" data-testid="seat-name">
        <span className="seat__dot" /> {seat.displayName}
      </span>
    );
  }
  return (
    <form
      className="seat-form"
      data-testid="take-seat-form"
      onSubmit={submit(async () => {
        const { seat: taken } = await apiWrite<{ seat: { id: string; displayName: string } }>(`/api/rooms/${roomId}/seat`, "POST", {
          displayName: name,
        });
        store.getState().setSeat(taken);
      })}
    >
      <input
        data-testid="display-name-input"
        id="display-name-input"
        placeholder="Your name"
        value={name}
        maxLength={LIMITS.displayName}
        onChange={(event) => setName(event.target.value)}
        aria-label="Display name"
      />
      <button type="submit" className="button button--primary" disabled={busy || !name.trim()} data-testid="take-seat">
        Take a seat
      </button>
      {error && <span className="form-error">{error}</span>}
    </form>
  );
}
