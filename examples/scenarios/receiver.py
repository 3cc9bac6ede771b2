"""A webhook receiver in Python, standard library only, as the example scenarios test it.

It verifies each delivery's Svc-Signature with SVC_WEBHOOK_SECRET, applies each event once (by its id) and
answers the probe: GET /probe?event_id=<id> -> {"applied": <count>}. It listens on 127.0.0.1:$PORT.
RECEIVER_BUG seeds one mistake, for the tests that show a scenario catching it:
  no-dedupe       applies every attempt, duplicates included
  refuse-retries  answers 500 to any attempt after the first
  refuse-expired  answers 500 to sandbox.expired
"""
import hashlib
import hmac
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

SECRET = os.environ["SVC_WEBHOOK_SECRET"].encode()
BUG = os.environ.get("RECEIVER_BUG", "")
TOLERANCE_S = 300

lock = threading.Lock()
applied = {}


def verified(header, body):
    parts = dict(p.split("=", 1) for p in (header or "").split(",") if "=" in p)
    try:
        t = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - t) > TOLERANCE_S:
        return False
    expected = hmac.new(SECRET, str(t).encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts.get("v1", ""))


class Receiver(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/probe":
            return self.answer(404, {"error": "not found"})
        event_id = parse_qs(url.query).get("event_id", [""])[0]
        with lock:
            return self.answer(200, {"applied": applied.get(event_id, 0)})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if not verified(self.headers.get("svc-signature"), body):
            return self.answer(400, {"error": "signature"})
        event = json.loads(body)
        attempt = int(self.headers.get("svc-delivery-attempt", "1"))
        if BUG == "refuse-retries" and attempt > 1:
            return self.answer(500, {"error": "replayed?"})
        if BUG == "refuse-expired" and event["type"] == "sandbox.expired":
            return self.answer(500, {"error": "unknown event"})
        with lock:
            seen = event["id"] in applied
            if BUG == "no-dedupe" or not seen:
                applied[event["id"]] = applied.get(event["id"], 0) + 1
        return self.answer(200, {"received": True})

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Receiver).serve_forever()
