-- Delivery engine: an insertion order for per-endpoint ordering (clock timestamps can tie),
-- lease ownership, and relay endpoints used by `svc listen`.

ALTER TABLE deliveries ADD COLUMN seq bigserial;
ALTER TABLE deliveries ADD COLUMN locked_by text;

-- Room on each page, so leasing a delivery (no indexed column changes) can be a HOT update.
ALTER TABLE deliveries SET (fillfactor = 70);

-- A relay endpoint is an ordinary webhook endpoint whose deliveries travel over the `svc listen` stream.
CREATE TABLE relay_endpoints (
  org_id       text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  name         text NOT NULL,
  endpoint_id  text NOT NULL UNIQUE REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (org_id, name)
);
