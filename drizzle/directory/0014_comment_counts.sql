CREATE TABLE "directory"."comment_counts" (
	"status" varchar(20) PRIMARY KEY NOT NULL,
	"count" bigint NOT NULL
);
--> statement-breakpoint
-- The counts start from the comments there are, then every statement that writes comments (moderation,
-- deletions and the cascades of an item's or an account's deletion included) adds its difference, in its
-- own transaction: the dashboard reads three rows instead of counting every comment.
INSERT INTO "directory"."comment_counts" ("status", "count")
  SELECT "status", count(*) FROM "directory"."comments" GROUP BY "status";--> statement-breakpoint
CREATE FUNCTION "directory"."comment_counts_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "directory"."comment_counts" AS c ("status", "count")
      SELECT "status", count(*) FROM new_rows GROUP BY "status"
      ON CONFLICT ("status") DO UPDATE SET "count" = c."count" + excluded."count";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "directory"."comment_counts" AS c ("status", "count")
      SELECT "status", -count(*) FROM old_rows GROUP BY "status"
      ON CONFLICT ("status") DO UPDATE SET "count" = c."count" + excluded."count";
  ELSE
    INSERT INTO "directory"."comment_counts" AS c ("status", "count")
      SELECT "status", sum(delta) FROM (
        SELECT "status", 1 AS delta FROM new_rows
        UNION ALL
        SELECT "status", -1 AS delta FROM old_rows
      ) changed
      GROUP BY "status"
      HAVING sum(delta) <> 0
      ON CONFLICT ("status") DO UPDATE SET "count" = c."count" + excluded."count";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "comment_counts_insert" AFTER INSERT ON "directory"."comments"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "directory"."comment_counts_follow"();--> statement-breakpoint
CREATE TRIGGER "comment_counts_delete" AFTER DELETE ON "directory"."comments"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "directory"."comment_counts_follow"();--> statement-breakpoint
CREATE TRIGGER "comment_counts_update" AFTER UPDATE ON "directory"."comments"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "directory"."comment_counts_follow"();
