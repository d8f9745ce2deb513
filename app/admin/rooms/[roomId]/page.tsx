import { notFound } from "next/navigation";
import { RoomDetailView } from "@/components/admin/room-detail-view";
import { AppError } from "@/lib/errors";
import { readRoomForAdmin } from "@/lib/rooms/list-rooms-for-admin";
import { getRuntime } from "@/lib/runtime";
import { adminPageStatus } from "../../admin-page";

export const dynamic = "force-dynamic";

export default async function AdminRoomPage({ params }: { params: Promise<{ roomId: string }> }) {
  if ((await adminPageStatus()) !== "admin") return null;
  const { roomId } = await params;
  try {
    return <RoomDetailView initial={await readRoomForAdmin((await getRuntime()).database, roomId)} />;
  } catch (error) {
    if (error instanceof AppError && error.status === 404) notFound();
    throw error;
  }
}
