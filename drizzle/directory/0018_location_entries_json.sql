-- Each index row carries its geo-analytics entry and heatmap point as JSON text, written with the row.
CREATE FUNCTION "directory"."location_entry_json"(slug text, lat float8, lng float8, city text, country text, remote boolean)
  RETURNS text LANGUAGE sql STABLE AS $$
  SELECT '{"itemSlug":' || to_json(slug)::text || ',"latitude":' || lat::text || ',"longitude":' || lng::text
    || ',"city":' || coalesce(to_json(city)::text, 'null') || ',"country":' || coalesce(to_json(country)::text, 'null')
    || ',"isRemote":' || CASE WHEN remote THEN 'true' ELSE 'false' END || '}'
$$;--> statement-breakpoint
CREATE FUNCTION "directory"."location_point_json"(lat float8, lng float8)
  RETURNS text LANGUAGE sql STABLE AS $$
  SELECT '{"lat":' || lat::text || ',"lng":' || lng::text || '}'
$$;--> statement-breakpoint
ALTER TABLE "directory"."item_locations" ADD COLUMN "entry_json" text;--> statement-breakpoint
ALTER TABLE "directory"."item_locations" ADD COLUMN "point_json" text;--> statement-breakpoint
UPDATE "directory"."item_locations" SET
  entry_json = "directory"."location_entry_json"(item_slug, latitude, longitude, city, country, is_remote),
  point_json = "directory"."location_point_json"(latitude, longitude);--> statement-breakpoint
ALTER TABLE "directory"."item_locations" ALTER COLUMN "entry_json" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "directory"."item_locations" ALTER COLUMN "point_json" SET NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "directory"."item_locations_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lat float8 := CASE WHEN NEW.is_remote THEN 0 ELSE NEW.latitude END;
  lng float8 := CASE WHEN NEW.is_remote THEN 0 ELSE NEW.longitude END;
BEGIN
  IF NEW.status = 'published' AND (NEW.is_remote OR NEW.latitude IS NOT NULL) THEN
    INSERT INTO "directory"."item_locations"
      (item_id, item_slug, latitude, longitude, city, country, service_area, is_remote, indexed_at, entry_json, point_json)
    VALUES (
      NEW.id, NEW.slug, lat, lng, NEW.city, NEW.country, NEW.service_area, NEW.is_remote, NEW.updated_at,
      "directory"."location_entry_json"(NEW.slug, lat, lng, NEW.city, NEW.country, NEW.is_remote),
      "directory"."location_point_json"(lat, lng)
    )
    ON CONFLICT (item_id) DO UPDATE SET
      item_slug = EXCLUDED.item_slug, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
      city = EXCLUDED.city, country = EXCLUDED.country, service_area = EXCLUDED.service_area,
      is_remote = EXCLUDED.is_remote, indexed_at = EXCLUDED.indexed_at,
      entry_json = EXCLUDED.entry_json, point_json = EXCLUDED.point_json;
  ELSIF TG_OP = 'UPDATE' THEN
    DELETE FROM "directory"."item_locations" WHERE item_id = NEW.id;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE INDEX "items_published_location_idx" ON "directory"."items" USING btree ("is_remote","latitude") WHERE "directory"."items"."status" = 'published';
