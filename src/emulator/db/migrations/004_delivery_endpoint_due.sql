-- Each endpoint's due deliveries in lane order, so a claim reads only the rows it hands out (one short
-- index range per endpoint) instead of sorting every pending delivery of every endpoint.

CREATE INDEX deliveries_endpoint_due ON deliveries (endpoint_id, next_attempt_at, seq) WHERE status = 'pending';
