-- Every statement that writes client profiles, whoever runs it (cascades included), notifies the
-- channel on commit; each instance then drops the list totals it counted (src/db/count-cache.ts).
CREATE FUNCTION "directory"."notify_client_profiles_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('curio_client_profiles_changed', '');
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "client_profiles_changed"
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "directory"."client_profiles"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory"."notify_client_profiles_changed"();
