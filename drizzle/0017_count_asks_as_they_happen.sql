CREATE TABLE "room_asks" (
	"room_id" text NOT NULL,
	"asker" text NOT NULL,
	"target_kind" text NOT NULL,
	"target" text NOT NULL,
	"kind" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "room_asks_room_id_asker_target_kind_target_kind_pk" PRIMARY KEY("room_id","asker","target_kind","target","kind")
);
--> statement-breakpoint
ALTER TABLE "room_asks" ADD CONSTRAINT "room_asks_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Who asked whom in every room's history so far, read as asksIn reads each event (lib/protocol/asks.ts); from here on, each write adds what its events ask.
INSERT INTO "room_asks" ("room_id", "asker", "target_kind", "target", "kind", "count")
SELECT "room_id", "asker", "target_kind", "target", "kind", count(*)::int
FROM (
	SELECT "room_id", "payload"->'entry'->>'agentId' AS "asker", 'persona' AS "target_kind", "payload"->'entry'->>'targetPersona' AS "target",
		CASE WHEN "payload"->'entry'->'content'->'help' = 'true'::jsonb THEN 'help' ELSE 'request' END AS "kind"
	FROM "events"
	WHERE "type" = 'board.posted' AND "payload"->'entry'->>'kind' = 'request'
	UNION ALL
	SELECT "room_id", "payload"->'broadcast'->>'agentId', 'id', 'people', 'question'
	FROM "events"
	WHERE "type" = 'broadcast.asked' AND "payload"->'broadcast'->>'mode' = 'human'
	UNION ALL
	SELECT "events"."room_id", "events"."payload"->'broadcast'->>'agentId', 'id', "targets"."id", 'question'
	FROM "events" CROSS JOIN LATERAL jsonb_array_elements_text(coalesce("events"."payload"->'broadcast'->'targetAgentIds', '[]'::jsonb)) AS "targets"("id")
	WHERE "events"."type" = 'broadcast.asked' AND "events"."payload"->'broadcast'->>'mode' IS DISTINCT FROM 'human'
	UNION ALL
	SELECT "room_id", 'people', 'id', "payload"->'command'->>'agentId', 'command'
	FROM "events"
	WHERE "type" = 'command.sent'
	UNION ALL
	SELECT "room_id", "payload"->'dialogue'->>'askerAgentId', 'id', "payload"->'dialogue'->>'addresseeAgentId', 'dialogue'
	FROM "events"
	WHERE "type" = 'dialogue.opened'
) AS "asks"
WHERE coalesce("asker", '') <> '' AND coalesce("target", '') <> ''
GROUP BY "room_id", "asker", "target_kind", "target", "kind";
