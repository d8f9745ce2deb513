"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import { useSubmit } from "@/components/ui/use-submit";

export function AdminSignIn({ expired }: { expired: boolean }) {
  const router = useRouter();
  const [token, setToken] = useState("");
  const { busy, error, submit } = useSubmit(expired ? "Your admin session is no longer valid." : null);
  return (
    <form
      className="card admin-sign-in"
      data-testid="admin-sign-in"
      onSubmit={submit(async () => {
        await apiWrite("/api/admin/session", "POST", { token });
        router.refresh();
      })}
    >
      <h1>Admin sign-in</h1>
      <p className="muted">
        Use the admin token printed in the server console when Parley started (or the value of <code>ADMIN_TOKEN</code>).
      </p>
      <input
        type="password"
        data-testid="admin-token-input"
        value={token}
        onChange={(event) => setToken(event.target.value)}
        placeholder="Admin token"
        aria-label="Admin token"
        autoComplete="current-password"
      />
      <button className="button button--primary" type="submit" disabled={busy || !token} data-testid="admin-sign-in-submit">
        Sign in
      </button>
      {error && <p className="form-error">{error}</p>}
    </form>
  );
}
