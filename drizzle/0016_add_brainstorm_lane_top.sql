-- Each brainstorm keeps where its lanes start, so a second brainstorm in a room is drawn below the first.
ALTER TABLE "brainstorms" ADD COLUMN "lane_top" double precision DEFAULT 0 NOT NULL;