"""End-to-end scale-out run (`npm run e2e:scale`): the issue's "done when", on one machine, with real processes.

1. direct: a real redis-server and three `rewardkit serve --store` replicas; the Python client with urls=[A, B, C]
   scores 20 000 math rollouts while C's process group is SIGKILLed mid-call: every rollout answered exactly once, in
   input order, each with the reward one plain server (no store) gives it. Then a rollout scored on A is a store
   cache hit on B.
2. haproxy: C restarted, haproxy (deploy/haproxy/haproxy.cfg) in front of the three; the client with url=haproxy
   scores 20 000 more while B is SIGKILLed mid-call: the same checks.
3. --judge: a local OpenAI-compatible stub counting calls; three replicas serving a judge spec with rpm: 60 for
   `--judge-s` seconds (default 75): the stub must never see more than 60 calls in any 60 s window, over the fleet.

Usage: python3 scripts/e2e-scale.py [--rollouts N] [--judge] [--judge-s S] [--repeat K]. Needs redis-server and
haproxy (Debian packages) and a built dist/ (npm run build). Prints one line per check and exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from rewardkit_client import Client  # noqa: E402

PROCS: List[subprocess.Popen[bytes]] = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(args: List[str], env: Optional[Dict[str, str]] = None, log: Optional[str] = None) -> subprocess.Popen[bytes]:
    out = open(log, "wb") if log else subprocess.DEVNULL
    p = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ, **(env or {})})
    PROCS.append(p)
    return p


def kill(p: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def wait_http(url: str, timeout: float = 30.0) -> None:
    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except Exception:
            time.sleep(0.1)
    raise RuntimeError("no answer from %s within %.0f s" % (url, timeout))


def serve(spec: str, port: int, store: Optional[str], log: str) -> subprocess.Popen[bytes]:
    args = ["node", "bin/rewardkit.js", "serve", "--spec", spec, "--port", str(port)]
    if store:
        args += ["--store", store, "--shutdown-delay-ms", "1500"]
    p = start(args, log=log)
    wait_http("http://127.0.0.1:%d/healthz" % port)
    return p


def metric(port: int, name: str) -> float:
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
        text = r.read().decode()
    return sum(float(l.rsplit(" ", 1)[1]) for l in text.splitlines() if l.startswith(name))


def rollouts(n: int, salt: str, variant: int) -> List[Dict[str, Any]]:
    """`n` math rollouts from the bundled ones, each with its own id and group; `variant` (0, 1, …) makes every
    completion text differ from those of other variants (trailing spaces), so no run is served from an earlier one's
    cache."""
    rows = [json.loads(l) for l in open(os.path.join(ROOT, "examples/data/math-rollouts.jsonl"))]
    out: List[Dict[str, Any]] = []
    k = 0
    while len(out) < n:
        for r in rows:
            x = dict(r)
            x["id"] = "%s~%s~%d" % (salt, r["id"], k)
            x["group"] = "%s~%s~%d" % (salt, r.get("group"), k)
            x["completion"] = r["completion"] + (" " * variant) + ("\n" * (k + 1))  # no cache hit from another copy
            out.append(x)
        k += 1
    return out[:n]


def check_once(name: str, roll: List[Dict[str, Any]], res: List[Dict[str, Any]], truth: Dict[str, Any], t: float) -> bool:
    ids = [r["id"] for r in res]
    ok = ids == [r["id"] for r in roll] and len(set(ids)) == len(roll)
    wrong = [r["id"] for r in res if r.get("reward") != truth[r["id"]]]
    errors = [r for r in res if r.get("error")]
    print("%-8s %d rollouts in %.1f s (%.0f/s): answered once in order: %s; rewards equal to one plain server: %d/%d; error entries: %d"
          % (name, len(roll), t, len(roll) / t, ok, len(roll) - len(wrong), len(roll), len(errors)))
    return ok and not wrong and not errors


def scored_while_killing(client: Client, roll: List[Dict[str, Any]], victim: subprocess.Popen[bytes], after: float) -> Tuple[List[Dict[str, Any]], float]:
    threading.Timer(after, lambda: kill(victim)).start()
    t0 = time.time()
    res = client.score(roll)
    return res, time.time() - t0


class Stub(http.server.BaseHTTPRequestHandler):
    calls: List[float] = []
    lock = threading.Lock()

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers.get("content-length") or 0)
        self.rfile.read(n)
        with Stub.lock:
            Stub.calls.append(time.monotonic())
        body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Rating: [[7]]"}, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 50, "completion_tokens": 5}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a: Any) -> None:
        pass


def judge_run(store: str, seconds: float, tmp: str) -> bool:
    stub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    spec = os.path.join(tmp, "judge.yaml")
    with open(spec, "w") as f:
        f.write("name: judge-rpm\ncomponents:\n  - name: quality\n    type: judge\n    baseUrl: http://127.0.0.1:%d/v1\n"
                "    model: stub\n    template: 'Rate {{completion}}'\n    parse: {pattern: '\\[\\[(\\d+)\\]\\]', min: 1, max: 10}\n"
                "    rpm: 60\n    cache: false\n    timeoutMs: 600000\n" % stub.server_address[1])
    ports = [free_port() for _ in range(3)]
    reps = [serve(spec, p, store, os.path.join(tmp, "judge%d.log" % p)) for p in ports]
    client = Client(urls=["http://127.0.0.1:%d" % p for p in ports], batch_size=8, read_timeout=900)
    roll = [{"id": "j%d" % i, "group": "j%d" % i, "completion": "answer %d" % i} for i in range(int(seconds * 1.5) + 30)]
    def drive() -> None:
        try:
            client.score(roll)
        except Exception:  # the replicas are stopped once the window is measured; the rest is not needed
            pass

    threading.Thread(target=drive, daemon=True).start()
    time.sleep(seconds)
    with Stub.lock:
        calls = sorted(Stub.calls)
    worst = max((sum(1 for c in calls if t <= c < t + 60.0) for t in calls), default=0)
    for r in reps:
        kill(r)
    stub.shutdown()
    span = calls[-1] - calls[0] if len(calls) > 1 else 0.0
    ok = worst <= 60 and len(calls) >= min(60, int(seconds) - 5)
    print("judge    rpm 60 over 3 replicas for %.0f s: %d calls (%.2f/s over %.0f s), most in any 60 s window: %d (≤ 60: %s)"
          % (seconds, len(calls), (len(calls) - 1) / span if span else 0.0, span, worst, worst <= 60))
    return ok


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rollouts", type=int, default=20_000)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--judge", action="store_true")
    ap.add_argument("--judge-s", type=float, default=75.0)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rk-e2e-scale-")
    ok = True
    try:
        rport = free_port()
        start(["redis-server", "--port", str(rport), "--save", "", "--appendonly", "no"], log=os.path.join(tmp, "redis.log"))
        time.sleep(0.5)
        store = "redis://127.0.0.1:%d" % rport
        spec = "examples/math.yaml"
        plain_port = free_port()
        plain = serve(spec, plain_port, None, os.path.join(tmp, "plain.log"))
        for rep in range(a.repeat):
            ports = [free_port() for _ in range(3)]
            reps = [serve(spec, p, store, os.path.join(tmp, "r%d.log" % p)) for p in ports]
            urls = ["http://127.0.0.1:%d" % p for p in ports]
            roll = rollouts(a.rollouts, "d%d" % rep, 2 * rep)
            t0 = time.time()
            truth = {r["id"]: r.get("reward") for r in Client(url="http://127.0.0.1:%d" % plain_port, batch_size=1024).score(roll)}
            base = time.time() - t0
            print("plain    %d rollouts on one server without a store: %.1f s (%.0f/s): the reference rewards" % (len(roll), base, len(roll) / base))
            res, t = scored_while_killing(Client(urls=urls, batch_size=a.batch_size), roll, reps[2], base * 0.3)
            ok &= check_once("direct", roll, res, truth, t)
            # the cache across replicas: scored on A, a store hit on B
            one = {"rollouts": [dict(roll[0], id="cache-probe", group="cache-probe", completion=roll[0]["completion"] + " ")]}
            before = metric(ports[1], "rewardkit_store_cache_hits_total")
            for p in ports[:2]:
                req = urllib.request.Request("http://127.0.0.1:%d/v1/score" % p, json.dumps(one).encode(), {"content-type": "application/json"})
                urllib.request.urlopen(req, timeout=30).read()
            hit = metric(ports[1], "rewardkit_store_cache_hits_total") - before
            print("cache    a rollout scored on A is a store hit on B: %s (+%d)" % (hit > 0, hit))
            ok &= hit > 0
            # haproxy in front: C back, B killed mid-call
            reps[2] = serve(spec, ports[2], store, os.path.join(tmp, "r%d-again.log" % ports[2]))
            hport, sport = free_port(), free_port()
            env = {"REWARDKIT_BIND": "127.0.0.1:%d" % hport, "REWARDKIT_STATS_BIND": "127.0.0.1:%d" % sport}
            env.update({"REWARDKIT_%d" % (i + 1): "127.0.0.1:%d" % p for i, p in enumerate(ports)})
            hap = start(["haproxy", "-f", "deploy/haproxy/haproxy.cfg", "-db"], env=env, log=os.path.join(tmp, "haproxy.log"))
            wait_http("http://127.0.0.1:%d/readyz" % hport)
            time.sleep(1.5)  # every server seen up by the health checks
            roll2 = rollouts(a.rollouts, "h%d" % rep, 2 * rep + 1)
            truth2 = {r["id"]: r.get("reward") for r in Client(url="http://127.0.0.1:%d" % plain_port, batch_size=1024).score(roll2)}
            res2, t2 = scored_while_killing(Client(url="http://127.0.0.1:%d" % hport, batch_size=a.batch_size, unreachable_s=30), roll2, reps[1], base * 0.3)
            ok &= check_once("haproxy", roll2, res2, truth2, t2)
            kill(hap)
            for r in reps:
                kill(r)
        if a.judge:
            ok &= judge_run(store, a.judge_s, tmp)
        kill(plain)
    finally:
        for p in PROCS:
            kill(p)
    print("e2e:scale %s (logs in %s)" % ("passed" if ok else "FAILED", tmp))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
