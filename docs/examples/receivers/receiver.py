# receiver.py: a webhook receiver with the standard library only that passes every check of
# `svc webhooks test-receiver`, the later service's deliveries (--future) and the race with its probe
# (--race --probe) included. Run it with
#   SVC_WEBHOOK_SECRET=whsec_… python3 receiver.py
# and grade it with
#   SVC_WEBHOOK_SECRET=whsec_… svc webhooks test-receiver http://127.0.0.1:3000/webhooks \
#     --race --probe http://127.0.0.1:3000/svc-probe --burst 20/s:5s
# The guide that explains each step is docs/receivers.md.
import hashlib
import hmac
import json
import os
import queue
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

SECRET = os.environ["SVC_WEBHOOK_SECRET"].encode("utf-8")  # the whole whsec_… string is the key
TOLERANCE = 300  # seconds, either way
BODY_LIMIT = 1024 * 1024  # events reach hundreds of KiB; 1 MiB leaves room

handled_events = set()  # stand-ins for your database: a unique key on the event id…
applied = {}  # …and what the probe reports
lock = threading.Lock()
work = queue.Queue()


def verify(header, body, now):
    """True when one v1 entry is the HMAC of "t.body" (the raw bytes) and t is within the tolerance."""
    entries = [part.strip().split("=", 1) for part in header.split(",") if "=" in part]
    timestamps = [value for name, value in entries if name == "t"]
    if len(timestamps) != 1 or not timestamps[0].isdigit():
        return False
    if abs(now - int(timestamps[0])) > TOLERANCE:
        return False
    expected = hmac.new(SECRET, timestamps[0].encode() + b"." + body, hashlib.sha256).hexdigest()
    # Every v1 entry is tried (a rotated secret signs twice); other schemes (v0, v2) are ignored.
    return any(hmac.compare_digest(expected, value) for name, value in entries if name == "v1")


def insert_event(event_id):
    """INSERT … ON CONFLICT DO NOTHING, in one step: True when this call inserted the row."""
    with lock:
        if event_id in handled_events:
            return False
        handled_events.add(event_id)
        applied[event_id] = applied.get(event_id, 0) + 1
        return True


def handle(event):
    """The side effects, from a queue after the answer: a burst never waits for them."""
    sandbox = event.get("data", {}).get("sandbox", {})
    kind = event.get("type")
    if kind == "sandbox.ready":
        until = sandbox.get("expires_at")  # optional: read it as such
        print(f"{sandbox.get('name')} is ready" + (f" until {until}" if until else ""), flush=True)
    elif kind == "sandbox.error":
        print(f"{sandbox.get('name')} failed: {sandbox.get('last_error') or 'no reason given'}", flush=True)
    elif kind in ("sandbox.stopped", "sandbox.expired"):
        print(f"{sandbox.get('name')} is {sandbox.get('status')}", flush=True)
    # Anything else is a type added later: acknowledged (it was recorded) and otherwise ignored.


def worker():
    while True:
        event = work.get()
        try:
            handle(event)
        except Exception as err:  # a failed side effect is logged, never turned into a refused delivery
            print(f"handling {event.get('id')} failed: {err}", flush=True)


class Receiver(BaseHTTPRequestHandler):
    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        # The probe (serve it only where your tests reach it): how many times this event's effect was taken on.
        url = urlparse(self.path)
        if url.path != "/svc-probe":
            return self.answer(404)
        event_id = parse_qs(url.query).get("event_id", [""])[0]
        with lock:
            count = applied.get(event_id, 0)
        self.answer(200, json.dumps({"applied": count}).encode())

    def do_POST(self):
        # The exact path registered, no redirect to another one.
        if urlparse(self.path).path != "/webhooks":
            return self.answer(404)
        length = int(self.headers.get("Content-Length", 0))
        if length > BODY_LIMIT:
            self.close_connection = True
            return self.answer(413)
        body = self.rfile.read(length)  # the raw bytes: verified before anything parses them
        if not verify(self.headers.get("Svc-Signature", ""), body, int(time.time())):
            return self.answer(400, b'{"error":"invalid signature"}')
        event = json.loads(body)
        # Record first, in one atomic step, then queue the work; a repeat is answered 2xx and not handled again.
        if insert_event(event["id"]):
            work.put(event)
        self.answer(200, b'{"received":true}')

    def log_message(self, *args):
        pass


threading.Thread(target=worker, daemon=True).start()
server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "3000"))), Receiver)
print(f"listening on http://127.0.0.1:{server.server_port}/webhooks", flush=True)
server.serve_forever()
