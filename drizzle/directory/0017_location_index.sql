CREATE TABLE "directory"."item_locations" (
	"item_id" uuid PRIMARY KEY NOT NULL,
	"item_slug" varchar(200) NOT NULL,
	"latitude" double precision NOT NULL,
	"longitude" double precision NOT NULL,
	"city" varchar(100),
	"country" varchar(100),
	"service_area" varchar(300),
	"is_remote" boolean NOT NULL,
	"indexed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory"."location_index_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"status" varchar(20) NOT NULL,
	"requested_by" uuid,
	"total" integer DEFAULT 0 NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"geocoded" integer DEFAULT 0 NOT NULL,
	"geocode_failed" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"cursor" uuid,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "location_index_runs_status_check" CHECK ("directory"."location_index_runs"."status" in ('queued', 'running', 'completed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "directory"."item_locations" ADD CONSTRAINT "item_locations_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "directory"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."location_index_runs" ADD CONSTRAINT "location_index_runs_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "item_locations_point_idx" ON "directory"."item_locations" USING gist (point("longitude", "latitude"));--> statement-breakpoint
CREATE INDEX "item_locations_country_idx" ON "directory"."item_locations" USING btree ("country");--> statement-breakpoint
CREATE INDEX "item_locations_indexed_idx" ON "directory"."item_locations" USING btree ("indexed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "location_index_runs_one_active" ON "directory"."location_index_runs" USING btree ((true)) WHERE "directory"."location_index_runs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "location_index_runs_created_idx" ON "directory"."location_index_runs" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
-- The index follows every write of an item, in the write's own transaction: a published item with
-- coordinates, or remote (at 0,0), has its row; any other item has none. Deletions cascade.
CREATE FUNCTION "directory"."item_locations_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'published' AND (NEW.is_remote OR NEW.latitude IS NOT NULL) THEN
    INSERT INTO "directory"."item_locations"
      (item_id, item_slug, latitude, longitude, city, country, service_area, is_remote, indexed_at)
    VALUES (
      NEW.id, NEW.slug,
      CASE WHEN NEW.is_remote THEN 0 ELSE NEW.latitude END,
      CASE WHEN NEW.is_remote THEN 0 ELSE NEW.longitude END,
      NEW.city, NEW.country, NEW.service_area, NEW.is_remote, NEW.updated_at
    )
    ON CONFLICT (item_id) DO UPDATE SET
      item_slug = EXCLUDED.item_slug, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
      city = EXCLUDED.city, country = EXCLUDED.country, service_area = EXCLUDED.service_area,
      is_remote = EXCLUDED.is_remote, indexed_at = EXCLUDED.indexed_at;
  ELSIF TG_OP = 'UPDATE' THEN
    DELETE FROM "directory"."item_locations" WHERE item_id = NEW.id;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "item_locations_follow" AFTER INSERT OR UPDATE OF status, slug, latitude, longitude, city, country, service_area, is_remote
  ON "directory"."items"
  FOR EACH ROW EXECUTE FUNCTION "directory"."item_locations_follow"();--> statement-breakpoint
-- Items written before this migration are indexed once, here.
INSERT INTO "directory"."item_locations"
  (item_id, item_slug, latitude, longitude, city, country, service_area, is_remote, indexed_at)
SELECT id, slug,
  CASE WHEN is_remote THEN 0 ELSE latitude END, CASE WHEN is_remote THEN 0 ELSE longitude END,
  city, country, service_area, is_remote, updated_at
FROM "directory"."items"
WHERE status = 'published' AND (is_remote OR latitude IS NOT NULL);
