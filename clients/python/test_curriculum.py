"""Tests of rewardkit_curriculum without torch: the weights list a sampler would get, from a file and a live endpoint.

    python3 clients/python/test_curriculum.py
"""

import http.server
import json
import os
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rewardkit_curriculum as rc  # noqa: E402

ROWS = [
    {"prompt_id": "a", "weight": 0.5, "pass_rate": 0.5, "attempts": 8},
    {"prompt_id": "b", "weight": 0.25, "pass_rate": 0.0, "attempts": 8},
    {"prompt_id": "7", "weight": 0.25, "pass_rate": 1.0, "attempts": 8},
]


class CurriculumTest(unittest.TestCase):
    def test_file_to_dataset_weights(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write("\n".join(json.dumps(r) for r in ROWS) + "\n")
        try:
            rows = rc.load_weights(f.name)
        finally:
            os.unlink(f.name)
        # dataset order, an int id matched as a string, an unseen prompt at the mean weight 1/3
        self.assertEqual(rc.dataset_weights(rows, ["b", "a", 7, "new"]), [0.25, 0.5, 0.25, 1 / 3])
        self.assertEqual(rc.dataset_weights(rows, ["new"], unseen=0.0), [0.0])

    def test_bad_rows_name_file_and_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write('{"prompt_id": "a", "weight": 1}\n{oops\n')
        try:
            with self.assertRaisesRegex(ValueError, r":2: not JSON"):
                rc.load_weights(f.name)
        finally:
            os.unlink(f.name)

    def test_endpoint(self):
        seen = {}

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                seen["path"] = self.path
                seen["auth"] = self.headers.get("Authorization")
                body = json.dumps({"strategy": "knapsack", "rows": ROWS}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        srv = http.server.HTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            rows = rc.load_weights(f"http://127.0.0.1:{srv.server_port}", strategy="knapsack", token="t", budget=64, smooth=True)
        finally:
            srv.shutdown()
        self.assertEqual(seen["path"], "/v1/curriculum?strategy=knapsack&budget=64&smooth=true")
        self.assertEqual(seen["auth"], "Bearer t")
        self.assertEqual([r["weight"] for r in rows], [0.5, 0.25, 0.25])

    def test_sampler_needs_torch_only_when_called(self):
        try:
            import torch  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError):
                rc.weighted_sampler([1.0, 2.0])
            return
        s = rc.weighted_sampler([0.0, 1.0], num_samples=5)
        self.assertEqual(list(s), [1, 1, 1, 1, 1])


if __name__ == "__main__":
    unittest.main()
