-- A checkpoint's rows in plain tables of the same shape as the tables they copy (checkpoint_<table>: the
-- checkpoint's org and name as keys, then every column of <table>), instead of JSON in org_checkpoints.rows. Taking
-- is INSERT ... SELECT from the live table, a rewind DELETE and INSERT ... SELECT back: no row is turned into JSON
-- and parsed again, which cost most of a checkpoint of 10,000 deliveries. A later migration that adds a column to
-- one of these tables adds it to its checkpoint table too (a test holds the columns equal).
CREATE TABLE checkpoint_api_keys (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE api_keys);
CREATE TABLE checkpoint_webhook_endpoints (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE webhook_endpoints);
CREATE TABLE checkpoint_relay_endpoints (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE relay_endpoints);
CREATE TABLE checkpoint_sandboxes (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE sandboxes);
CREATE TABLE checkpoint_sandbox_links (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE sandbox_links);
CREATE TABLE checkpoint_events (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE events);
CREATE TABLE checkpoint_deliveries (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE deliveries);
CREATE TABLE checkpoint_delivery_attempts (
  checkpoint_org_id text NOT NULL, checkpoint_name text NOT NULL, LIKE delivery_attempts);

CREATE INDEX checkpoint_api_keys_of ON checkpoint_api_keys (checkpoint_org_id, checkpoint_name);
CREATE INDEX checkpoint_webhook_endpoints_of ON checkpoint_webhook_endpoints (checkpoint_org_id, checkpoint_name);
CREATE INDEX checkpoint_relay_endpoints_of ON checkpoint_relay_endpoints (checkpoint_org_id, checkpoint_name);
CREATE INDEX checkpoint_sandboxes_of ON checkpoint_sandboxes (checkpoint_org_id, checkpoint_name);
CREATE INDEX checkpoint_sandbox_links_of ON checkpoint_sandbox_links (checkpoint_org_id, checkpoint_name);
CREATE INDEX checkpoint_events_of ON checkpoint_events (checkpoint_org_id, checkpoint_name);
CREATE INDEX checkpoint_deliveries_of ON checkpoint_deliveries (checkpoint_org_id, checkpoint_name);
CREATE INDEX checkpoint_delivery_attempts_of ON checkpoint_delivery_attempts (checkpoint_org_id, checkpoint_name);

-- Checkpoints taken before move over as they were, each table's JSON array read back into its rows (the columns of
-- a checkpoint table follow its two keys in the order of its table's, as LIKE made them just now).
INSERT INTO checkpoint_api_keys SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::api_keys, c.rows->'api_keys') r;
INSERT INTO checkpoint_webhook_endpoints SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::webhook_endpoints, c.rows->'webhook_endpoints') r;
INSERT INTO checkpoint_relay_endpoints SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::relay_endpoints, c.rows->'relay_endpoints') r;
INSERT INTO checkpoint_sandboxes SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::sandboxes, c.rows->'sandboxes') r;
INSERT INTO checkpoint_sandbox_links SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::sandbox_links, c.rows->'sandbox_links') r;
INSERT INTO checkpoint_events SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::events, c.rows->'events') r;
INSERT INTO checkpoint_deliveries SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::deliveries, c.rows->'deliveries') r;
INSERT INTO checkpoint_delivery_attempts SELECT c.org_id, c.name, r.*
  FROM org_checkpoints c, jsonb_populate_recordset(NULL::delivery_attempts, c.rows->'delivery_attempts') r;

ALTER TABLE org_checkpoints DROP COLUMN rows;

-- A checkpoint deleted (by name, or with its org) takes its rows with it: one statement per table for all the
-- checkpoints a statement deleted. No foreign key: checking one on each of 10,000 rows copied would cost as much
-- as the copy.
CREATE FUNCTION svc_checkpoint_rows_gone() RETURNS trigger LANGUAGE plpgsql AS $svc$
BEGIN
  DELETE FROM checkpoint_api_keys x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  DELETE FROM checkpoint_webhook_endpoints x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  DELETE FROM checkpoint_relay_endpoints x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  DELETE FROM checkpoint_sandboxes x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  DELETE FROM checkpoint_sandbox_links x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  DELETE FROM checkpoint_events x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  DELETE FROM checkpoint_deliveries x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  DELETE FROM checkpoint_delivery_attempts x USING gone g
   WHERE x.checkpoint_org_id = g.org_id AND x.checkpoint_name = g.name;
  RETURN NULL;
END $svc$;

CREATE TRIGGER org_checkpoints_rows_gone AFTER DELETE ON org_checkpoints
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION svc_checkpoint_rows_gone();
