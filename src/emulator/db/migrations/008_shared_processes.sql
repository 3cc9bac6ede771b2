-- Several emulator processes on one PostgreSQL. Each keeps hot rows (orgs, keys, endpoints) in memory; every
-- committed statement that writes one of those tables tells all of them at once (LISTEN svc_change), so a key
-- revoked through one process is refused by the next request to any other. Statement-level: one notification
-- per statement, and PostgreSQL folds identical ones within a transaction.
CREATE FUNCTION svc_notify_change() RETURNS trigger LANGUAGE plpgsql AS $svc$ BEGIN PERFORM pg_notify('svc_change', TG_TABLE_NAME); RETURN NULL; END $svc$;

CREATE TRIGGER orgs_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON orgs
  FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_change();

CREATE TRIGGER api_keys_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_change();

CREATE TRIGGER webhook_endpoints_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON webhook_endpoints
  FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_change();

-- The manual clock shared by every process (one row, present once a process has started with --clock manual).
CREATE TABLE emulator_clock (
  id       smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  now      timestamptz NOT NULL,
  -- Bumped by every move, so a process applies moves in order whichever way it hears of them.
  version  bigint NOT NULL DEFAULT 0
);
