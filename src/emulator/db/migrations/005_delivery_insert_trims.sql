-- Checks the fan-out statement made on every delivery row, each a lookup as costly as the row's own insert.
-- A delivery is written in the same statement as its event, for an endpoint of the same org, and both go
-- together: retention deletes deliveries and events by the same cut-off. Measured on PGlite: a delivery row
-- cost ~117 µs to insert with these two checks and ~79 µs without. The endpoint reference stays; deleting an
-- endpoint takes its deliveries with it.

ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_org_id_fkey;
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_event_id_fkey;
