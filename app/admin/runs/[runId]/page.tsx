import { notFound } from "next/navigation";
import { RunDetailView } from "@/components/admin/run-detail-view";
import { readAdminRun } from "@/lib/admin/admin-runs";
import { AppError } from "@/lib/errors";
import { getRuntime } from "@/lib/runtime";
import { adminPageStatus } from "../../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminRunPage({ params }: { params: Promise<{ runId: string }> }) {
  if ((await adminPageStatus()) !== "admin") return null;
  const { runId } = await params;
  try {
    return <RunDetailView initial={await readAdminRun((await getRuntime()).database.db, runId)} />;
  } catch (error) {
    if (error instanceof AppError && error.status === 404) notFound();
    throw error;
  }
}
