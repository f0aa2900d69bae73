CREATE TABLE "platform"."work_generations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"work_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"prompt" text,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"items_count" integer DEFAULT 0 NOT NULL,
	"error" text,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "platform"."work_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"work_id" uuid NOT NULL,
	"generation_id" uuid,
	"position" integer NOT NULL,
	"name" varchar(200) NOT NULL,
	"description" text NOT NULL,
	"url" text,
	"category" varchar(100) NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform"."user_plugins" (
	"user_id" uuid NOT NULL,
	"plugin_id" text NOT NULL,
	"enabled" boolean NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secret_settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"auto_enable_for_works" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "user_plugins_user_id_plugin_id_pk" PRIMARY KEY("user_id","plugin_id")
);
--> statement-breakpoint
CREATE TABLE "platform"."work_plugins" (
	"work_id" uuid NOT NULL,
	"plugin_id" text NOT NULL,
	"enabled" boolean NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secret_settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"active_capability" text,
	"priority" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "work_plugins_work_id_plugin_id_pk" PRIMARY KEY("work_id","plugin_id")
);
--> statement-breakpoint
ALTER TABLE "platform"."work_generations" ADD CONSTRAINT "work_generations_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "platform"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."work_generations" ADD CONSTRAINT "work_generations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."work_items" ADD CONSTRAINT "work_items_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "platform"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."work_items" ADD CONSTRAINT "work_items_generation_id_work_generations_id_fk" FOREIGN KEY ("generation_id") REFERENCES "platform"."work_generations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."user_plugins" ADD CONSTRAINT "user_plugins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."work_plugins" ADD CONSTRAINT "work_plugins_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "platform"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "work_generations_one_running" ON "platform"."work_generations" USING btree ("work_id") WHERE "platform"."work_generations"."status" in ('PENDING', 'GENERATING');--> statement-breakpoint
CREATE INDEX "work_generations_running_idx" ON "platform"."work_generations" USING btree ("heartbeat_at") WHERE "platform"."work_generations"."status" in ('PENDING', 'GENERATING');--> statement-breakpoint
CREATE INDEX "work_generations_work_idx" ON "platform"."work_generations" USING btree ("work_id","created_at");--> statement-breakpoint
CREATE INDEX "work_items_work_idx" ON "platform"."work_items" USING btree ("work_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "work_plugins_active_capability_unique" ON "platform"."work_plugins" USING btree ("work_id","active_capability") WHERE "platform"."work_plugins"."active_capability" is not null;--> statement-breakpoint
CREATE INDEX "work_plugins_plugin_idx" ON "platform"."work_plugins" USING btree ("plugin_id");