-- The dashboard's lists read a page as one index range: runs newest first (across rooms and in one room), a room's events by type or by sender.
CREATE INDEX "events_room_type_seq_idx" ON "events" USING btree ("room_id","type","seq");--> statement-breakpoint
CREATE INDEX "events_room_agent_seq_idx" ON "events" USING btree ("room_id","agent","seq");--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "runs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "runs_room_created_idx" ON "runs" USING btree ("room_id","created_at","id");