import type { ReactNode } from "react";
import { AdminNav } from "@/components/admin/admin-nav";
import { AdminSignIn } from "@/components/admin/admin-sign-in";
import { PageShell } from "@/components/ui/page-shell";
import { adminPageStatus } from "./admin-page";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · Parley" };

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const status = await adminPageStatus();
  return (
    <PageShell nav={<span className="muted">Admin</span>} mainClassName="admin-main">
      {status === "admin" ? (
        <div className="admin-shell" data-testid="admin-dashboard">
          <AdminNav />
          {children}
        </div>
      ) : (
        <AdminSignIn expired={status === "invalid"} />
      )}
    </PageShell>
  );
}
