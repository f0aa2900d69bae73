CREATE TABLE "directory"."payment_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" varchar(20) NOT NULL,
	"subscription_id" varchar(255) NOT NULL,
	"user_id" uuid,
	"sponsor_ad_id" uuid,
	"plan_id" varchar(100),
	"status" varchar(40) NOT NULL,
	"start_date" timestamp with time zone,
	"end_date" timestamp with time zone,
	"price_id" varchar(255),
	"customer_id" varchar(255),
	"currency" varchar(10),
	"amount" integer,
	"interval" varchar(20),
	"interval_count" integer,
	"trial_start" timestamp with time zone,
	"trial_end" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"cancel_reason" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory"."payment_webhook_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" varchar(20) NOT NULL,
	"event_id" varchar(255) NOT NULL,
	"type" varchar(40) NOT NULL,
	"provider_type" varchar(100) NOT NULL,
	"raw_body" "bytea" NOT NULL,
	"status" varchar(20) NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"outcome" text,
	"last_error" text,
	"received_at" timestamp with time zone NOT NULL,
	"processed_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	CONSTRAINT "payment_webhook_events_status_check" CHECK ("directory"."payment_webhook_events"."status" in ('received', 'processed', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "directory"."sponsor_ad_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" varchar(20) NOT NULL,
	"reference" varchar(300) NOT NULL,
	"kind" varchar(20) NOT NULL,
	"event_id" varchar(255) NOT NULL,
	"event_type" varchar(100) NOT NULL,
	"sponsor_ad_id" uuid,
	"user_id" uuid,
	"amount" integer,
	"currency" varchar(10),
	"subscription_id" varchar(255),
	"customer_id" varchar(255),
	"effect" varchar(20) NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sponsor_ad_payments_kind_check" CHECK ("directory"."sponsor_ad_payments"."kind" in ('initial', 'renewal', 'failed', 'refund'))
);
--> statement-breakpoint
CREATE TABLE "directory"."sponsor_ads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"item_slug" varchar(200) NOT NULL,
	"item_name" varchar(200) NOT NULL,
	"item_icon_url" varchar(500),
	"item_category" varchar(100),
	"item_description" varchar(500),
	"interval" varchar(10) NOT NULL,
	"status" varchar(20) NOT NULL,
	"title" varchar(200) NOT NULL,
	"description" varchar(1000),
	"start_date" timestamp with time zone,
	"end_date" timestamp with time zone,
	"rejection_reason" text,
	"cancel_reason" text,
	"approved_at" timestamp with time zone,
	"approved_by" uuid,
	"rejected_at" timestamp with time zone,
	"rejected_by" uuid,
	"cancelled_at" timestamp with time zone,
	"cancelled_by" uuid,
	"paid_at" timestamp with time zone,
	"unused_periods" integer DEFAULT 0 NOT NULL,
	"payment_provider" varchar(20),
	"checkout_id" varchar(255),
	"subscription_id" varchar(255),
	"customer_id" varchar(255),
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sponsor_ads_status_check" CHECK ("directory"."sponsor_ads"."status" in ('pending_payment', 'pending', 'active', 'rejected', 'expired', 'cancelled')),
	CONSTRAINT "sponsor_ads_interval_check" CHECK ("directory"."sponsor_ads"."interval" in ('weekly', 'monthly')),
	CONSTRAINT "sponsor_ads_unused_periods_check" CHECK ("directory"."sponsor_ads"."unused_periods" >= 0)
);
--> statement-breakpoint
ALTER TABLE "directory"."payment_subscriptions" ADD CONSTRAINT "payment_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."payment_subscriptions" ADD CONSTRAINT "payment_subscriptions_sponsor_ad_id_sponsor_ads_id_fk" FOREIGN KEY ("sponsor_ad_id") REFERENCES "directory"."sponsor_ads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."sponsor_ad_payments" ADD CONSTRAINT "sponsor_ad_payments_sponsor_ad_id_sponsor_ads_id_fk" FOREIGN KEY ("sponsor_ad_id") REFERENCES "directory"."sponsor_ads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."sponsor_ad_payments" ADD CONSTRAINT "sponsor_ad_payments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."sponsor_ads" ADD CONSTRAINT "sponsor_ads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."sponsor_ads" ADD CONSTRAINT "sponsor_ads_approved_by_users_id_fk" FOREIGN KEY ("approved_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."sponsor_ads" ADD CONSTRAINT "sponsor_ads_rejected_by_users_id_fk" FOREIGN KEY ("rejected_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."sponsor_ads" ADD CONSTRAINT "sponsor_ads_cancelled_by_users_id_fk" FOREIGN KEY ("cancelled_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_subscriptions_provider_unique" ON "directory"."payment_subscriptions" USING btree ("provider","subscription_id");--> statement-breakpoint
CREATE INDEX "payment_subscriptions_ad_idx" ON "directory"."payment_subscriptions" USING btree ("sponsor_ad_id");--> statement-breakpoint
CREATE INDEX "payment_subscriptions_user_idx" ON "directory"."payment_subscriptions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "payment_subscriptions_updated_idx" ON "directory"."payment_subscriptions" USING btree ("updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "payment_webhook_events_event_unique" ON "directory"."payment_webhook_events" USING btree ("provider","event_id");--> statement-breakpoint
CREATE INDEX "payment_webhook_events_retry_idx" ON "directory"."payment_webhook_events" USING btree ("next_attempt_at") WHERE "directory"."payment_webhook_events"."status" = 'received';--> statement-breakpoint
CREATE INDEX "payment_webhook_events_received_idx" ON "directory"."payment_webhook_events" USING btree ("received_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "sponsor_ad_payments_reference_unique" ON "directory"."sponsor_ad_payments" USING btree ("provider","reference");--> statement-breakpoint
CREATE INDEX "sponsor_ad_payments_ad_idx" ON "directory"."sponsor_ad_payments" USING btree ("sponsor_ad_id","created_at");--> statement-breakpoint
CREATE INDEX "sponsor_ad_payments_user_idx" ON "directory"."sponsor_ad_payments" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sponsor_ad_payments_created_idx" ON "directory"."sponsor_ad_payments" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "sponsor_ads_open_unique" ON "directory"."sponsor_ads" USING btree ("user_id","item_slug") WHERE "directory"."sponsor_ads"."status" in ('pending_payment', 'pending', 'active');--> statement-breakpoint
CREATE INDEX "sponsor_ads_user_created_idx" ON "directory"."sponsor_ads" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "sponsor_ads_status_created_idx" ON "directory"."sponsor_ads" USING btree ("status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "sponsor_ads_status_end_idx" ON "directory"."sponsor_ads" USING btree ("status","end_date");--> statement-breakpoint
CREATE INDEX "sponsor_ads_created_idx" ON "directory"."sponsor_ads" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "sponsor_ads_subscription_idx" ON "directory"."sponsor_ads" USING btree ("payment_provider","subscription_id");