// GET /api/rooms/[roomId]/brainstorms/[brainstormId]/deliverable — the final deliverable as a markdown download (anyone watching)
import { and, eq } from "drizzle-orm";
import { brainstorms } from "@/db/schema";
import { AppError, notFound } from "@/lib/errors";
import { respond } from "@/lib/http/request";
import { roomAccess } from "@/lib/http/room-access";
import { methodsNotAllowed } from "@/lib/http/method-not-allowed";

export const dynamic = "force-dynamic";

/** A file name from the problem's first words: "how-might-we-cut-onboarding-time.md". */
function fileName(problem: string): string {
  const slug = problem
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return `${slug || "brainstorm"}.md`;
}

export async function GET(request: Request, { params }: { params: Promise<{ roomId: string; brainstormId: string }> }) {
  return respond(async () => {
    const { roomId, brainstormId } = await params;
    const { runtime } = await roomAccess(request, roomId);
    const [brainstorm] = await runtime.database.db
      .select({ problem: brainstorms.problem, deliverable: brainstorms.deliverable })
      .from(brainstorms)
      .where(and(eq(brainstorms.id, brainstormId), eq(brainstorms.roomId, roomId)));
    if (!brainstorm) throw notFound("Brainstorm");
    if (brainstorm.deliverable === null)
      throw new AppError(409, "not_ready", "The deliverable is written in the last stage; it is not ready yet.");
    return new Response(brainstorm.deliverable, {
      headers: {
        "Content-Type": "text/markdown; charset=utf-8",
        "Content-Disposition": `attachment; filename="${fileName(brainstorm.problem)}"`,
      },
    });
  }, request);
}

// Any other method: a 405 in JSON naming these.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed("GET");
