ALTER TABLE "rooms" ADD COLUMN "forked_from_room_id" text;--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "forked_from_seq" bigint;--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "replay_of" jsonb;--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_forked_from_room_id_rooms_id_fk" FOREIGN KEY ("forked_from_room_id") REFERENCES "public"."rooms"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rooms_forked_from_idx" ON "rooms" USING btree ("forked_from_room_id");