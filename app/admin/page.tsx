import { cookies } from "next/headers";
import { AdminDashboard } from "@/components/admin/admin-dashboard";
import { AdminSignIn } from "@/components/admin/admin-sign-in";
import { PageShell } from "@/components/ui/page-shell";
import { ADMIN_COOKIE, adminStatus } from "@/lib/auth/admin";
import { listRoomsForAdmin } from "@/lib/rooms/list-rooms-for-admin";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · Parley" };

export default async function AdminPage() {
  const cookieStore = await cookies();
  const status = adminStatus({ cookie: cookieStore.get(ADMIN_COOKIE)?.value });
  return (
    <PageShell nav={<span className="muted">Admin</span>} mainClassName="admin">
      {status === "admin" ? (
        <AdminDashboard initialRooms={(await listRoomsForAdmin((await getRuntime()).database)).items} />
      ) : (
        <AdminSignIn expired={status === "invalid"} />
      )}
    </PageShell>
  );
}
