DROP INDEX "directory"."items_status_created_idx";--> statement-breakpoint
DROP INDEX "directory"."items_created_idx";--> statement-breakpoint
DROP INDEX "directory"."items_published_idx";--> statement-breakpoint
CREATE INDEX "items_status_created_idx" ON "directory"."items" USING btree ("status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "items_created_idx" ON "directory"."items" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "items_published_idx" ON "directory"."items" USING btree ("published_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "directory"."items"."status" = 'published';