CREATE TABLE "platform"."webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"subscription_id" uuid,
	"event" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_response_status" integer,
	"last_outcome" text,
	"last_error" text,
	"duration_ms" integer,
	"trigger_run_id" text,
	"redelivery_of" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform"."webhook_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"work_id" uuid,
	"url" text NOT NULL,
	"status" text NOT NULL,
	"signing_secret" text NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "platform"."webhook_subscriptions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "platform"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_user_idx" ON "platform"."webhook_deliveries" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subscription_idx" ON "platform"."webhook_deliveries" USING btree ("subscription_id","status");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_delivering_idx" ON "platform"."webhook_deliveries" USING btree ("updated_at") WHERE "platform"."webhook_deliveries"."status" = 'delivering';--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_user_idx" ON "platform"."webhook_subscriptions" USING btree ("user_id","status");