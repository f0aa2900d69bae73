#!/usr/bin/env python3
"""A Curio webhook receiver on Python's standard library only (http.server, hmac, hashlib).

    WEBHOOK_SECRET=whsec_... PORT=4000 python3 docs/examples/webhook_receiver.py

It reads the raw body, checks X-Service-Signature-256 against it in constant time (401 otherwise),
answers 204 at once, skips a delivery id it has already handled (a retry), and only then handles the
event. WEBHOOK_SECRET may hold several secrets separated by commas (while you rotate one).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import threading
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY_BYTES = 1024 * 1024  # Curio never sends a larger body
REMEMBERED_DELIVERIES = 10_000  # in memory here; a real receiver keeps them in its database


def verify_signature(secret: str, raw_body: bytes, header: str | None) -> bool:
    """Whether header ("sha256=<hex>") is the HMAC-SHA256 of the raw body under secret (the whole whsec_... string)."""
    if not header or not header.startswith("sha256="):
        return False
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("utf-8"), header.encode("utf-8"))


SECRETS = [s.strip() for s in os.environ.get("WEBHOOK_SECRET", "").split(",") if s.strip()]
_seen: OrderedDict[str, None] = OrderedDict()
_seen_lock = threading.Lock()


def handle_event(event: dict, delivery_id: str) -> None:
    # Your work goes here: update a record, enqueue a job, notify someone...
    print(f"handled {delivery_id}: {json.dumps(event)}", flush=True)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            return self.answer(411, "no Content-Length")
        if length < 0 or length > MAX_BODY_BYTES:
            self.close_connection = True
            return self.answer(413, "body too large")
        raw = self.rfile.read(length)

        # 1. Authenticate the exact bytes received, before anything else.
        signature = self.headers.get("X-Service-Signature-256")
        if not any(verify_signature(secret, raw, signature) for secret in SECRETS):
            return self.answer(401, "bad signature" if signature else "no signature")
        # 2. Only now parse. The event name is taken from the signed body, not from a header.
        try:
            event = json.loads(raw)
        except ValueError:
            return self.answer(400, "not JSON")
        # 3. A retry carries the same delivery id: acknowledge it again, handle it once.
        delivery_id = self.headers.get("X-Service-Delivery", "")
        with _seen_lock:
            duplicate = delivery_id in _seen
            if delivery_id and not duplicate:
                _seen[delivery_id] = None
                if len(_seen) > REMEMBERED_DELIVERIES:
                    _seen.popitem(last=False)
        if duplicate:
            print(f"duplicate {delivery_id}", flush=True)
            return self.answer(204)

        # 4. Answer first (Curio waits 10 s at most), then do the work.
        self.answer(204)
        print(f"accepted {delivery_id} {event.get('event')}", flush=True)
        handle_event(event, delivery_id)

    def answer(self, status: int, why: str = "") -> None:
        if why:
            print(f"refused {status} {why}", flush=True)
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per request is printed above


if __name__ == "__main__":
    if not SECRETS:
        sys.exit("Set WEBHOOK_SECRET to the signing secret (whsec_...) of your subscription")
    server = ThreadingHTTPServer(("", int(os.environ.get("PORT", "4000"))), Receiver)
    print(f"listening on http://localhost:{server.server_address[1]}/", flush=True)
    server.serve_forever()
