"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import type { AdminRunRow } from "@/lib/admin/admin-runs";
import type { RunDto } from "@/lib/protocol";

/** Stop a queued or running run; queue a failed one again. What happened is said beside the buttons. */
export function RunActions({ run, compact = false }: { run: Pick<AdminRunRow, "id" | "status" | "cancelRequested">; compact?: boolean }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; retryId?: string; error?: boolean } | null>(null);
  const act = async (work: () => Promise<{ text: string; retryId?: string }>) => {
    setBusy(true);
    setMessage(null);
    try {
      setMessage(await work());
      await queryClient.invalidateQueries({ queryKey: ["admin"] });
    } catch (failure) {
      setMessage({ text: (failure as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };
  const active = run.status === "queued" || run.status === "running";
  const size = compact ? " button--small" : "";
  return (
    <span className="admin-run-actions">
      {active && (
        <button
          type="button"
          className={`button button--danger${size}`}
          data-testid="run-cancel"
          disabled={busy || run.cancelRequested}
          onClick={() =>
            act(async () => {
              const { outcome } = await apiWrite<{ outcome: "cancelled" | "stopping" }>(`/api/admin/runs/${run.id}/cancel`, "POST");
              return { text: outcome === "cancelled" ? "Cancelled." : "Stopping at its next step…" };
            })
          }
        >
          {run.cancelRequested ? "Stopping…" : "Cancel"}
        </button>
      )}
      {run.status === "failed" && (
        <button
          type="button"
          className={`button${size}`}
          data-testid="run-retry"
          disabled={busy}
          onClick={() =>
            act(async () => {
              const { run: retry } = await apiWrite<{ run: RunDto }>(`/api/admin/runs/${run.id}/retry`, "POST");
              return { text: "Queued again: ", retryId: retry.id };
            })
          }
        >
          Retry
        </button>
      )}
      {message && (
        <span className={message.error ? "form-error" : "muted"} role="status">
          {message.text}
          {message.retryId && <Link href={`/admin/runs/${message.retryId}`}>the new run</Link>}
        </span>
      )}
    </span>
  );
}
