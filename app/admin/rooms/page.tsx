import { RoomsView } from "@/components/admin/rooms-view";
import { listRoomsForAdmin } from "@/lib/rooms/list-rooms-for-admin";
import { getRuntime } from "@/lib/runtime";
import { adminPageStatus } from "../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminRoomsPage() {
  if ((await adminPageStatus()) !== "admin") return null;
  const page = await listRoomsForAdmin((await getRuntime()).database, { limit: 20 });
  return <RoomsView initialPage={{ rooms: page.items, nextCursor: page.nextCursor }} />;
}
