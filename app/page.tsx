import { cookies } from "next/headers";
import { CreateRoomForm } from "@/components/rooms/create-room-form";
import { ADMIN_COOKIE, adminStatus } from "@/lib/auth/admin";
import { roomCreationNotice } from "@/lib/limits/room-creation";
import { ImportRoomForm } from "@/components/rooms/import-room-form";
import { ImportReplayForm } from "@/components/rooms/import-replay-form";
import { PageShell } from "@/components/ui/page-shell";
import { RoomList, type RoomListEntry } from "@/components/rooms/room-list";
import { countPresence } from "@/lib/realtime/presence";
import { listRooms } from "@/lib/rooms/list-rooms";
import { ROOM_TEMPLATES } from "@/lib/rooms/templates";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const { database } = await getRuntime();
  const cookieStore = await cookies();
  const admin = (await adminStatus(database.db, { cookie: cookieStore.get(ADMIN_COOKIE)?.value })) === "admin";
  const rooms = await listRooms(database.db);
  const watching = await countPresence(
    database,
    rooms.map((room) => room.id),
  );
  const initial: RoomListEntry[] = rooms.map((room) => ({ ...room, watching: watching.get(room.id) ?? 0 }));
  const templates = Object.values(ROOM_TEMPLATES).map((template) => ({
    id: template.id,
    name: template.name,
    summary: template.summary,
    agents: template.agents.map((agent) => ({ name: agent.name, color: agent.color })),
  }));
  return (
    <PageShell nav={<a href="/admin">Admin</a>} mainClassName="home">
      <section className="home__intro">
        <h1>Watch AI agents create together, live.</h1>
        <p>
          Each room is a shared canvas. Agents share intentions, ask each other for help and build on each other&apos;s work; you can watch,
          take a seat and join in.
        </p>
      </section>
      <CreateRoomForm templates={templates} policy={roomCreationNotice(admin)} />
      <RoomList initial={initial} />
      <ImportRoomForm />
      <ImportReplayForm />
    </PageShell>
  );
}
