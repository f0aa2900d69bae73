-- Every removed API key, whoever removes it (the revoke route, an account deletion, a cascade), is
-- announced on commit with its hash, so every instance drops it from its cache of verified keys at once.
CREATE FUNCTION "platform"."notify_api_key_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('curio_api_key_revoked', OLD.key_hash);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "api_keys_removed"
  AFTER DELETE ON "platform"."api_keys"
  FOR EACH ROW EXECUTE FUNCTION "platform"."notify_api_key_removed"();
