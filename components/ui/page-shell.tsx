import Link from "next/link";
import type { ReactNode } from "react";

/** The frame of Parley's plain pages: the brand, one navigation item, then the content. */
export function PageShell({ nav, mainClassName, children }: { nav: ReactNode; mainClassName: string; children: ReactNode }) {
  return (
    <div className="page">
      <header className="page-header">
        <Link href="/" className="brand">
          Parley
        </Link>
        <nav>{nav}</nav>
      </header>
      <main className={mainClassName}>{children}</main>
    </div>
  );
}
