-- A workflow (everything under one correlation id in a room) is read by index, not by scanning the room.
CREATE INDEX "events_room_correlation_seq_idx" ON "events" USING btree ("room_id","correlation_id","seq");--> statement-breakpoint
CREATE INDEX "runs_room_correlation_idx" ON "runs" USING btree ("room_id","correlation_id");