-- Sandbox links across processes sharing one PostgreSQL: whether a link works depends on its key, its sandbox and
-- its own row. Writes to api_keys already tell every process (008); writes to sandboxes and sandbox_links now do
-- too, so traffic flowing through a link held by another process is cut as soon as its sandbox stops.
CREATE TRIGGER sandboxes_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sandboxes
  FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_change();

CREATE TRIGGER sandbox_links_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sandbox_links
  FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_change();
