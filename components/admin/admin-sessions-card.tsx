"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import type { AdminSessionDto } from "@/lib/auth/admin-sessions";
import { useAdminQuery } from "./admin-api";
import { formatAgo } from "./admin-format";

/**
 * Who is signed in to the dashboard: each session with where and when it began, when it was last
 * used and when it ends, and one button that ends them all (this one too, so the page asks for the
 * token again). Ending them is the answer to a token or a cookie that may have leaked.
 */
export function AdminSessionsCard({ now }: { now: number }) {
  const router = useRouter();
  const { data } = useAdminQuery<{ sessions: AdminSessionDto[] }>("/api/admin/sessions", { refreshMs: 10_000 });
  const [ending, setEnding] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const sessions = data?.sessions ?? [];
  return (
    <section className="card" data-testid="instance-sessions">
      <h2 className="admin-section-title">Admin sessions</h2>
      <p className="muted">Each sign-in lasts until it is signed out or expires; changing the admin token ends them all.</p>
      <table className="admin-small-table">
        <thead>
          <tr>
            <th>Signed in</th>
            <th>From</th>
            <th>Last used</th>
            <th>Ends</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.label} data-testid="instance-session" data-current={session.current}>
              <td>
                {formatAgo(session.createdAt, now)}
                {session.current && <span className="muted"> (this one)</span>}
              </td>
              <td>
                <code>{session.clientAddress || "—"}</code>{" "}
                <span className="muted admin-session__agent" title={session.userAgent}>
                  {session.userAgent}
                </span>
              </td>
              <td>{formatAgo(session.lastSeenAt, now)}</td>
              <td>{formatAgo(session.expiresAt, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button
        className="button admin-sessions__end"
        type="button"
        disabled={ending}
        data-testid="end-all-sessions"
        onClick={async () => {
          setEnding(true);
          setError(null);
          try {
            await apiWrite("/api/admin/sessions", "DELETE");
            router.refresh();
          } catch (failure) {
            setError((failure as Error).message);
            setEnding(false);
          }
        }}
      >
        End every session
      </button>
      {error && <p className="form-error">{error}</p>}
    </section>
  );
}
