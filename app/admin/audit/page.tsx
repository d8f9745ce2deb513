import { AuditView } from "@/components/admin/audit-view";
import { listAdminActions } from "@/lib/admin/admin-actions";
import { getRuntime } from "@/lib/runtime";
import { adminPageStatus } from "../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminAuditPage() {
  if ((await adminPageStatus()) !== "admin") return null;
  const page = await listAdminActions((await getRuntime()).database.db, { limit: 50 });
  return <AuditView initialPage={{ actions: page.items, nextCursor: page.nextCursor }} />;
}
