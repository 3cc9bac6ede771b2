-- Checkpoints of single orgs (`svc emulator orgs checkpoint ORG NAME`): every row of the org at one moment, kept as
-- JSON (one array per table, in `rows`), with the org's time then, so a rewind puts the org back exactly. Kept in
-- the database, so every process sharing a PostgreSQL can rewind to a checkpoint another took.
CREATE TABLE org_checkpoints (
  org_id     text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  name       text NOT NULL,
  -- real time it was taken at; clock_ms the org's own time then (epoch milliseconds), own_clock whether the org
  -- had a clock of its own
  taken_at   timestamptz NOT NULL,
  clock_ms   bigint NOT NULL,
  own_clock  boolean NOT NULL,
  counts     jsonb NOT NULL,
  rows       jsonb NOT NULL,
  seq        bigserial,
  PRIMARY KEY (org_id, name)
);
