"""Tests of rewardkit_client over several replicas: rendezvous hashing, whole-group chunks, failover, request ids.

Self-contained: it starts its own ``rewardkit serve`` processes (the built CLI, ``node bin/rewardkit.js``; run
``npm run build`` first) and small stub servers in this process. Run by test/python-client.test.ts; by hand:

    npm run build && python3 clients/python/test_failover.py

Environment: ``RK_NODE`` (the node binary, default ``node``), ``RK_FAILOVER_RUNS`` (kill-a-replica runs per batch
size, 64 and 256; default 1), ``RK_FAILOVER_ROLLOUTS`` (rollouts per run, default 4000).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import io
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import unittest
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import rewardkit_client as rk  # noqa: E402

NODE = os.environ.get("RK_NODE", "node")
RUNS = int(os.environ.get("RK_FAILOVER_RUNS", "1"))
N_ROLLOUTS = int(os.environ.get("RK_FAILOVER_ROLLOUTS", "4000"))
ROWS = [json.loads(line) for line in open(os.path.join(ROOT, "examples/data/math-rollouts.jsonl"), encoding="utf-8")]


# -- helpers -------------------------------------------------------------------------------------------------
class Server:
    """A real ``rewardkit serve --spec examples/math.yaml`` in its own process group (so it can be SIGKILLed whole)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [NODE, os.path.join(ROOT, "bin/rewardkit.js"), "serve", "--spec", "examples/math.yaml", "--port", "0", *args],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
            text=True,
        )
        self.log: List[str] = []
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)
            m = re.search(r"on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.url = "http://127.0.0.1:%s" % m.group(1)
                break
        else:
            raise RuntimeError("rewardkit serve did not start: " + "".join(self.log))
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self._drainer.join(5)
        if self.proc.stderr is not None and not self._drainer.is_alive():
            self.proc.stderr.close()

    def score_requests(self) -> float:
        text = _get(self.url + "/metrics")
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith('rewardkit_requests_total{route="/v1/score"'))


def _get(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as res:
        return res.read().decode("utf-8")


def start_servers(n: int) -> List[Server]:
    out: List[Optional[Server]] = [None] * n

    def one(i: int) -> None:
        out[i] = Server()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if any(s is None for s in out):
        for s in out:
            if s is not None:
                s.kill()
        raise RuntimeError("a server did not start")
    return out  # type: ignore[return-value]


def math_rollouts(n: int, run: int = 0) -> List[Dict[str, Any]]:
    """``n`` rollouts copied from examples/data/math-rollouts.jsonl (groups of 8) with new ids and groups; copy ``k``
    of run ``run`` appends ``1 + k + 8 * run`` newlines, so every copy is scored afresh (no verdict cache hit)."""
    out: List[Dict[str, Any]] = []
    k = 0
    while len(out) < n:
        for r in ROWS:
            x = dict(r)
            x["id"] = "%s~%d~%d" % (r["id"], run, k)
            x["group"] = "%s~%d~%d" % (r["group"], run, k)
            x["completion"] = r["completion"] + "\n" * (1 + k + 8 * run)
            out.append(x)
        k += 1
    return out[:n]


Reply = Tuple[int, Dict[str, str], bytes]
Behaviour = Callable[["Stub", str, Dict[str, str], Any], Optional[Any]]


class Stub:
    """A tiny HTTP server recording every request (path, headers, JSON body). ``behave(stub, path, headers, body)``
    returns None (the normal answer: ``/v1/score`` echoes one result per rollout), ``"drop"`` (reset the connection
    without answering), ``("sleep", s)`` (answer after ``s`` seconds) or ``(status, headers, body)``."""

    def __init__(self, behave: Optional[Behaviour] = None, max_rollouts: int = 4096, readyz: bool = True) -> None:
        self.requests: List[Tuple[str, Dict[str, str], Any]] = []
        self.lock = threading.Lock()
        self.behave = behave
        self.max_rollouts = max_rollouts
        self.readyz = readyz
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _handle(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                body = json.loads(raw) if raw else None
                headers = {k.lower(): v for k, v in self.headers.items()}
                with stub.lock:
                    stub.requests.append((self.path, headers, body))
                act = stub.behave(stub, self.path, headers, body) if stub.behave else None
                if act == "drop":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if isinstance(act, tuple) and act[0] == "sleep":
                    time.sleep(act[1])
                    act = None
                status, extra, out = act if act is not None else stub.answer(self.path, body)
                self.send_response(status)
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            do_GET = _handle
            do_POST = _handle

            def finish(self) -> None:
                with contextlib.suppress(Exception):
                    super().finish()

            def log_message(self, *args: Any) -> None:
                pass

        class Quiet(http.server.ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self.server = Quiet(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def answer(self, path: str, body: Any) -> Reply:
        if path == "/v1/score":
            results = [{"id": str(r.get("id", i)), "reward": float(len(r.get("completion", ""))), "components": {}, "advantage": 0.0} for i, r in enumerate(body["rollouts"])]
            return 200, {}, json.dumps({"results": results, "spec": {"name": "stub", "hash": "h"}}).encode()
        if path == "/v1/spec":
            return 200, {}, json.dumps({"components": [], "limits": {"max_rollouts": self.max_rollouts}}).encode()
        if path == "/healthz" or (path == "/readyz" and self.readyz):
            return 200, {}, b'{"status":"ok"}'
        return 404, {}, b'{"error":{"code":"not_found","message":"no route"}}'

    def scores(self) -> List[Tuple[Dict[str, str], Any]]:
        with self.lock:
            return [(h, b) for p, h, b in self.requests if p == "/v1/score"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_port_url() -> str:
    """A URL nobody listens on (connection refused)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return "http://127.0.0.1:%d" % port


# -- rendezvous hashing and group ids ------------------------------------------------------------------------
class RendezvousTest(unittest.TestCase):
    URLS = ["http://10.0.0.%d:8787" % i for i in (1, 2, 3, 4)]

    def test_same_group_same_url_in_any_order_and_any_process(self) -> None:
        groups = ["g%d" % i for i in range(200)]
        first = {g: rk.rendezvous_order(g, self.URLS)[0] for g in groups}
        self.assertEqual(first, {g: rk.rendezvous_order(g, list(reversed(self.URLS)))[0] for g in groups})
        c1, c2 = rk.Client(urls=self.URLS), rk.Client(urls=",".join(reversed(self.URLS)))
        self.assertEqual([rk.rendezvous_order(g, c1.urls) for g in groups], [rk.rendezvous_order(g, c2.urls) for g in groups])
        # another interpreter (another PYTHONHASHSEED): the same choices
        code = "import json, sys; sys.path.insert(0, %r); import rewardkit_client as rk; print(json.dumps({g: rk.rendezvous_order(g, %r)[0] for g in %r}))" % (HERE, self.URLS, groups)
        other = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONHASHSEED="12345"), capture_output=True, text=True, check=True)
        self.assertEqual(json.loads(other.stdout), first)

    def test_removing_a_url_moves_only_its_groups(self) -> None:
        groups = ["group-%d" % i for i in range(1000)]
        for gone in self.URLS:
            rest = [u for u in self.URLS if u != gone]
            moved = 0
            for g in groups:
                before = rk.rendezvous_order(g, self.URLS)
                after = rk.rendezvous_order(g, rest)
                if before[0] != gone:
                    self.assertEqual(after[0], before[0], g)
                else:
                    moved += 1
                    self.assertEqual(after[0], before[1], g)  # its next choice: where failover sends it
            self.assertGreater(moved, 150)
            self.assertLess(moved, 350)

    def test_even_spread_over_three_urls(self) -> None:
        urls = ["http://127.0.0.1:%d" % p for p in (9001, 9002, 9003)]
        counts = {u: 0 for u in urls}
        for i in range(3000):
            counts[rk.rendezvous_order("math-%d~%d" % (i // 8, i % 8), urls)[0]] += 1
        for u, n in counts.items():
            self.assertGreaterEqual(n / 3000, 0.25, counts)
            self.assertLessEqual(n / 3000, 0.42, counts)

    def test_group_id_mirrors_the_server(self) -> None:
        prompts: List[Any] = ["What is 6*7?", [{"role": "user", "content": 'é ☃ "x"\n\t/'}], [{"role": "system", "content": "a"}, {"role": "user", "content": "b"}]]
        js = "import('./dist/io/rollout.js').then((m) => console.log(JSON.stringify(%s.map(m.promptGroup))))" % json.dumps(prompts, ensure_ascii=False)
        node = subprocess.run([NODE, "-e", js], cwd=ROOT, capture_output=True, text=True, check=True)
        self.assertEqual([rk.group_id({"prompt": p}) for p in prompts], json.loads(node.stdout))
        self.assertEqual(rk.group_id({"group": "q1", "prompt": "x"}), "q1")
        self.assertEqual(rk.group_id({"group": 7}), "7")
        self.assertEqual(rk.group_id({"group": 7.0}), "7")
        self.assertEqual(rk.group_id({"id": "a", "completion": "x"}), rk.group_id({"id": "a"}))
        self.assertNotEqual(rk.group_id({"completion": "x"}, 1), rk.group_id({"completion": "x"}, 2))

    def test_urls_from_arguments_and_environment(self) -> None:
        old = {k: os.environ.get(k) for k in ("REWARDKIT_URL", "REWARDKIT_URLS")}
        try:
            os.environ["REWARDKIT_URLS"] = " http://a:1/, http://b:2 ,http://a:1"
            os.environ["REWARDKIT_URL"] = "http://c:3"
            self.assertEqual(rk.Client().urls, ["http://a:1", "http://b:2"])
            self.assertEqual(rk.Client(url="http://d:4").urls, ["http://d:4"])  # an explicit url wins
            self.assertEqual(rk.Client(urls=["http://e:5", "http://f:6/"]).urls, ["http://e:5", "http://f:6"])
            self.assertEqual(rk._client_from({"rewardkit_urls": "http://g:7,http://h:8"}).urls, ["http://g:7", "http://h:8"])
            self.assertEqual(rk._client_from({"rewardkit_urls": ["http://g:7", "http://h:8"]}), rk._client_from({"rewardkit_urls": "http://g:7,http://h:8"}))
            del os.environ["REWARDKIT_URLS"]
            self.assertEqual(rk.Client().urls, ["http://c:3"])
            self.assertEqual(rk.Client().failover_retries, 2)
            self.assertEqual(rk.Client(urls="http://a:1,http://b:2,http://c:3").failover_retries, 6)
            with self.assertRaises(ValueError):
                rk.Client(url="http://a:1", urls=["http://b:2"])
            with self.assertRaises(ValueError):
                rk.Client(urls=["ftp://x"])
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


# -- chunking and failover against stub servers ---------------------------------------------------------------
class StubTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stubs: List[Stub] = []
        self.stderr = io.StringIO()
        self._redirect = contextlib.redirect_stderr(self.stderr)
        self._redirect.__enter__()

    def tearDown(self) -> None:
        self._redirect.__exit__(None, None, None)
        for s in self.stubs:
            s.close()

    def stub(self, behave: Optional[Behaviour] = None, **kw: Any) -> Stub:
        s = Stub(behave, **kw)
        self.stubs.append(s)
        return s

    def test_groups_never_split_and_results_in_input_order(self) -> None:
        stubs = [self.stub(max_rollouts=12) for _ in range(3)]
        urls = [s.url for s in stubs]
        # groups of 1..9 rollouts, interleaved (members of a group are not adjacent in the input); one group of 10
        # (over batch_size: alone, whole) and one of 30 (over max_rollouts: in parts of 12, 12, 6)
        rollouts: List[Dict[str, Any]] = []
        sizes = {("g%d" % i): 1 + (i * 7) % 9 for i in range(60)}
        sizes["big"], sizes["huge"] = 10, 30
        left = dict(sizes)
        while left:
            for g in list(left):
                rollouts.append({"id": "%s-%d" % (g, sizes[g] - left[g]), "group": g, "completion": "x" * (len(rollouts) % 13)})
                left[g] -= 1
                if not left[g]:
                    del left[g]
        rollouts.insert(5, {"completion": "no id", "prompt": "p"})  # id from its input position
        c = rk.Client(urls=urls, batch_size=8)
        res = c.score(rollouts)
        self.assertEqual(len(res), len(rollouts))
        self.assertEqual([r["id"] for r in res], [r.get("id", "5") for r in rollouts])
        self.assertEqual([r["reward"] for r in res], [float(len(r["completion"])) for r in rollouts])
        seen: Dict[str, Tuple[str, int]] = {}
        sent: Dict[str, int] = {}
        for s in stubs:
            for n, (headers, body) in enumerate(s.scores()):
                groups = [rk.group_id(r) for r in body["rollouts"]]
                self.assertEqual(headers["x-rewardkit-group"], groups[0])
                self.assertRegex(headers["x-rewardkit-request-id"], r"^[0-9a-f]{32}$")
                if len(set(groups)) > 1:
                    self.assertLessEqual(len(groups), 8)
                for g in set(groups):
                    self.assertEqual(rk.rendezvous_order(g, urls)[0], s.url, g)  # on its replica
                    if g != "huge":
                        self.assertNotIn(g, seen, "group %s in two requests" % g)
                    seen[g] = (s.url, n)
                    sent[g] = sent.get(g, 0) + groups.count(g)
        self.assertEqual(sent, {rk.group_id(r): sent[rk.group_id(r)] for r in rollouts})
        self.assertEqual(sum(sent.values()), len(rollouts))
        huge = [len(b["rollouts"]) for s in stubs for _, b in s.scores() if b["rollouts"][0].get("group") == "huge"]
        self.assertEqual(sorted(huge), [6, 12, 12])
        # the parts of the split group say how large it is, so a server with group-level components refuses them
        sizes_sent = {r.get("group_size") for s in stubs for _, b in s.scores() for r in b["rollouts"] if r.get("group") == "huge"}
        self.assertEqual(sizes_sent, {30})
        self.assertNotIn("group_size", next(r for s in stubs for _, b in s.scores() for r in b["rollouts"] if r.get("group") == "big"))
        big = [len(b["rollouts"]) for s in stubs for _, b in s.scores() if any(r.get("group") == "big" for r in b["rollouts"])]
        self.assertEqual(big, [10])
        self.assertEqual(self.stderr.getvalue().count("more than the server's max_rollouts=12"), 1)
        # the same groups go to the same replicas on the next call
        before = [len(s.scores()) for s in stubs]
        c.score(rollouts)
        self.assertEqual([len(s.scores()) - b for s, b in zip(stubs, before)], before)

    def test_one_url_sends_whole_groups_too(self) -> None:
        s = self.stub()
        rollouts = [{"id": str(i), "group": "g%d" % (i % 7), "completion": "x"} for i in range(70)]
        res = rk.Client(url=s.url, batch_size=16).score(rollouts, step=3)
        self.assertEqual([r["id"] for r in res], [str(i) for i in range(70)])
        bodies = [b for _, b in s.scores()]
        self.assertEqual(sorted(len(b["rollouts"]) for b in bodies), [10, 10, 10, 10, 10, 10, 10])
        self.assertTrue(all(b["step"] == 3 for b in bodies))
        self.assertTrue(all(h["x-rewardkit-step"] == "3" for h, _ in s.scores()))

    def test_the_same_request_id_after_a_dropped_connection(self) -> None:
        first = threading.Event()

        def drop_first(stub: Stub, path: str, headers: Dict[str, str], body: Any) -> Optional[Any]:
            if path == "/v1/score" and not first.is_set():
                first.set()
                return "drop"
            return None

        a, b = self.stub(drop_first), self.stub(drop_first)
        rollouts = [{"id": "r%d" % i, "group": "q", "completion": "abc"} for i in range(4)]
        c = rk.Client(urls=[a.url, b.url])
        res = c.score(rollouts)
        self.assertEqual([r["reward"] for r in res], [3.0] * 4)
        seen = a.scores() + b.scores()
        self.assertEqual(len(seen), 2)
        self.assertEqual(seen[0][0]["x-rewardkit-request-id"], seen[1][0]["x-rewardkit-request-id"])
        self.assertEqual({h["x-rewardkit-group"] for h, _ in seen}, {"q"})
        self.assertEqual(seen[0][1], seen[1][1])  # the same body
        top = rk.rendezvous_order("q", [a.url, b.url])[0]
        self.assertEqual(len((a if top == a.url else b).scores()), 1)  # failed on its replica, answered by the other
        self.assertEqual(c.failovers, 1)
        self.assertFalse(c.health()[top])
        self.assertIn("connection lost", self.stderr.getvalue())
        # one URL: the dropped request is retried there, with the same id
        first.clear()
        one = self.stub(drop_first)
        self.assertEqual(rk.Client(url=one.url).score(rollouts)[0]["reward"], 3.0)
        ids = [h["x-rewardkit-request-id"] for h, _ in one.scores()]
        self.assertEqual(len(ids), 2)
        self.assertEqual(ids[0], ids[1])
        # a new call: a new id
        rk.Client(url=one.url).score(rollouts)
        self.assertNotEqual(one.scores()[-1][0]["x-rewardkit-request-id"], ids[0])

    def test_5xx_and_read_timeout_fail_over_4xx_does_not(self) -> None:
        def failing(status: int) -> Behaviour:
            def behave(stub: Stub, path: str, headers: Dict[str, str], body: Any) -> Optional[Any]:
                return (status, {}, b'{"error":{"code":"x","message":"boom"}}') if path == "/v1/score" else None

            return behave

        for status in (500, 502, 503, 504):
            bad = self.stub(failing(status))
            good = self.stub()
            c = rk.Client(urls=[bad.url, good.url])
            groups = [g for g in ("g%d" % i for i in range(50)) if rk.rendezvous_order(g, c.urls)[0] == bad.url][:3]
            res = c.score([{"id": g, "group": g, "completion": "ab"} for g in groups])
            self.assertEqual([r["reward"] for r in res], [2.0] * 3, status)
            ids = {h["x-rewardkit-request-id"] for h, _ in bad.scores()}
            self.assertEqual(ids, {h["x-rewardkit-request-id"] for h, _ in good.scores()})
            self.assertFalse(c.health()[bad.url])
        slow = self.stub(lambda s, p, h, b: ("sleep", 1.5) if p == "/v1/score" else None)
        good = self.stub()
        c = rk.Client(urls=[slow.url, good.url], read_timeout=0.3)
        g = next(g for g in ("g%d" % i for i in range(50)) if rk.rendezvous_order(g, c.urls)[0] == slow.url)
        self.assertEqual(c.score([{"id": "x", "group": g, "completion": "abc"}])[0]["reward"], 3.0)
        self.assertEqual(len(slow.scores()), 1)
        self.assertEqual(slow.scores()[0][0]["x-rewardkit-request-id"], good.scores()[0][0]["x-rewardkit-request-id"])
        # one URL: a read timeout is not retried
        t = time.monotonic()
        with self.assertRaises(rk.RewardkitError) as e:
            rk.Client(url=slow.url, read_timeout=0.3).score([{"id": "x", "group": g, "completion": "abc"}])
        self.assertIn("no answer within read_timeout", str(e.exception))
        self.assertLess(time.monotonic() - t, 1.5)  # the stub answers after 1.5 s: not waited for
        self.assertEqual(len(slow.scores()), 2)
        # 400: raised at once, nothing re-sent
        refuse = self.stub(lambda s, p, h, b: (400, {}, b'{"error":{"code":"bad_request","message":"rollouts: nope"}}'))
        other = self.stub()
        with self.assertRaises(rk.RewardkitError) as e:
            rk.Client(urls=[refuse.url, other.url]).score([{"id": "x", "group": g2, "completion": "a"} for g2 in ("a", "b", "c", "d", "e", "f")])
        self.assertEqual(e.exception.status, 400)
        self.assertIn("rollouts: nope", str(e.exception))
        self.assertLessEqual(len(refuse.scores()), 2)  # one per chunk at most, never re-sent

    def test_429_waits_and_retries_the_same_replica(self) -> None:
        n = [0]

        def busy_once(stub: Stub, path: str, headers: Dict[str, str], body: Any) -> Optional[Any]:
            if path == "/v1/score":
                n[0] += 1
                if n[0] == 1:
                    return 429, {"Retry-After": "0"}, b'{"error":{"code":"overloaded","message":"queue full"}}'
            return None

        a, b = self.stub(busy_once), self.stub(busy_once)
        c = rk.Client(urls=[a.url, b.url])
        res = c.score([{"id": "x", "group": "q", "completion": "ab"}])
        self.assertEqual(res[0]["reward"], 2.0)
        top = rk.rendezvous_order("q", c.urls)[0]
        self.assertEqual([len(a.scores()), len(b.scores())], [2, 0] if top == a.url else [0, 2])
        self.assertEqual(c.health(), {a.url: True, b.url: True})

    def test_all_down_raises_unreachable_naming_every_url(self) -> None:
        urls = [free_port_url() for _ in range(3)]
        t = time.monotonic()
        with self.assertRaises(rk.RewardkitUnreachable) as e:
            rk.Client(urls=urls, unreachable_s=1.0).score([{"id": str(i), "group": str(i), "completion": "x"} for i in range(20)])
        took = time.monotonic() - t
        self.assertGreaterEqual(took, 1.0)
        self.assertLess(took, 5.0)
        for u in urls:
            self.assertIn(u, str(e.exception))
        self.assertEqual(e.exception.urls, urls)
        self.assertIn("Connection refused", str(e.exception))

    def test_down_replica_comes_back_after_a_probe_readyz_or_healthz(self) -> None:
        ready = threading.Event()

        def not_ready(stub: Stub, path: str, headers: Dict[str, str], body: Any) -> Optional[Any]:
            if path == "/readyz" and not ready.is_set():
                return 503, {}, b'{"status":"not ready"}'
            return None

        a = self.stub(not_ready)
        old = self.stub(readyz=False)  # a server without /readyz: /healthz decides
        c = rk.Client(urls=[a.url, old.url], backoff=0.05)
        ra, rold = c._replicas
        self.assertFalse(c._probe(ra))
        self.assertTrue(c._probe(rold))
        self.assertEqual([p for p, _, _ in old.requests], ["/readyz", "/healthz"])
        c._mark_down(ra, "test")
        g = next(g for g in ("g%d" % i for i in range(50)) if rk.rendezvous_order(g, c.urls)[0] == a.url)
        c.score([{"id": "x", "group": g, "completion": "a"}])
        self.assertEqual(len(a.scores()), 0)  # skipped while down
        self.assertEqual(len(old.scores()), 1)
        ready.set()
        deadline = time.monotonic() + 5
        while not c.health()[a.url] and time.monotonic() < deadline:
            c.score([{"id": "y", "group": "other", "completion": "a"}])  # each call starts the due probes
            time.sleep(0.05)
        self.assertTrue(c.health()[a.url])
        c.score([{"id": "x", "group": g, "completion": "a"}])
        self.assertEqual(len(a.scores()), 1)  # its groups are back
        self.assertIn("answers again", self.stderr.getvalue())


# -- real replicas --------------------------------------------------------------------------------------------
class ReplicasTest(unittest.TestCase):
    servers: List[Server] = []

    @classmethod
    def setUpClass(cls) -> None:
        cls.servers = start_servers(3)  # A, B: replicas; D: the single-server reference

    @classmethod
    def tearDownClass(cls) -> None:
        for s in cls.servers:
            s.kill()

    def test_shims_spread_over_replicas(self) -> None:
        a, b, d = self.servers
        urls = [a.url, b.url, d.url]
        kw = {"rewardkit_urls": ",".join(urls)}
        before = [s.score_requests() for s in self.servers]
        # verl, one sample per call: the calls spread over the replicas
        for i in range(12):
            row = rk.compute_score("math", "so \\boxed{%d}" % i, str(i), **kw)
            self.assertEqual(row["score"], 1.0)
        self.assertGreaterEqual(sum(1 for s, n in zip(self.servers, before) if s.score_requests() > n), 2)
        rows = rk.compute_score_batch(["math"] * 3, ["\\boxed{1}", "\\boxed{2}", "I have no idea."], ["1", "3", "1"], **kw)
        self.assertEqual([r["score"] for r in rows], [1.0, 0.0, 0.0])
        self.assertEqual([r["accuracy_unscorable"] for r in rows], [0.0, 0.0, 1.0])

        async def many() -> List[Dict[str, float]]:
            return await asyncio.gather(*[rk.compute_score_async("math", "\\boxed{%d}" % (i % 5), "3", **kw) for i in range(40)])

        client = rk._client_from(kw)
        sent = client.requests
        rows = asyncio.run(many())
        self.assertEqual([r["score"] for r in rows], [1.0 if i % 5 == 3 else 0.0 for i in range(40)])
        self.assertLessEqual(client.requests - sent, 3)  # coalesced: one batch, one request per replica
        # TRL: all functions share one score() call
        c = rk.Client(urls=urls)
        funcs = rk.trl_reward_funcs(c)
        prompts = ["6*7?"] * 3 + ["1+1?"] * 3
        completions = ["\\boxed{42}", "\\boxed{41}", "no idea", "\\boxed{2}", "\\boxed{2}", "\\boxed{3}"]
        sols = ["42"] * 3 + ["2"] * 3

        async def trl() -> List[Any]:
            return await asyncio.gather(*[f(prompts=prompts, completions=completions, completion_ids=None, solution=sols) for f in funcs])

        total, acc, _, _ = asyncio.run(trl())
        self.assertEqual(total, [1.0, 0.0, 0.0, 1.0, 1.0, 0.0])
        self.assertEqual(acc, [1.0, 0.0, None, 1.0, 1.0, 0.0])
        self.assertEqual(asyncio.run(rk.verifiers_reward("\\boxed{42}", "42", **kw)), 1.0)
        self.assertEqual(asyncio.run(rk.verifiers_component("accuracy")("\\boxed{4}", "42", prompt="6*7?", **kw)), 0.0)
        # the environment: REWARDKIT_URLS for default_client()
        old, rk._default = rk._default, None
        os.environ["REWARDKIT_URLS"] = ",".join(urls)
        try:
            self.assertEqual(rk.default_client().urls, urls)
            self.assertEqual(rk.compute_score("math", "\\boxed{5}", "5")["score"], 1.0)
        finally:
            del os.environ["REWARDKIT_URLS"]
            rk._default = old

    def test_a_replica_killed_mid_call(self) -> None:
        a, b, d = self.servers
        runs = [(bs, run) for run in range(RUNS) for bs in (64, 256)]
        for n, (batch_size, run) in enumerate(runs):
            with self.subTest(batch_size=batch_size, run=run):
                self.kill_one(a, b, d, batch_size, n)

    def test_a_group_whose_replica_dies_meets_on_the_next(self) -> None:
        """Members of one group sent one per request with ``group_size`` (as the verl shim sends them); the group's
        replica is SIGKILLed with half of them waiting at its barrier. The waiting requests fail over, with their
        request ids, to the group's next replica in rendezvous order; a second client (another process's view: the
        dead replica still looks healthy) sends the other half there after its connection is refused. The group meets
        there: the advantages equal a single server's over the whole group in one request."""
        a, b, d = self.servers
        c = Server()
        try:
            urls = [a.url, b.url, c.url]
            k = 0
            while rk.rendezvous_order("died~%d" % k, urls)[0] != c.url:
                k += 1
            group = "died~%d" % k
            # group math-6: rewards 0 1 1 0 1 0 0 0, so a group of one or a part of the group would show
            rows = [dict(r, id="died-%d" % i, group=group) for i, r in enumerate(ROWS[48:56])]
            whole = rk.Client(url=d.url).score(rows)
            self.assertEqual([w["reward"] for w in whole], [0, 1, 1, 0, 1, 0, 0, 0])
            held = [dict(r, group_size=8, step=5) for r in rows]
            out: Dict[str, Dict[str, Any]] = {}
            first, second = rk.Client(urls=urls, unreachable_s=20), rk.Client(urls=urls, unreachable_s=20)

            def send(client: rk.Client, r: Dict[str, Any]) -> None:
                out[r["id"]] = client.score([r])[0]

            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                early = [threading.Thread(target=send, args=(first, r)) for r in held[:4]]
                for t in early:
                    t.start()
                deadline = time.monotonic() + 20
                while "rewardkit_group_members_waiting 4" not in _get(c.url + "/metrics") and time.monotonic() < deadline:
                    time.sleep(0.05)
                c.kill()
                late = [threading.Thread(target=send, args=(second, r)) for r in held[4:]]
                for t in late:
                    t.start()
                for t in early + late:
                    t.join(60)
            self.assertEqual(sorted(out), sorted(r["id"] for r in rows))
            for r, w in zip(rows, whole):
                self.assertNotIn("error", out[r["id"]])
                self.assertAlmostEqual(out[r["id"]]["advantage"], w["advantage"], places=12)
            self.assertFalse(first.health()[c.url])
            self.assertFalse(second.health()[c.url])
        finally:
            c.kill()

    def kill_one(self, a: Server, b: Server, d: Server, batch_size: int, run: int) -> None:
        c = Server()
        try:
            rollouts = math_rollouts(N_ROLLOUTS, run)
            single = rk.Client(url=d.url).score(rollouts[:400])
            client = rk.Client(urls=[a.url, b.url, c.url], batch_size=batch_size)
            killed: List[float] = []
            once = threading.Lock()
            t0 = time.monotonic()

            def kill() -> None:
                if once.acquire(blocking=False):
                    killed.append(time.monotonic() - t0)
                    c.kill()

            # ~1 s into the call, or sooner when a fast machine has answered 40 % of the rollouts: always mid-call
            answered = [0]
            collect = client._collect

            def counting(rollouts: Any, chunk: Any, answer: Any, out: Any) -> None:
                collect(rollouts, chunk, answer, out)
                answered[0] += len(chunk.indices)
                if answered[0] >= 0.4 * N_ROLLOUTS:
                    threading.Thread(target=kill).start()

            client._collect = counting  # type: ignore[method-assign]
            timer = threading.Timer(1.0, kill)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                timer.start()
                res = client.score(rollouts)
            took = time.monotonic() - t0
            timer.join()
            self.assertTrue(killed and killed[0] < took, "the replica was killed after the call (%.2f s)" % took)
            self.assertEqual(len(res), len(rollouts))
            self.assertEqual([r["id"] for r in res], [r["id"] for r in rollouts])  # each id once, in input order
            self.assertTrue(all("error" not in r for r in res))
            self.assertEqual([r["reward"] for r in res[:400]], [r["reward"] for r in single])
            self.assertEqual([r["advantage"] for r in res[:400]], [r["advantage"] for r in single])  # whole groups
            self.assertFalse(client.health()[c.url])
            self.assertGreaterEqual(client.failovers, 1)  # requests in flight on the killed replica were re-sent
            self.assertIn("%s failed" % c.url, err.getvalue())
            sys.stderr.write(
                "  kill run %d: batch_size %d, %d rollouts in %.2f s, replica killed at %.2f s, %d re-sent, %d requests\n"
                % (run, batch_size, len(rollouts), took, killed[0], client.failovers, client.requests)
            )
        finally:
            c.kill()


if __name__ == "__main__":
    unittest.main(verbosity=1)
