# A seeded bug for `svc webhooks test-receiver --race`: a receiver that checks whether it has seen an event, then
# (after a database round trip) records it, on a threaded server. Two attempts of one event arriving together both
# pass the check and both apply the side effect. GET /probe?event_id=… answers {"applied": <count>}.
# Run: SVC_WEBHOOK_SECRET=whsec_… PORT=0 python3 check_then_insert.py (the standard library only).
import hashlib, hmac, json, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

SECRET = os.environ["SVC_WEBHOOK_SECRET"].encode("utf-8")
TOLERANCE = 300
seen = set()
applied = {}
count_lock = threading.Lock()  # the side effect's own counter is exact; the dedupe in front of it is not


def verify(header, body, now):
    entries = [part.strip().split("=", 1) for part in header.split(",") if "=" in part]
    timestamps = [value for name, value in entries if name == "t"]
    if len(timestamps) != 1 or not timestamps[0].isdigit():
        return False
    if abs(now - int(timestamps[0])) > TOLERANCE:
        return False
    expected = hmac.new(SECRET, timestamps[0].encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, value) for name, value in entries if name == "v1")


class Receiver(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/probe":
            return self.answer(404, {"error": "not found"})
        event_id = parse_qs(url.query).get("event_id", [""])[0]
        with count_lock:
            self.answer(200, {"applied": applied.get(event_id, 0)})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not verify(self.headers.get("Svc-Signature", ""), body, int(time.time())):
            return self.answer(400, {"error": "bad signature"})
        event = json.loads(body)
        if event["id"] in seen:  # the check…
            return self.answer(200, {"duplicate": True})
        time.sleep(0.01)  # …a database round trip…
        seen.add(event["id"])  # …and the insert, too late
        with count_lock:
            applied[event["id"]] = applied.get(event["id"], 0) + 1
        self.answer(200, {"handled": True})

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "0"))), Receiver)
print(f"listening on http://127.0.0.1:{server.server_port}/webhooks", flush=True)
server.serve_forever()
