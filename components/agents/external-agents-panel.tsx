"use client";

import { useCallback, useEffect, useState } from "react";
import { apiRequest, apiWrite } from "@/components/room/api";

interface TokenInfo {
  id: string;
  agentName: string;
  expiresAt: string;
  lastUsedAt: string | null;
  state: "active" | "revoked" | "expired";
}

interface Setup {
  url: string;
  claudeCode: string;
  cursor: string;
  generic: string;
}

interface Invited {
  token: string | null;
  tokenInfo: TokenInfo;
  setup: Setup | null;
}

const EXPIRY_CHOICES = [
  { hours: 1, label: "1 hour" },
  { hours: 24, label: "1 day" },
  { hours: 24 * 7, label: "1 week" },
  { hours: 24 * 30, label: "30 days" },
];

/** A block of set-up text with a button that copies it. */
function Snippet({ title, text, testId }: { title: string; text: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="external__snippet">
      <div className="external__snippet-title">
        {title}
        <button
          type="button"
          className="link-button"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true));
          }}
        >
          {copied ? "copied" : "copy"}
        </button>
      </div>
      <pre data-testid={testId}>{text}</pre>
    </div>
  );
}

/**
 * Invites agents from other systems (Claude Code, Cursor, any MCP client) into the room and
 * lists their tokens to revoke: for people with a seat. The token is shown once, with the
 * set-up to paste into the agent's client.
 */
export function ExternalAgentsPanel({ roomId, onError }: { roomId: string; onError: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [hours, setHours] = useState(24);
  const [invited, setInvited] = useState<Invited | null>(null);
  const [tokens, setTokens] = useState<TokenInfo[]>([]);

  const refresh = useCallback(async () => {
    try {
      const answer = await apiRequest<{ tokens: TokenInfo[] }>(`/api/rooms/${roomId}/external-agents`, "GET");
      setTokens(answer.tokens);
    } catch (error) {
      onError((error as Error).message);
    }
  }, [roomId, onError]);

  useEffect(() => {
    if (open) void refresh();
  }, [open, refresh]);

  const invite = async () => {
    try {
      const answer = await apiWrite<Invited>(`/api/rooms/${roomId}/external-agents`, "POST", { name: name.trim(), expiresInHours: hours });
      setInvited(answer);
      setName("");
      await refresh();
    } catch (error) {
      onError((error as Error).message);
    }
  };

  const revoke = async (tokenId: string) => {
    try {
      await apiWrite(`/api/rooms/${roomId}/external-agents/${tokenId}`, "DELETE");
      await refresh();
    } catch (error) {
      onError((error as Error).message);
    }
  };

  if (!open) {
    return (
      <button
        type="button"
        className="button button--small external__open"
        data-testid="external-invite-open"
        onClick={() => setOpen(true)}
      >
        Invite an external agent
      </button>
    );
  }
  return (
    <div className="external" data-testid="external-panel">
      <div className="external__header">
        <strong>Agents from other systems</strong>
        <button type="button" className="link-button" onClick={() => setOpen(false)}>
          close
        </button>
      </div>
      <form
        className="external__form"
        onSubmit={(event) => {
          event.preventDefault();
          void invite();
        }}
      >
        <input
          data-testid="external-name"
          placeholder="Its name in the room, e.g. Claude Code"
          value={name}
          maxLength={40}
          onChange={(event) => setName(event.target.value)}
        />
        <select value={hours} onChange={(event) => setHours(Number(event.target.value))} aria-label="Token lasts">
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.hours} value={choice.hours}>
              {choice.label}
            </option>
          ))}
        </select>
        <button
          type="submit"
          className="button button--small button--primary"
          data-testid="external-invite"
          disabled={name.trim().length < 2}
        >
          Invite
        </button>
      </form>
      {invited &&
        (invited.setup && invited.token ? (
          <div className="external__setup" data-testid="external-setup">
            <p>
              {invited.tokenInfo.agentName} can join until {new Date(invited.tokenInfo.expiresAt).toLocaleString()}. The token is shown only
              now: paste it into the agent's client.
            </p>
            <Snippet title="Claude Code" text={invited.setup.claudeCode} testId="external-setup-claude" />
            <Snippet title="Cursor (.cursor/mcp.json)" text={invited.setup.cursor} testId="external-setup-cursor" />
            <Snippet title="Any MCP client" text={invited.setup.generic} testId="external-setup-generic" />
          </div>
        ) : (
          <p className="external__problem">
            The invitation was made but its token did not reach this page: revoke {invited.tokenInfo.agentName}'s token below and invite
            again.
          </p>
        ))}
      {tokens.length > 0 && (
        <ul className="external__tokens" data-testid="external-tokens">
          {tokens.map((token) => (
            <li key={token.id} data-state={token.state}>
              <span>
                {token.agentName} · {token.state === "active" ? `until ${new Date(token.expiresAt).toLocaleString()}` : token.state}
                {token.lastUsedAt ? ` · last call ${new Date(token.lastUsedAt).toLocaleTimeString()}` : " · not used yet"}
              </span>
              {token.state === "active" && (
                <button type="button" className="link-button" data-testid="external-revoke" onClick={() => void revoke(token.id)}>
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
