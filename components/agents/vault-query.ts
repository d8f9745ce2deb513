import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import { apiRequest } from "@/components/room/api";
import type { VaultDto } from "@/lib/protocol";

/** How often an open vault drawer reads the vault again for what other rooms added. */
export const VAULT_REFRESH_MS = 15_000;

/**
 * An agent's vault as its drawer reads it. `version` is the room's count of the agent's changes
 * seen live (`vaultVersions`: its knowledge updated or cleared, a run of it finished with its task
 * recorded): each one reads the vault again. Rooms elsewhere with the same identity add to the
 * same vault and their events never reach this page, so the drawer also reads it each time it
 * opens, and every `VAULT_REFRESH_MS` while it stays open (and visible).
 */
export function vaultQuery(roomId: string, agentId: string, version: number) {
  return queryOptions({
    queryKey: ["vault", roomId, agentId, version],
    queryFn: ({ signal }): Promise<VaultDto> =>
      apiRequest<{ vault: VaultDto }>(`/api/rooms/${roomId}/agents/${agentId}/vault`, "GET", undefined, { signal }).then(
        (answer) => answer.vault,
      ),
    staleTime: 0,
    refetchInterval: VAULT_REFRESH_MS,
    // What the drawer showed stays while the next version is read.
    placeholderData: keepPreviousData,
  });
}
