CREATE TABLE "directory"."collection_items" (
	"collection_id" uuid NOT NULL,
	"item_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"added_at" timestamp with time zone NOT NULL,
	CONSTRAINT "collection_items_pkey" PRIMARY KEY("collection_id","item_id")
);
--> statement-breakpoint
CREATE TABLE "directory"."collections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" varchar(200) NOT NULL,
	"name" varchar(200) NOT NULL,
	"description" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "collections_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "directory"."companies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" varchar(200) NOT NULL,
	"name" varchar(200) NOT NULL,
	"description" text,
	"website" text,
	"logo_url" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "companies_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "directory"."item_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"item_id" uuid NOT NULL,
	"actor_id" uuid,
	"action" varchar(20) NOT NULL,
	"changes" jsonb NOT NULL,
	"note" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory"."item_tags" (
	"item_id" uuid NOT NULL,
	"tag_id" varchar(100) NOT NULL,
	CONSTRAINT "item_tags_pkey" PRIMARY KEY("item_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "directory"."items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" varchar(200) NOT NULL,
	"name" varchar(200) NOT NULL,
	"description" text,
	"url" text,
	"icon_url" text,
	"image_url" text,
	"category_id" varchar(100),
	"company_id" uuid,
	"status" varchar(20) NOT NULL,
	"address" varchar(300),
	"city" varchar(100),
	"country" varchar(100),
	"latitude" double precision,
	"longitude" double precision,
	"is_remote" boolean DEFAULT false NOT NULL,
	"service_area" varchar(300),
	"submitted_by" uuid,
	"review_note" text,
	"reviewed_by" uuid,
	"reviewed_at" timestamp with time zone,
	"published_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, coalesce(name, '')), 'A') || setweight(to_tsvector('simple'::regconfig, coalesce(description, '')), 'B')) STORED NOT NULL,
	CONSTRAINT "items_slug_unique" UNIQUE("slug"),
	CONSTRAINT "items_status_check" CHECK ("directory"."items"."status" in ('draft', 'pending', 'published', 'rejected')),
	CONSTRAINT "items_coordinates_check" CHECK (("directory"."items"."latitude" is null) = ("directory"."items"."longitude" is null) and "directory"."items"."latitude" between -90 and 90 and "directory"."items"."longitude" between -180 and 180)
);
--> statement-breakpoint
CREATE TABLE "directory"."admin_notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"type" varchar(40) NOT NULL,
	"title" varchar(200) NOT NULL,
	"message" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory"."tags" (
	"id" varchar(100) PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "directory"."collection_items" ADD CONSTRAINT "collection_items_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "directory"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."collection_items" ADD CONSTRAINT "collection_items_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "directory"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."item_history" ADD CONSTRAINT "item_history_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."item_tags" ADD CONSTRAINT "item_tags_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "directory"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."item_tags" ADD CONSTRAINT "item_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "directory"."tags"("id") ON DELETE restrict ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "directory"."items" ADD CONSTRAINT "items_category_id_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "directory"."categories"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."items" ADD CONSTRAINT "items_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "directory"."companies"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."items" ADD CONSTRAINT "items_submitted_by_users_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."items" ADD CONSTRAINT "items_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "collection_items_order_idx" ON "directory"."collection_items" USING btree ("collection_id","position");--> statement-breakpoint
CREATE INDEX "collection_items_item_idx" ON "directory"."collection_items" USING btree ("item_id");--> statement-breakpoint
CREATE INDEX "collections_active_idx" ON "directory"."collections" USING btree ("is_active");--> statement-breakpoint
CREATE UNIQUE INDEX "companies_name_lower_unique" ON "directory"."companies" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "item_history_item_idx" ON "directory"."item_history" USING btree ("item_id","created_at");--> statement-breakpoint
CREATE INDEX "item_tags_tag_idx" ON "directory"."item_tags" USING btree ("tag_id","item_id");--> statement-breakpoint
CREATE INDEX "items_search_idx" ON "directory"."items" USING gin ("search");--> statement-breakpoint
CREATE INDEX "items_status_created_idx" ON "directory"."items" USING btree ("status","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "items_created_idx" ON "directory"."items" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "items_category_idx" ON "directory"."items" USING btree ("category_id","status");--> statement-breakpoint
CREATE INDEX "items_company_idx" ON "directory"."items" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "items_submitter_idx" ON "directory"."items" USING btree ("submitted_by");--> statement-breakpoint
CREATE INDEX "items_published_idx" ON "directory"."items" USING btree ("published_at" DESC NULLS LAST,"id") WHERE "directory"."items"."status" = 'published';--> statement-breakpoint
CREATE INDEX "admin_notifications_created_idx" ON "directory"."admin_notifications" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "admin_notifications_unread_idx" ON "directory"."admin_notifications" USING btree ("created_at" DESC NULLS LAST) WHERE "directory"."admin_notifications"."read_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "tags_name_lower_unique" ON "directory"."tags" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "featured_items_item_slug_idx" ON "directory"."featured_items" USING btree ("item_slug");