-- The Creative canvas personas were keyed by the role slots of the system they came from
-- (`coder` was the Songwriter, `architect` the Scene Painter). Their keys now say who they
-- are. Everything that names a persona by key follows: the agents (and the offline model
-- of the Creative Curator), requests on the board, and the stored events that carry the
-- agents or a request, so that a room's history reads the same after the rename.
CREATE TEMPORARY TABLE persona_renames (old_key text PRIMARY KEY, new_key text NOT NULL);
--> statement-breakpoint
INSERT INTO persona_renames VALUES
  ('brainstormer', 'idea-weaver'),
  ('architect', 'scene-painter'),
  ('coder', 'songwriter'),
  ('analyst', 'storyteller'),
  ('canvas-agent', 'curator');
--> statement-breakpoint
UPDATE agents SET persona = r.new_key
  FROM persona_renames r, rooms
  WHERE agents.persona = r.old_key AND rooms.id = agents.room_id AND rooms.template = 'creative-canvas';
--> statement-breakpoint
UPDATE agents SET model = 'script:curator'
  FROM rooms
  WHERE agents.model = 'script:creative-curator' AND rooms.id = agents.room_id AND rooms.template = 'creative-canvas';
--> statement-breakpoint
UPDATE board_entries SET
    target_persona = r.new_key,
    content = jsonb_set(board_entries.content, '{targetPersona}', to_jsonb(r.new_key))
  FROM persona_renames r, rooms
  WHERE board_entries.target_persona = r.old_key AND rooms.id = board_entries.room_id AND rooms.template = 'creative-canvas';
--> statement-breakpoint
UPDATE events SET payload = jsonb_set(
    jsonb_set(events.payload, '{entry,targetPersona}', to_jsonb(r.new_key)),
    '{entry,content,targetPersona}', to_jsonb(r.new_key))
  FROM persona_renames r, rooms
  WHERE events.type = 'board.posted' AND events.payload -> 'entry' ->> 'targetPersona' = r.old_key
    AND rooms.id = events.room_id AND rooms.template = 'creative-canvas';
--> statement-breakpoint
UPDATE events SET payload = jsonb_set(events.payload, '{agents}', (
    SELECT jsonb_agg(
      CASE WHEN r.new_key IS NULL THEN agent
      ELSE jsonb_set(
        jsonb_set(agent, '{persona}', to_jsonb(r.new_key)),
        '{model}', to_jsonb(CASE WHEN agent ->> 'model' = 'script:creative-curator' THEN 'script:curator' ELSE agent ->> 'model' END))
      END ORDER BY ordinality)
    FROM jsonb_array_elements(events.payload -> 'agents') WITH ORDINALITY AS item(agent, ordinality)
    LEFT JOIN persona_renames r ON r.old_key = agent ->> 'persona'))
  FROM rooms
  WHERE events.type = 'room.created' AND rooms.id = events.room_id AND rooms.template = 'creative-canvas';
--> statement-breakpoint
DROP TABLE persona_renames;
