CREATE TABLE "directory"."featured_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"item_slug" varchar(200) NOT NULL,
	"item_name" varchar(200) NOT NULL,
	"item_description" text,
	"item_icon_url" text,
	"item_image_url" text,
	"featured_order" integer DEFAULT 0 NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"featured_at" timestamp with time zone NOT NULL,
	"featured_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "featured_items_shelf_idx" ON "directory"."featured_items" USING btree ("featured_order" DESC NULLS LAST,"featured_at" DESC NULLS LAST) WHERE "directory"."featured_items"."is_active";