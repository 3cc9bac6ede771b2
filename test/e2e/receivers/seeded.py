# A webhook receiver in Python (the standard library only) seeded with one bug of those that break receivers in
# production, chosen by BUG; BUG=none is the reference, which has none. It prints the address it listens on, serves
# the probe contract at GET /probe (how many times an event was applied) and verifies Svc-Signature over the raw
# body unless the bug is in the verifying. Run by test/e2e/webhooks-test-receiver-python.test.ts.
import fcntl
import hashlib
import hmac
import json
import os
import socket
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

BUG = os.environ.get("BUG", "none")
SECRET = os.environ["SVC_WEBHOOK_SECRET"].encode()
TOLERANCE = 300
KNOWN_TYPES = {"sandbox.ready", "sandbox.stopped", "sandbox.error", "sandbox.expired"}
KNOWN_STATUSES = {"running", "stopped", "error", "standby", "deleting"}
KNOWN_FIELDS = {
    "event": {"id", "type", "created_at", "org_id", "data"},
    "data": {"sandbox"},
    "sandbox": {"id", "name", "status", "desired_state", "created_at", "expires_at", "last_error", "org_id"},
}
# The applications of each event, in a file every process of this receiver appends to (a stand-in for a table).
LEDGER = os.environ.get("LEDGER") or os.path.join(tempfile.mkdtemp(prefix="seeded-receiver-"), "applied")
open(LEDGER, "w").close()
lock = threading.Lock()
seen = set()  # the dedupe's ids: in this process's memory


def apply(event_id):
    with open(LEDGER, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(event_id + "\n")


def applied(event_id):
    with open(LEDGER) as f:
        return sum(1 for line in f if line.strip() == event_id)


def verify(header, body):
    secret = b"whsec_c29tZSBvdGhlciBlbmRwb2ludCdzIHNlY3JldA==" if BUG == "wrong-secret" else SECRET
    now = int(time.time()) + (600 if BUG == "clock-skew" else 0)  # clock-skew: this machine's clock runs 10 min ahead
    entries = [part.strip().split("=", 1) for part in (header or "").split(",") if "=" in part]
    stamps = [v for k, v in entries if k == "t"]
    if len(stamps) != 1 or not stamps[0].isdigit():
        return "no timestamp"
    if abs(now - int(stamps[0])) > TOLERANCE:
        return "the signature timestamp is outside the tolerance (too old)"
    if BUG == "parsed-body":
        # Parsed, then serialised again before the HMAC: the same bytes only when the sender wrote compact JSON.
        body = json.dumps(json.loads(body), separators=(",", ":"), ensure_ascii=False).encode()
    expected = hmac.new(secret, stamps[0].encode() + b"." + body, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, v) for k, v in entries if k == "v1"):
        return "no v1 signature matches"
    return None


def unknown_fields(event):
    sandbox = event.get("data", {}).get("sandbox", {})
    for name, value in (("event", event), ("data", event.get("data", {})), ("sandbox", sandbox)):
        for key in value:
            if key not in KNOWN_FIELDS[name]:
                return f"{name}.{key}"
    return None


class Sandbox:
    """A mapper that takes every field into a typed record, and has no slot for one it does not know."""

    __slots__ = tuple(KNOWN_FIELDS["sandbox"])

    def __init__(self, fields):
        for key, value in fields.items():
            setattr(self, key, value)  # AttributeError on a field added later


work_lock = threading.Lock()


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        event_id = parse_qs(url.query).get("event_id", [""])[0]
        self.answer(200, json.dumps({"applied": applied(event_id)}).encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        if BUG == "trailing-slash" and not self.path.endswith("/"):
            self.rfile.read(length)
            return self.answer(308, headers=[("Location", self.path + "/")])
        if BUG == "body-limit" and length > 100 * 1024:  # a framework's default of 100 KiB
            self.close_connection = True
            return self.answer(413, b'{"error":"request entity too large"}')
        body = self.rfile.read(length)
        refused = verify(self.headers.get("Svc-Signature"), body)
        if refused:
            return self.answer(400, json.dumps({"error": refused}).encode())
        event = json.loads(body)
        sandbox = event.get("data", {}).get("sandbox", {})
        if BUG == "strict-enum" and sandbox.get("status") not in KNOWN_STATUSES:
            return self.answer(422, json.dumps({"error": f"unknown status {sandbox.get('status')}"}).encode())
        if BUG == "additional-properties":
            extra = unknown_fields(event)
            if extra:
                return self.answer(422, json.dumps({"error": f"additional property {extra}"}).encode())
        if BUG == "switch-default-400" and event.get("type") not in KNOWN_TYPES:
            return self.answer(400, b"Bad Request")
        if BUG == "throw-unknown-field":
            try:
                Sandbox(sandbox)
            except AttributeError as err:
                return self.answer(500, json.dumps({"error": f"Traceback: AttributeError: {err}"}).encode())
        if BUG == "work-before-answer":
            with work_lock:  # one database connection: each delivery's work waits for the ones before it
                time.sleep(0.8)
        if BUG == "check-then-insert":
            if event["id"] in seen:
                return self.answer(200, b'{"duplicate":true}')
            time.sleep(0.005)  # SELECT …; then INSERT …: a round trip between the check and the insert
            seen.add(event["id"])
        else:
            with lock:  # one step, as a unique constraint is; in memory, so per process
                if event["id"] in seen:
                    return self.answer(200, b'{"duplicate":true}')
                seen.add(event["id"])
        apply(event["id"])
        self.answer(200, b'{"received":true}')

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True


sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", int(os.environ.get("PORT", "0"))))
sock.listen(128)
port = sock.getsockname()[1]
# per-process-dedupe: three processes take connections from one socket, as a pre-forking server's workers do,
# each with its own memory; every other receiver is one process.
workers = 3 if BUG == "per-process-dedupe" else 1
parent = os.getpid()
for _ in range(workers - 1):
    if os.fork() == 0:
        # A worker ends with the receiver it was forked from.
        def watch():
            while os.getppid() == parent:
                time.sleep(0.2)
            os._exit(0)

        threading.Thread(target=watch, daemon=True).start()
        break
server = Server(("127.0.0.1", port), Receiver, bind_and_activate=False)
server.socket = sock
if os.getpid() == parent:
    print(f"listening on http://127.0.0.1:{port}/webhooks", flush=True)
server.serve_forever()
