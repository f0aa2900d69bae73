CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "client_profiles_display_name_trgm" ON "directory"."client_profiles" USING gin ("display_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "client_profiles_email_trgm" ON "directory"."client_profiles" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "client_profiles_company_trgm" ON "directory"."client_profiles" USING gin ("company" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "client_profiles_status_idx" ON "directory"."client_profiles" USING btree ("status");--> statement-breakpoint
CREATE INDEX "client_profiles_plan_idx" ON "directory"."client_profiles" USING btree ("plan");--> statement-breakpoint
CREATE INDEX "client_profiles_account_type_idx" ON "directory"."client_profiles" USING btree ("account_type");--> statement-breakpoint
CREATE INDEX "client_profiles_provider_idx" ON "directory"."client_profiles" USING btree ("provider");