-- Nothing reads deliveries_due any more: claims and the next due time walk each endpoint's range of
-- deliveries_endpoint_due instead. Every pending delivery written (each fan-out, each retry) kept an entry in it.
DROP INDEX IF EXISTS deliveries_due;
