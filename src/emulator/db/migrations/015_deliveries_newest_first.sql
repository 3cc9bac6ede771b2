-- Newest first: a list of deliveries orders by created_at, then by the order the emulator created them (seq),
-- never by id. On a manual clock every delivery of one instant shares created_at, and ids are random, so the
-- last trigger read back as data[0] only by chance, and the 100-row cut kept an arbitrary subset of a tie.
DROP INDEX IF EXISTS deliveries_endpoint_created;
CREATE INDEX deliveries_endpoint_newest ON deliveries (endpoint_id, created_at DESC, seq DESC);
