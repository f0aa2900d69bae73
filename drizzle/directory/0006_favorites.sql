CREATE TABLE "directory"."favorites" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"item_slug" varchar(200) NOT NULL,
	"item_name" varchar(200) NOT NULL,
	"item_icon_url" text,
	"item_category" varchar(100),
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "directory"."favorites" ADD CONSTRAINT "favorites_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "favorites_user_item_unique" ON "directory"."favorites" USING btree ("user_id","item_slug");--> statement-breakpoint
CREATE INDEX "favorites_user_created_idx" ON "directory"."favorites" USING btree ("user_id","created_at");