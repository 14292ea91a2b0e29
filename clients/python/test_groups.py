"""Group identity in each trainer shim (docs/groups-trainers.md), without a server, and, with one, end to end.

Unit tests (always): how each shim names a sample's group, its size and its id from what the trainer passes, at the
commits read: verl-project/verl @1dda039b, huggingface/trl @f2cd5771, OpenRLHF/OpenRLHF @3c3be623 (server side:
src/server/openrlhf.ts), PrimeIntellect-ai/verifiers @a60a606e.

End to end (when REWARDKIT_GROUPS_URL is set; test/python-groups.test.ts starts a server for the spec below and writes
the offline ``rewardkit score`` of the same rollouts to REWARDKIT_GROUPS_OFFLINE, one JSON object per line):

    components:
      - {name: acc, type: math}
      - {name: brevity, type: group-length, correctness: acc, unit: chars}
    advantage: {estimator: grpo}
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import multiprocessing
import os
import sys
import threading
import types
import unittest
import urllib.request
from contextlib import redirect_stderr
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rewardkit_client as rk  # noqa: E402

URL = os.environ.get("REWARDKIT_GROUPS_URL", "")
OFFLINE = os.environ.get("REWARDKIT_GROUPS_OFFLINE", "")
PROMPT = "What is 6*7?"
# one group of four; two identical completions (common: ids must not come from the text)
TEXTS = ["so \\boxed{42}", "Let me think twice about it. 6*7 = 42, so \\boxed{42}", "so \\boxed{42}", "\\boxed{41}"]


def _ids_in_child(q: Any) -> None:
    q.put([rk.rollout_id() for _ in range(50)])


class RolloutIdTest(unittest.TestCase):
    def test_unique_across_threads_and_processes_and_after_fork(self):
        seen: List[str] = []
        lock = threading.Lock()

        def many() -> None:
            got = [rk.rollout_id() for _ in range(500)]
            with lock:
                seen.extend(got)

        ths = [threading.Thread(target=many) for _ in range(8)]
        [t.start() for t in ths]
        [t.join() for t in ths]
        for method in ("fork", "spawn"):
            if method not in multiprocessing.get_all_start_methods():
                continue
            ctx = multiprocessing.get_context(method)
            q = ctx.Queue()
            ps = [ctx.Process(target=_ids_in_child, args=(q,)) for _ in range(2)]
            [p.start() for p in ps]
            for _ in ps:
                seen.extend(q.get(timeout=60))
            [p.join() for p in ps]
        self.assertEqual(len(seen), len(set(seen)))


class VerlGroupTest(unittest.TestCase):
    def test_keys_in_order_uid_index_raw_prompt(self):
        self.assertEqual(rk.verl_group("math", {"index": 7, "global_steps": 3}, 3), ("verl:math:7@3", "math:7", "index"))
        # train and test rows share indexes: the split is part of the key
        self.assertEqual(rk.verl_group("openai/gsm8k", {"split": "test", "index": 7}, 3)[0], "verl:openai/gsm8k:test:7@3")
        self.assertEqual(rk.verl_group("d", {"index": 7}, None)[0], "verl:d:7")
        self.assertEqual(rk.verl_group("d", {"uid": "u-1", "index": 7}, 3), ("verl:uid:u-1", "d:7", "uid"))
        msgs = [{"role": "user", "content": PROMPT}]
        g, pid, how = rk.verl_group("d", {"raw_prompt": msgs, "global_steps": 5}, 5)
        self.assertEqual((g, how), ("verl:%s@5" % pid, "raw_prompt"))
        self.assertEqual(pid, rk.group_id({"prompt": msgs}))  # the server's promptGroup of the same messages
        self.assertEqual(rk.verl_group("d", {"split": "train"}, 1), (None, None, "extra_info has no uid, no index and no raw_prompt"))
        self.assertEqual(rk.verl_group("d", None, 1)[2], "no extra_info")

    def test_rollout_group_size_and_the_once_only_note(self):
        rk._noted.discard("verl-size")
        rk._noted.discard("verl-group")
        err = io.StringIO()
        with redirect_stderr(err):
            a = rk._verl_rollout("math", "x", "42", {"index": 7, "global_steps": 3}, {"rewardkit_group_size": 4})
            b = rk._verl_rollout("math", "x", "42", {"index": 7, "global_steps": 3}, {"rewardkit_group_size": 4})
            solo1 = rk._verl_rollout("math", "x", "42", {"index": 7, "global_steps": 3}, {})
            rk._verl_rollout("math", "x", "42", {"index": 8, "global_steps": 3}, {})
            whole = rk._verl_rollout("math", "x", "42", {"index": 7, "global_steps": 3}, {}, whole=True)
            none = rk._verl_rollout("math", "x", "42", {"split": "train"}, {"rewardkit_group_size": 4})
        self.assertEqual((a["group"], a["group_size"], a["step"], a["prompt_id"]), ("verl:math:7@3", 4, 3, "math:7"))
        self.assertNotEqual(a["id"], b["id"])  # the same text, the same group: two members
        self.assertNotIn("group", solo1)  # no size: a group of one, named per request
        self.assertEqual(whole["group"], "verl:math:7@3")  # the legacy batch manager hands over whole groups
        self.assertNotIn("group", none)
        lines = err.getvalue().splitlines()
        self.assertEqual(len(lines), 2, lines)  # each missing piece said once
        self.assertIn("rewardkit_group_size is not set", lines[0])
        self.assertIn("no uid, no index and no raw_prompt", lines[1])
        self.assertEqual(rk._solo_groups([dict(solo1), dict(solo1)])[1]["group"], rk._verl_group(1, "x"))

    def test_validation_rows_use_the_validation_group_size(self):
        # verl's preprocessing writes split "test" on the validation set, sampled val_kwargs.n times, not rollout.n
        rk._noted.discard("verl-val")
        err = io.StringIO()
        info = {"index": 7, "split": "test", "global_steps": 3}
        with redirect_stderr(err):
            val = rk._verl_rollout("math", "x", "42", info, {"rewardkit_group_size": 8})
            rk._verl_rollout("math", "x", "42", info, {"rewardkit_group_size": 8})
            held = rk._verl_rollout("math", "x", "42", info, {"rewardkit_group_size": 8, "rewardkit_val_group_size": 2})
            train = rk._verl_rollout("math", "x", "42", dict(info, split="train"), {"rewardkit_group_size": 8})
        self.assertNotIn("group_size", val)  # not held: a group of one, never 120 s of waiting for 8
        self.assertEqual((held["group"], held["group_size"]), ("verl:math:test:7@3", 2))
        self.assertEqual((train["group"], train["group_size"]), ("verl:math:train:7@3", 8))
        lines = err.getvalue().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("rewardkit_val_group_size", lines[0])


class _FakeModel:
    training = True


class _FakeGRPOTrainer:
    """What trl_group_size reads of GRPOTrainer (huggingface/trl @f2cd5771): num_generations, num_generations_eval,
    model.training; log_metric / log_extra are its bound methods."""

    def __init__(self, n: int, n_eval: int):
        self.num_generations, self.num_generations_eval, self.model = n, n_eval, _FakeModel()

    def _log_metric(self, name: str, value: float) -> None:
        pass

    def _log_completion_extra(self, column: str, values: List[Any]) -> None:
        pass


class TrlGroupTest(unittest.TestCase):
    def test_size_from_the_trainer_behind_log_metric(self):
        t = _FakeGRPOTrainer(8, 2)
        kw = {"log_metric": t._log_metric, "log_extra": t._log_completion_extra}
        self.assertEqual(rk.trl_group_size(kw), (8, "train"))
        self.assertEqual(rk.trl_group_size(kw, 16), (16, "train"))  # the argument wins in training
        t.model.training = False
        try:
            self.assertEqual(rk.trl_group_size(kw, 16), (2, "eval"))
        finally:
            t.model.training = True
        self.assertEqual(rk.trl_group_size({}, 4), (4, "train"))
        self.assertEqual(rk.trl_group_size({}), (None, "train"))

    def test_identify_groups_by_prompt_and_step(self):
        rs = [{"prompt": PROMPT, "completion": c} for c in TEXTS[:2]] + [{"completion": "x"}]
        rk._SharedBatch._identify(rs, 12, 4, "train")
        h = rk.group_id({"prompt": PROMPT})
        self.assertEqual([r.get("group") for r in rs[:2]], ["trl:%s@12" % h] * 2)
        self.assertEqual([r.get("group_size") for r in rs[:2]], [4, 4])
        self.assertEqual(rs[0]["prompt_id"], h)
        self.assertTrue(rs[2]["group"].startswith("trl-2-"))  # no prompt: a group of one
        self.assertEqual(len({r["id"] for r in rs}), 3)
        ev = [{"prompt": PROMPT, "completion": "x"}]
        rk._SharedBatch._identify(ev, 12, 2, "eval")
        self.assertEqual(ev[0]["group"], "trl-eval:%s@12" % h)
        old = [{"prompt": PROMPT, "completion": "x"}]
        with redirect_stderr(io.StringIO()):
            rk._SharedBatch._identify(old, 12, None, "train")
        self.assertNotIn("group", old)  # unknown size: the server's prompt group, as before


class VerifiersGroupTest(unittest.TestCase):
    def test_group_function_is_a_verifiers_group_func(self):
        # verifiers @a60a606e legacy/rubrics/rubric.py _is_group_func: plural parameter names
        import inspect

        for f in (rk.verifiers_group_reward, rk.verifiers_group_component("acc")):
            self.assertTrue({"states", "prompts", "completions", "answers", "infos"} & set(inspect.signature(f).parameters))
        self.assertEqual(rk._example_id({"example_id": 3}), "3")
        self.assertIsNone(rk._example_id({}))


# -- end to end ----------------------------------------------------------------------------------------------
def offline() -> Dict[str, Dict[str, Any]]:
    return {r["id"]: r for r in (json.loads(l) for l in open(OFFLINE) if l.strip())}


def near(a: Any, b: Any) -> bool:
    return a is not None and b is not None and abs(float(a) - float(b)) < 1e-9


def post(path: str, body: Any) -> Any:
    req = urllib.request.Request(URL + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=60))


def in_threads(fns: List[Any]) -> List[Any]:
    out: List[Any] = [None] * len(fns)

    def run(i: int) -> None:
        try:
            out[i] = fns[i]()
        except BaseException as e:  # noqa: BLE001 - reported by the assertion
            out[i] = e

    ths = [threading.Thread(target=run, args=(i,)) for i in range(len(fns))]
    [t.start() for t in ths]
    [t.join() for t in ths]
    return out


def _verl_worker(url: str, first: int, texts: List[str], q: Any) -> None:
    """One verl reward-loop worker process: compute_score_async for its samples, gathered on its own loop."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import rewardkit_client as rkc

    fn = functools.partial(_call_async, rkc.compute_score_async, {"rewardkit_url": url, "rewardkit_group_size": 4})

    async def chunk() -> List[Any]:
        return await asyncio.gather(*[fn(data_source="math", solution_str=t, ground_truth="42", extra_info={"index": 7, "split": "train", "global_steps": 3, "num_turns": 2, "rollout_reward_scores": {}}) for t in texts])

    q.put((first, asyncio.run(chunk())))


async def _call_async(raw: Any, extra: Dict[str, Any], **kwargs: Any) -> Any:
    return await raw(**{**kwargs, **extra})


def _trl_rank(url: str, rank: int, texts: List[str], q: Any) -> None:
    """One TRL process (rank) of two: GRPOTrainer._calculate_rewards with its half of the prompt's 4 completions."""
    os.environ["RANK"] = str(rank)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import rewardkit_client as rkc

    trainer = _FakeGRPOTrainer(4, 4)
    funcs = rkc.trl_reward_funcs(rkc.Client(url=url), asynchronous=False)
    kw = {"solution": ["42"] * len(texts), "trainer_state": types.SimpleNamespace(global_step=3), "log_extra": trainer._log_completion_extra, "log_metric": trainer._log_metric}
    outs = {f.__name__: f(prompts=[PROMPT] * len(texts), completions=texts, completion_ids=[[7] * len(t) for t in texts], **kw) for f in funcs}
    q.put((rank, outs))


@unittest.skipUnless(URL and OFFLINE, "set REWARDKIT_GROUPS_URL and REWARDKIT_GROUPS_OFFLINE (test/python-groups.test.ts)")
class WholeGroupsTest(unittest.TestCase):
    """Each trainer's real call path, the group split over calls, threads and processes; the group-stage component
    (``brevity``) must equal the offline score of the same four rollouts (ids o0..o3 = TEXTS)."""

    def expect(self, got: List[Any]) -> None:
        off = offline()
        want = [off["o%d" % i]["components"]["brevity"]["score"] for i in range(4)]
        self.assertTrue(all(near(g, w) for g, w in zip(got, want)), "got %s, offline %s" % (got, want))

    def test_offline_values_by_hand(self):
        # group-length (Kimi k1.5): lambda = 0.5 - (len - min) / (max - min) over the group's lengths in chars
        # (13, 52, 13, 10: min 10, max 52); correct: lambda, wrong: min(0, lambda)
        off = offline()
        b = [off["o%d" % i]["components"]["brevity"]["score"] for i in range(4)]
        self.assertEqual([len(t) for t in TEXTS], [13, 52, 13, 10])
        for got, want in zip(b, [0.5 - 3 / 42, 0.5 - 42 / 42, 0.5 - 3 / 42, 0.0]):
            self.assertAlmostEqual(got, want, places=12)

    def test_verl_compute_score_four_threads(self):
        # the acceptance check's call: naive manager, one sample per call, from four threads
        rows = in_threads([functools.partial(rk.compute_score, "math", t, "42", {"index": 7, "global_steps": 3}, rewardkit_url=URL, rewardkit_group_size=4) for t in TEXTS])
        self.expect([r["brevity"] if isinstance(r, dict) else r for r in rows])

    def test_verl_reward_loop_two_worker_processes(self):
        ctx = multiprocessing.get_context("spawn")
        q = ctx.Queue()
        # RewardLoopWorker actors are processes; verl picks one at random per sample, so a group spans several
        ps = [ctx.Process(target=_verl_worker, args=(URL, 0, TEXTS[:1], q)), ctx.Process(target=_verl_worker, args=(URL, 1, TEXTS[1:], q))]
        [p.start() for p in ps]
        got = sorted([q.get(timeout=120), q.get(timeout=120)], key=lambda x: x[0])
        [p.join() for p in ps]
        self.expect([r["brevity"] for _, rows in got for r in rows])

    def test_trl_two_ranks_each_half_the_group(self):
        ctx = multiprocessing.get_context("spawn")
        q = ctx.Queue()
        ps = [ctx.Process(target=_trl_rank, args=(URL, k, TEXTS[2 * k : 2 * k + 2], q)) for k in range(2)]
        [p.start() for p in ps]
        outs = sorted([q.get(timeout=120), q.get(timeout=120)], key=lambda x: x[0])
        [p.join() for p in ps]
        self.expect([x for _, o in outs for x in o["rewardkit_brevity"]])

    def test_openrlhf_single_query_requests(self):
        pre = "<|im_start|>user\\n%s<|im_end|>\\n<|im_start|>assistant\\n" % PROMPT
        rows = in_threads([functools.partial(post, "/get_reward?group_size=4", {"query": [pre + t + "<|im_end|>"], "prompts": [pre], "labels": ["42"]}) for t in TEXTS])
        self.expect([r["extra_logs"]["brevity"][0] if isinstance(r, dict) else r for r in rows])

    def test_verifiers_group_function(self):
        states = [{"example_id": 7, "prompt": PROMPT, "completion": t, "answer": "42", "trajectory": []} for t in TEXTS]
        got = asyncio.run(rk.verifiers_group_component("brevity")(prompts=[PROMPT] * 4, completions=TEXTS, answers=["42"] * 4, states=states, infos=[{}] * 4, rewardkit_url=URL))
        self.expect(got)


if __name__ == "__main__":
    unittest.main(verbosity=1)
