import { WorkflowsView } from "@/components/admin/workflows-view";
import { type SearchParams, adminPageStatus, searchParam } from "../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminWorkflowsPage({ searchParams }: { searchParams: SearchParams }) {
  if ((await adminPageStatus()) !== "admin") return null;
  const search = await searchParams;
  const room = searchParam(search, "room");
  return (
    <WorkflowsView
      initialId={searchParam(search, "id")}
      initialRoom={room ? { id: room, title: searchParam(search, "room_title") ?? room } : null}
    />
  );
}
