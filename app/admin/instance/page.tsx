import { InstanceView } from "@/components/admin/instance-view";
import { readInstance } from "@/lib/admin/read-instance";
import { getRuntime } from "@/lib/runtime";
import { adminPageStatus } from "../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminInstancePage() {
  if ((await adminPageStatus()) !== "admin") return null;
  return <InstanceView initial={await readInstance(await getRuntime())} />;
}
