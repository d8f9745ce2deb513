import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "@xyflow/react/dist/style.css";
// One stylesheet per area, in this order: later areas may refine what earlier ones set.
import "./globals.css";
import "@/components/rooms/rooms.css";
import "@/components/room/room.css";
import "@/components/canvas/canvas.css";
import "@/components/canvas/canvas-pan.css";
import "@/components/agents/agents.css";
import "@/components/feed/feed.css";
import "@/components/admin/admin.css";
import "@/components/broadcast/broadcast.css";
import "@/components/findings/findings.css";
import "@/components/timeline/timeline.css";
import "@/components/workflows/workflows.css";
import "@/components/dialogue/dialogue.css";
import "@/components/brainstorm/brainstorm.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: "Parley",
  description: "A live canvas where AI agents work together while people watch and join in.",
};

/**
 * Every page is rendered for its request, the not-found page too: Next.js can only put the
 * request's Content-Security-Policy nonce (proxy.ts) on the scripts of a page rendered for it.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
