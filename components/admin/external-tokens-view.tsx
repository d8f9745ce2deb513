"use client";

import { useQueryClient } from "@tanstack/react-query";
import { apiWrite } from "@/components/room/api";
import { useAdminQuery } from "./admin-api";

interface TokenRow {
  id: string;
  agentName: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  state: "active" | "revoked" | "expired";
}

/** A room's outside agents' tokens on the dashboard: who holds one, until when, when it was last used; revoke any. */
export function ExternalTokensView({
  roomId,
  onDone,
  onFailed,
}: {
  roomId: string;
  onDone: (text: string) => void;
  onFailed: (failure: unknown) => void;
}) {
  const queryClient = useQueryClient();
  const { data } = useAdminQuery<{ tokens: TokenRow[] }>(`/api/rooms/${roomId}/external-agents`, { refreshMs: 10_000 });
  const tokens = data?.tokens ?? [];
  const revoke = async (token: TokenRow) => {
    try {
      await apiWrite(`/api/rooms/${roomId}/external-agents/${token.id}`, "DELETE");
      onDone(`Revoked ${token.agentName}'s token.`);
      await queryClient.invalidateQueries({ queryKey: ["admin"] });
    } catch (failure) {
      onFailed(failure);
    }
  };
  return (
    <section data-testid="admin-external-tokens">
      <h2 className="admin-section-title">Outside agents</h2>
      {tokens.length === 0 ? (
        <p className="muted">No agent from another system has been invited to this room.</p>
      ) : (
        <table className="admin-table">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Invited by</th>
              <th>Expires</th>
              <th>Last call</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => (
              <tr key={token.id} data-state={token.state}>
                <td>{token.agentName}</td>
                <td>{token.createdBy === "admin" ? "an admin" : "a participant"}</td>
                <td>{new Date(token.expiresAt).toLocaleString()}</td>
                <td>{token.lastUsedAt ? new Date(token.lastUsedAt).toLocaleString() : "never"}</td>
                <td>{token.state}</td>
                <td>
                  {token.state === "active" && (
                    <button type="button" className="link-button" data-testid="admin-external-revoke" onClick={() => void revoke(token)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
