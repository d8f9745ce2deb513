"use client";

import { useState } from "react";
import { useSubmit } from "@/components/ui/use-submit";

/**
 * Opens a room log file that someone shared ("Share as a file" on a room's timeline) as a
 * read-only replay room, which plays the original's moments exactly. A file that is not whole or
 * was changed is refused with the line at fault.
 */
export function ImportReplayForm() {
  const [file, setFile] = useState<File | null>(null);
  const { busy, error, submit } = useSubmit();
  return (
    <form
      className="card import-room"
      data-testid="import-replay-form"
      onSubmit={submit(
        async () => {
          if (!file) throw new Error("Choose a room log file first.");
          const response = await fetch("/api/rooms/replays", {
            method: "POST",
            headers: { "content-type": "application/x-ndjson" },
            body: await file.text(),
          });
          const body = await response.json().catch(() => null);
          if (!response.ok) throw new Error(body?.error?.message ?? `The server answered ${response.status}.`);
          window.location.assign(`/rooms/${body.room.id}`);
        },
        { keepBusy: true },
      )}
    >
      <h2>Replay a shared room</h2>
      <p className="muted">
        A room log file (<code>.parley.jsonl</code>) from any Parley's “Share as a file”: it opens as a read-only room whose timeline plays
        every moment of the original.
      </p>
      <input
        type="file"
        accept=".jsonl,.ndjson,application/x-ndjson"
        aria-label="Room log file"
        data-testid="replay-file"
        onChange={(event) => setFile(event.target.files?.[0] ?? null)}
      />
      <button type="submit" className="button button--primary" disabled={busy || !file} data-testid="replay-submit">
        {busy ? "Opening…" : "Open the replay"}
      </button>
      {error && (
        <p className="form-error" role="alert" data-testid="replay-error">
          {error}
        </p>
      )}
    </form>
  );
}
