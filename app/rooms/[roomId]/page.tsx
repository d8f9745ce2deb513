import type { Metadata } from "next";
import { cookies } from "next/headers";
import { notFound } from "next/navigation";
import { RoomView } from "@/components/room/room-view";
import { ADMIN_COOKIE, adminStatus } from "@/lib/auth/admin";
import { findSeatByToken, seatCookieName } from "@/lib/auth/seats";
import { AppError, unstorableTextError } from "@/lib/errors";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { findRoom } from "@/lib/rooms/list-rooms";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ roomId: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { roomId } = await params;
  const { database } = await getRuntime();
  // An id the database cannot even hold (a NUL character) names no room.
  const room = await findRoom(database.db, roomId).catch((error) => {
    if (unstorableTextError(error)) return null;
    throw error;
  });
  return { title: room ? `${room.title} · Parley` : "Room not found · Parley" };
}

export default async function RoomPage({ params }: Props) {
  const { roomId } = await params;
  const { database } = await getRuntime();
  const snapshot = await getRoomSnapshot(database.db, roomId).catch((error) => {
    if ((error instanceof AppError && error.status === 404) || unstorableTextError(error)) notFound();
    throw error;
  });
  const cookieStore = await cookies();
  const seat = await findSeatByToken(database.db, roomId, cookieStore.get(seatCookieName(roomId))?.value);
  const admin = (await adminStatus(database.db, { cookie: cookieStore.get(ADMIN_COOKIE)?.value })) === "admin";
  return (
    <RoomView
      snapshot={snapshot}
      seat={
        seat
          ? { id: seat.id, displayName: seat.displayName, focusAgentId: seat.focusAgentId, owner: seat.id === snapshot.ownerSeatId }
          : null
      }
      admin={admin}
    />
  );
}
