"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { apiWrite } from "@/components/room/api";

const SECTIONS = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/runs", label: "Runs" },
  { href: "/admin/workflows", label: "Workflows" },
  { href: "/admin/rooms", label: "Rooms" },
  { href: "/admin/instance", label: "Instance" },
  { href: "/admin/audit", label: "Audit" },
] as const;

/** The dashboard's sections, the one shown marked, and signing out. */
export function AdminNav() {
  const pathname = usePathname();
  const router = useRouter();
  const current = (href: string) => (href === "/admin" ? pathname === "/admin" : (pathname ?? "").startsWith(href));
  return (
    <nav className="admin-nav" aria-label="Dashboard sections" data-testid="admin-nav">
      {SECTIONS.map((section) => (
        <Link
          key={section.href}
          href={section.href}
          className={`admin-nav__link${current(section.href) ? " admin-nav__link--current" : ""}`}
          aria-current={current(section.href) ? "page" : undefined}
        >
          {section.label}
        </Link>
      ))}
      <button
        className="button button--small admin-nav__sign-out"
        type="button"
        data-testid="admin-sign-out"
        onClick={async () => {
          await apiWrite("/api/admin/session", "DELETE");
          router.refresh();
        }}
      >
        Sign out
      </button>
    </nav>
  );
}
