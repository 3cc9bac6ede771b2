# A webhook receiver that uses nothing of svc: the Python standard library checks each delivery's Svc-Signature by
# the documented rule (HMAC-SHA256, keyed by the whole signing secret's UTF-8 bytes, over "<t>.<raw body>", hex;
# any of several v1 entries may match; t within 300 s either way). It prints its port, then one JSON line per
# delivery it accepted. The secret is read from the file named on the command line at each request, so the receiver
# can listen before the endpoint that sends to it (and its secret) exists.
import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 300


def verify(secret, header, body):
    timestamp = None
    signatures = []
    for entry in header.split(","):
        name, _, value = entry.strip().partition("=")
        if name == "t":
            timestamp = value
        elif name == "v1":
            signatures.append(value)
    if timestamp is None or not timestamp.lstrip("-").isdigit():
        return False
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    message = timestamp.encode("ascii") + b"." + body
    expected = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()
    return any(len(s) == 64 and hmac.compare_digest(s, expected) for s in signatures)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            with open(sys.argv[1], encoding="utf-8") as f:
                secret = f.read().strip()
        except OSError:
            secret = ""
        header = self.headers.get("Svc-Signature") or ""
        accepted = bool(secret) and verify(secret, header, body)
        self.send_response(200 if accepted else 400)
        self.send_header("Content-Length", "0")
        self.end_headers()
        if accepted:
            event = json.loads(body)
            line = {"id": event.get("id"), "type": event.get("type"), "header": header, "body": body.decode("utf-8")}
            print(json.dumps(line), flush=True)

    def log_message(self, format, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Receiver)
print(server.server_address[1], flush=True)
server.serve_forever()
