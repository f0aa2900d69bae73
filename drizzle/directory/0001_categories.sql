CREATE TABLE "directory"."categories" (
	"id" varchar(100) PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"item_count" integer DEFAULT 0 NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "categories_sort_idx" ON "directory"."categories" USING btree ("sort_order","name");--> statement-breakpoint
CREATE UNIQUE INDEX "categories_name_lower_unique" ON "directory"."categories" USING btree (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "roles_name_lower_unique" ON "directory"."roles" USING btree (lower("name"));