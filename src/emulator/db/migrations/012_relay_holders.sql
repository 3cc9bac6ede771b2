-- Who forwards each relay endpoint: one `svc listen` at a time across every emulator process sharing the
-- database. A row is a lease: the process holding the listener's stream renews it while the stream lives, drops it
-- on a clean disconnect, and a process that dies without a word leaves it to run out (expires_at, the database's
-- own clock, so processes on machines whose clocks differ agree on it). No foreign key: the row outlives neither
-- its stream nor its lease, and the tables a state load empties stay as they were.
CREATE TABLE relay_holders (
  endpoint_id  text PRIMARY KEY,
  -- The run of `svc listen` (random per run: a run that reconnects takes its own place back).
  listener_id  text NOT NULL,
  pid          integer,
  host         text,
  since        timestamptz NOT NULL,
  -- The emulator process that holds (or is about to hold) the listener's stream, and so sends the relay's attempts.
  process_id   text NOT NULL,
  expires_at   timestamptz NOT NULL
);
