import { OverviewView } from "@/components/admin/overview-view";
import { readOverview } from "@/lib/admin/read-overview";
import { getRuntime } from "@/lib/runtime";
import { adminPageStatus } from "./admin-page";

export const dynamic = "force-dynamic";

export default async function AdminOverviewPage() {
  if ((await adminPageStatus()) !== "admin") return null;
  const overview = await readOverview((await getRuntime()).database, { range: "week" });
  return <OverviewView initial={overview} />;
}
