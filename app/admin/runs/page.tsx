import { type RunFilters, RunsView } from "@/components/admin/runs-view";
import { listAdminRuns } from "@/lib/admin/admin-runs";
import { runStatusSchema } from "@/lib/protocol";
import { getRuntime } from "@/lib/runtime";
import { type SearchParams, adminPageStatus, searchParam } from "../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminRunsPage({ searchParams }: { searchParams: SearchParams }) {
  if ((await adminPageStatus()) !== "admin") return null;
  const search = await searchParams;
  const status = runStatusSchema.safeParse(searchParam(search, "status"));
  const room = searchParam(search, "room");
  const filters: RunFilters = {
    status: status.success ? status.data : null,
    room: room ? { id: room, title: searchParam(search, "room_title") ?? room } : null,
    agent: searchParam(search, "agent"),
  };
  const page = await listAdminRuns((await getRuntime()).database.db, {
    status: filters.status ?? undefined,
    room: filters.room?.id,
    agent: filters.agent ?? undefined,
    limit: 25,
  });
  return <RunsView initialFilters={filters} initialPage={{ runs: page.items, nextCursor: page.nextCursor }} />;
}
