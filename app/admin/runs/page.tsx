import { type RunFilters, RunsView } from "@/components/admin/runs-view";
import { listAdminRuns } from "@/lib/admin/admin-runs";
import { AppError } from "@/lib/errors";
import { runStatusSchema } from "@/lib/protocol";
import { getRuntime } from "@/lib/runtime";
import { type SearchParams, adminPageStatus, searchParam } from "../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminRunsPage({ searchParams }: { searchParams: SearchParams }) {
  if ((await adminPageStatus()) !== "admin") return null;
  const search = await searchParams;
  const status = runStatusSchema.safeParse(searchParam(search, "status"));
  const room = searchParam(search, "room");
  const agent = searchParam(search, "agent");
  const filters: RunFilters = {
    status: status.success ? status.data : null,
    room: room ? { id: room, title: searchParam(search, "room_title") ?? room } : null,
    agent: agent ? { value: agent, label: searchParam(search, "agent_label") ?? agent } : null,
  };
  // An agent the link names that is gone (its room deleted, say) shows no runs rather than an error page.
  const page = await listAdminRuns((await getRuntime()).database.db, {
    status: filters.status ?? undefined,
    room: filters.room?.id,
    agent: filters.agent?.value,
    limit: 25,
  }).catch((error: unknown) => {
    if (error instanceof AppError && error.status === 400) return { items: [], nextCursor: null };
    throw error;
  });
  return <RunsView initialFilters={filters} initialPage={{ runs: page.items, nextCursor: page.nextCursor }} />;
}
