#!/usr/bin/env python3
"""End-to-end check of the server's group barrier (`npm run e2e:groups`, docs/groups.md).

800 real math rollouts (examples/data/math-rollouts.jsonl: 100 prompts x 8 samples) under a spec with a group-stage
component (Kimi's `group-length` over `math` correctness) and GRPO advantages. `rewardkit score` gives the offline
values; then a live `rewardkit serve` gets the same rollouts, each carrying `group_size: 8`, sent:

  grouped-8      one request per rollout, 8 threads, groups in order (exactly one group in flight)
  grouped-64     one request per rollout, 64 threads, groups in order
  shuffled-all   one request per rollout, every request in flight at once, in random order
  mixed-batches  random requests of 1-16 rollouts from different groups, all in flight at once, random order
  partial        as shuffled-all with one member of every 10th group never sent: those groups end partial_group
                 after --group-wait-ms (every staged component unscorable, advantage null), the others are exact

Each level runs twice, at its own training step (so no level completes another's groups). Every staged score,
reward and advantage must equal the offline value (|diff| < 1e-9). Exit 0 when all hold.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bin", "rewardkit.js")
DATA = os.path.join(ROOT, "examples", "data", "math-rollouts.jsonl")
SPEC = """name: e2e-groups
components:
  - {name: acc, type: math}
  - {name: brevity, type: group-length, correctness: acc, unit: chars}
advantage:
  estimator: grpo
"""
WAIT_MS = 4000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, rollouts: list) -> list:
    body = json.dumps({"rollouts": rollouts}).encode()
    req = urllib.request.Request(url + "/v1/score", data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as res:
        return json.load(res)["results"]


def near(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) < 1e-9


def main() -> int:
    tmp = tempfile.mkdtemp(prefix="rk-e2e-groups-")
    spec = os.path.join(tmp, "spec.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    out = os.path.join(tmp, "offline.jsonl")
    subprocess.run(["node", BIN, "score", DATA, "--spec", spec, "-o", out, "-q"], check=True)
    rows = [json.loads(l) for l in open(DATA)]
    offline = {}
    for l in open(out):
        r = json.loads(l)
        offline[r["id"]] = (r["components"]["brevity"]["score"], r["reward"], r["advantage"])
    port = free_port()
    srv = subprocess.Popen(
        ["node", BIN, "serve", "--spec", spec, "--port", str(port), "--group-wait-ms", str(WAIT_MS)],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "server.log"), "w"), start_new_session=True,
    )
    url = "http://127.0.0.1:%d" % port
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        rng = random.Random(7)
        step = 0
        failed = 0

        def run(name: str, requests: list, threads: int, missing: set) -> None:
            nonlocal failed
            t0 = time.time()
            bad = []
            with cf.ThreadPoolExecutor(threads) as ex:
                for batch, results in zip(requests, ex.map(lambda b: post(url, b), requests)):
                    for r, res in zip(batch, results):
                        comp = (res.get("components") or {}).get("brevity") or {}
                        if r["group"] in missing:
                            ok = comp.get("reason") == "partial_group" and res.get("advantage") is None
                        else:
                            want = offline[r["id"]]
                            ok = near(comp.get("score"), want[0]) and near(res.get("reward"), want[1]) and near(res.get("advantage"), want[2])
                        if not ok:
                            bad.append((r["id"], comp.get("score"), comp.get("reason"), res.get("advantage"), offline[r["id"]]))
            n = sum(len(b) for b in requests)
            print("%-14s step %2d  %4d rollouts in %4d requests, %4d threads: %s  (%.1f s)" % (
                name, step, n, len(requests), threads, "ok" if not bad else "%d WRONG, e.g. %s" % (len(bad), bad[:2]), time.time() - t0))
            failed += bool(bad)

        for rep in range(2):
            for name in ("grouped-8", "grouped-64", "shuffled-all", "mixed-batches", "partial"):
                step += 1
                rs = [dict(r, group_size=8, step=step) for r in rows]
                missing: set = set()
                if name == "partial":
                    groups = sorted({r["group"] for r in rs})
                    missing = set(groups[::10])
                    drop = {g: None for g in missing}
                    kept = []
                    for r in rs:
                        if r["group"] in drop and drop[r["group"]] is None:
                            drop[r["group"]] = r["id"]  # the first member of the group is never sent
                            continue
                        kept.append(r)
                    rs = kept
                if name in ("shuffled-all", "partial", "mixed-batches"):
                    rng.shuffle(rs)
                if name == "mixed-batches":
                    requests, i = [], 0
                    while i < len(rs):
                        k = rng.randint(1, 16)
                        requests.append(rs[i : i + k])
                        i += k
                    # every request in flight at once: a request waits for all its groups, so a bounded pool of
                    # blocking senders can hold only requests whose missing members sit in the unsent ones
                    run(name, requests, len(requests), missing)
                else:
                    threads = {"grouped-8": 8, "grouped-64": 64}.get(name, len(rs))
                    run(name, [[r] for r in rs], threads, missing)
        metrics = urllib.request.urlopen(url + "/metrics", timeout=5).read().decode()
        print("\n".join(l for l in metrics.splitlines() if l.startswith("rewardkit_groups_ended_total") or l.startswith("rewardkit_group_members_waiting")))
        print("e2e groups: %s" % ("ok" if not failed else "FAILED (%d levels)" % failed))
        return 1 if failed else 0
    finally:
        os.killpg(srv.pid, signal.SIGTERM)
        srv.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
