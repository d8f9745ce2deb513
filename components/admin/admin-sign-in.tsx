"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";

export function AdminSignIn({ expired }: { expired: boolean }) {
  const router = useRouter();
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(expired ? "Your admin session is no longer valid." : null);
  return (
    <form
      className="card admin-sign-in"
      data-testid="admin-sign-in"
      onSubmit={async (event) => {
        event.preventDefault();
        setError(null);
        try {
          await apiWrite("/api/admin/session", "POST", { token });
          router.refresh();
        } catch (failure) {
          setError((failure as Error).message);
        }
      }}
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
      <button className="button button--primary" type="submit" disabled={!token} data-testid="admin-sign-in-submit">
        Sign in
      </button>
      {error && <p className="form-error">{error}</p>}
    </form>
  );
}
