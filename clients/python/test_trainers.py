"""Each trainer's reward call, replayed exactly as the trainer makes it, against a live server.

Run by test/trainers.test.ts, which starts two servers and sets:

    REWARDKIT_URL       a server for the spec below ("trainers": accuracy with a weight scheduled 1 -> 3 at step 100,
                        think-format at weight 0, a token-based overlong penalty)
    REWARDKIT_JSON_URL  a server for a json-match spec (structured labels)

    components:
      - {name: accuracy, type: math, weight: {schedule: piecewise, stages: [{startStep: 0, value: 1}, {startStep: 100, value: 3}]}}
      - {name: format, type: think-format, weight: 0}
      - {name: length, type: overlong, maxLength: 4096, bufferLength: 1024, unit: tokens}

The call shapes come from the trainers' current releases (and they are the same in the previous ones):

- TRL v1.9.0 / v1.8.0 ``GRPOTrainer._calculate_rewards`` (trl/trainer/grpo_trainer.py): keyword arguments
  ``prompts``, ``completions``, ``completion_ids`` (list of token-id lists), every dataset column but prompt /
  completion / completion_ids as a list, ``trainer_state`` (``.global_step``), ``log_extra``, ``log_metric``; sync
  functions called directly, async ones gathered on TRL's daemon event loop via ``run_coroutine_threadsafe``; ``None``
  becomes NaN.
- verl v0.9.0 / v0.8.0 reward loop ``NaiveRewardManager.run_single``
  (verl/experimental/reward_loop/reward_manager/naive.py): ``compute_score(data_source=, solution_str=,
  ground_truth=, extra_info=)`` through ``get_custom_reward_fn``'s ``partial(_call_with_kwargs[_async], raw_fn,
  reward_kwargs)``; ``extra_info`` merged with the rollout server's ``extra_fields`` (``global_steps``,
  ``min_global_steps``, ``max_global_steps``) plus ``num_turns`` and ``rollout_reward_scores``; sync functions run
  in ``loop.run_in_executor``, async ones awaited; a chunk's samples are scored concurrently (``asyncio.gather``).
  Legacy ``BatchRewardManager.verify`` (verl <= 0.7): ``compute_score(data_sources=<numpy array>,
  solution_strs=, ground_truths=, extra_infos=, **reward_kwargs)``.
- OpenRLHF v0.11.0 / v0.10.4 ``SingleTurnAgentExecutor._fetch_rewards_via_http`` (openrlhf/utils/agent.py):
  ``POST {"query": [...], "prompts": [...], "labels": [...]}`` as JSON, one query per request, no step, no auth.
- verifiers v0.3.0 / v0.2.1 ``Rubric._call_individual_reward_func`` (verifiers/rubrics/rubric.py): a function with
  ``**kwargs`` gets ``prompt``, ``completion``, ``answer``, ``state``, ``info``, ``task`` and the dataset row's
  fields as keyword arguments; ``state["trajectory"][i]["tokens"]["completion_ids"]`` holds the token ids.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import os
import sys
import threading
import types
import unittest
import urllib.request
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rewardkit_client as rk  # noqa: E402

try:
    import numpy as np  # verl hands parquet columns over as numpy
except ImportError:  # pragma: no cover - numpy-free machines use a stand-in with the same duck type
    np = None  # type: ignore[assignment]

URL = os.environ.get("REWARDKIT_URL", "")
JSON_URL = os.environ.get("REWARDKIT_JSON_URL", "")
ANSWER = "The answer is \\boxed{42}."
# overlong with maxLength 4096, bufferLength 1024: 4000 tokens -> -(4000 - 3072) / 1024
PENALTY_4000 = -0.90625


def metric(name: str, url: str = URL) -> float:
    text = urllib.request.urlopen(url + "/metrics", timeout=10).read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            total += float(line.rsplit(" ", 1)[1])
    return total


def np_int(v: int) -> Any:
    return np.int64(v) if np is not None else v


# -- TRL -----------------------------------------------------------------------------------------------------
class _TrlTrainer:
    """The parts of GRPOTrainer that _calculate_rewards uses, with TRL's daemon event loop for async functions."""

    def __init__(self, reward_funcs: List[Any], global_step: int):
        self.reward_funcs = reward_funcs
        self.state = types.SimpleNamespace(global_step=global_step)
        self.logged: Dict[str, Any] = {}
        self.async_loop = asyncio.new_event_loop()
        threading.Thread(target=self.async_loop.run_forever, daemon=True).start()

    def _log_completion_extra(self, column: str, values: List[Any]) -> None:
        self.logged[column] = values

    def _log_metric(self, name: str, value: float) -> None:
        self.logged[name] = value

    def calculate_rewards(self, inputs: List[Dict[str, Any]], prompts: List[Any], completions: List[Any], completion_ids_list: List[List[int]]) -> List[List[float]]:
        import inspect

        keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
        reward_kwargs: Dict[str, Any] = {key: [example[key] for example in inputs] for key in keys}
        reward_kwargs["trainer_state"] = self.state
        reward_kwargs["log_extra"] = self._log_completion_extra
        reward_kwargs["log_metric"] = self._log_metric
        out: List[List[float]] = [[] for _ in self.reward_funcs]
        async_funcs = []
        for i, f in enumerate(self.reward_funcs):
            if inspect.iscoroutinefunction(f):
                async_funcs.append((i, f))
            else:
                r = f(prompts=prompts, completions=completions, completion_ids=completion_ids_list, **reward_kwargs)
                out[i] = [x if x is not None else math.nan for x in r]

        async def run_all() -> List[Any]:
            async def one(i: int, f: Any) -> Any:
                r = await f(prompts=prompts, completions=completions, completion_ids=completion_ids_list, **reward_kwargs)
                return i, [x if x is not None else math.nan for x in r]

            return await asyncio.gather(*[one(i, f) for i, f in async_funcs])

        if async_funcs:
            for i, r in asyncio.run_coroutine_threadsafe(run_all(), self.async_loop).result():
                out[i] = r
        return out


class TrlTest(unittest.TestCase):
    def run_batch(self, funcs: List[Any], step: int, conversational: bool) -> Dict[str, List[float]]:
        q = "What is 6*7?"
        # 2 prompts x 2 generations, as TRL repeats each prompt num_generations times
        prompts: List[Any] = [[{"role": "user", "content": q}]] * 2 + [[{"role": "user", "content": "What is 2+2?"}]] * 2 if conversational else [q, q, "What is 2+2?", "What is 2+2?"]
        texts = [ANSWER, "<think>6*7=42</think> \\boxed{42}", "\\boxed{5}", "no idea"]
        completions: List[Any] = [[{"role": "assistant", "content": t}] for t in texts] if conversational else texts
        ids = [[7] * 4000, [7] * 10, [7] * 3072, [7] * 5000]
        inputs = [{"prompt": p, "solution": s, "level": "Level 1"} for p, s in zip(prompts, ["42", "42", "4", "4"])]
        trainer = _TrlTrainer(funcs, step)
        cols = trainer.calculate_rewards(inputs, prompts, completions, ids)
        return {f.__name__: c for f, c in zip(funcs, cols)}

    def test_plain_sync_step_99_and_token_lengths(self):
        out = self.run_batch(rk.trl_reward_funcs(asynchronous=False), 99, conversational=False)
        self.assertEqual(list(out), ["rewardkit_total", "rewardkit_accuracy", "rewardkit_format", "rewardkit_length"])
        # token counts from completion_ids: 4000 -> -0.90625, 10 -> 0, 3072 -> 0, 5000 -> clamped -1
        self.assertEqual(out["rewardkit_length"], [PENALTY_4000, 0.0, 0.0, -1.0])
        self.assertEqual(out["rewardkit_accuracy"][:3], [1.0, 1.0, 0.0])
        self.assertTrue(math.isnan(out["rewardkit_accuracy"][3]))  # unscorable -> None -> NaN (TRL masks it)
        self.assertEqual(out["rewardkit_format"], [0.0, 1.0, 0.0, 0.0])
        # step 99: accuracy weight 1
        self.assertEqual(out["rewardkit_total"], [1 + PENALTY_4000, 1.0, 0.0, -1.0])

    def test_conversational_async_step_100_weight_changes(self):
        out = self.run_batch(rk.trl_reward_funcs(), 100, conversational=True)
        self.assertEqual(out["rewardkit_length"], [PENALTY_4000, 0.0, 0.0, -1.0])
        # step 100: accuracy weight 3
        self.assertEqual(out["rewardkit_total"], [3 + PENALTY_4000, 3.0, 0.0, -1.0])

    def test_one_request_per_batch_and_weights(self):
        client = rk.Client()
        funcs = rk.trl_reward_funcs(client)
        self.assertEqual(rk.trl_reward_weights(client), [1.0, 0.0, 0.0, 0.0])
        before = client.requests
        self.run_batch(funcs, 5, conversational=False)
        self.assertEqual(client.requests - before, 1)


# -- verl ----------------------------------------------------------------------------------------------------
def _call_with_kwargs(raw_fn: Any, extra_kwargs: Dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    return raw_fn(*args, **{**kwargs, **extra_kwargs})


async def _call_with_kwargs_async(raw_fn: Any, extra_kwargs: Dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    return await raw_fn(*args, **{**kwargs, **extra_kwargs})


def verl_custom_reward_fn(name: str, reward_kwargs: Dict[str, Any]) -> Any:
    """verl's get_custom_reward_fn: the function by name, wrapped with the config's reward_kwargs."""
    import inspect

    raw = getattr(rk, name)
    wrap = _call_with_kwargs_async if inspect.iscoroutinefunction(raw) else _call_with_kwargs
    return functools.partial(wrap, raw, reward_kwargs)


async def naive_run_single(compute_score: Any, solution: str, ground_truth: Any, global_steps: Any) -> Dict[str, Any]:
    """NaiveRewardManager.run_single after decoding: extra_info from the dataset, the rollout server's extra_fields
    merged in, then num_turns and rollout_reward_scores."""
    import inspect

    extra_info: Dict[str, Any] = {"index": np_int(3), "split": "train"}
    tool_extra_fields = {"global_steps": global_steps, "min_global_steps": global_steps, "max_global_steps": global_steps}
    extra_info.update(tool_extra_fields.items())
    extra_info["num_turns"] = np_int(2)
    extra_info["rollout_reward_scores"] = {}
    loop = asyncio.get_running_loop()
    kwargs = dict(data_source="openai/gsm8k", solution_str=solution, ground_truth=ground_truth, extra_info=extra_info)
    if inspect.iscoroutinefunction(compute_score):  # verl checks the partial; inspect unwraps it
        result = await compute_score(**kwargs)
    else:
        result = await loop.run_in_executor(None, lambda: compute_score(**kwargs))
    return {"reward_score": result["score"] if isinstance(result, dict) else result, "reward_extra_info": result}


class VerlTest(unittest.TestCase):
    KEYS = {"score", "accuracy", "accuracy_unscorable", "format", "format_unscorable", "length", "length_unscorable"}

    def test_naive_manager_sync_step_from_extra_info(self):
        fn = verl_custom_reward_fn("compute_score", {})
        at99 = asyncio.run(naive_run_single(fn, ANSWER, "42", np_int(99)))
        at100 = asyncio.run(naive_run_single(fn, ANSWER, "42", 100))
        self.assertEqual(set(at99["reward_extra_info"]), self.KEYS)
        self.assertEqual(at99["reward_score"], 1.0)
        self.assertEqual(at100["reward_score"], 3.0)

    def test_reward_loop_async_coalesces_a_chunk(self):
        client = rk.Client()
        fn = verl_custom_reward_fn("compute_score_async", {"rewardkit_url": client.url})
        used = rk._client_from({"rewardkit_url": client.url})
        used.components()  # the spec fetch, once

        async def chunk() -> List[Dict[str, Any]]:
            # RewardLoopWorker.compute_score_batch: one task per sample, gathered
            return await asyncio.gather(*[naive_run_single(fn, ANSWER if i % 2 == 0 else "\\boxed{41}", "42", 100) for i in range(16)])

        before = used.requests
        out = asyncio.run(chunk())
        self.assertEqual([o["reward_score"] for o in out], [3.0, 0.0] * 8)
        self.assertEqual(used.requests - before, 1)  # 16 concurrent calls, one HTTP request

    def test_structured_and_numpy_ground_truth(self):
        fn = verl_custom_reward_fn("compute_score", {})
        gt = np.array(["42", "forty-two"], dtype=object) if np is not None else ["42", "forty-two"]
        self.assertEqual(asyncio.run(naive_run_single(fn, ANSWER, gt, 0))["reward_score"], 1.0)

    def test_legacy_batch_manager_with_reward_kwargs_step(self):
        fn = verl_custom_reward_fn("compute_score_batch", {"step": 100})
        data_sources = np.array(["math", "math"], dtype=object) if np is not None else ["math", "math"]
        extras = np.array([{"index": 0, "rollout_reward_scores": {}}, {"index": 1, "rollout_reward_scores": {}}], dtype=object) if np is not None else [{}, {}]
        rows = fn(data_sources=data_sources, solution_strs=[ANSWER, "\\boxed{1}"], ground_truths=["42", "42"], extra_infos=extras)
        self.assertEqual([r["score"] for r in rows], [3.0, 0.0])
        self.assertEqual(set(rows[0]), self.KEYS)

    def test_no_step_is_counted(self):
        before = metric("rewardkit_requests_without_step_total")
        fn = verl_custom_reward_fn("compute_score", {})
        row = fn(data_source="math", solution_str=ANSWER, ground_truth="42", extra_info={"index": 0})
        self.assertEqual(row["score"], 1.0)  # step 0
        self.assertEqual(metric("rewardkit_requests_without_step_total") - before, 1)


# -- OpenRLHF ------------------------------------------------------------------------------------------------
def openrlhf_post(url: str, query: List[str], prompts: List[str], labels: List[Any], headers: Dict[str, str] = {}) -> Dict[str, Any]:
    """_fetch_rewards_via_http's request: aiohttp's session.post(url, json=payload)."""
    body = json.dumps({"query": query, "prompts": prompts, "labels": labels}).encode()
    req = urllib.request.Request(url + "/get_reward", data=body, headers={"Content-Type": "application/json", **headers})
    return json.load(urllib.request.urlopen(req, timeout=30))


CHATML = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"
R1 = "<｜begin▁of▁sentence｜><｜User｜>{q}<｜Assistant｜><think>\n"


class OpenRLHFTest(unittest.TestCase):
    def test_current_executor_one_query_no_step_scores_in_unit_range(self):
        before = metric("rewardkit_requests_without_step_total")
        p = CHATML.format(q="What is 6*7?")
        j = openrlhf_post(URL, [p + ANSWER + "<|im_end|><|endoftext|>"], [p], ["42"])
        self.assertEqual(j["rewards"], [1.0])  # no step: step 0, weight 1
        self.assertEqual(j["scores"], [1.0])
        self.assertEqual(metric("rewardkit_requests_without_step_total") - before, 1)
        self.assertEqual(set(j["extra_logs"]), {"accuracy", "accuracy_unscorable", "format", "format_unscorable", "length", "length_unscorable"})

    def test_step_header_moves_the_schedule_and_scores_stay_in_range(self):
        p = CHATML.format(q="What is 6*7?")
        j = openrlhf_post(URL, [p + ANSWER + "<|im_end|>", p + "\\boxed{41}<|im_end|>"], [p, p], ["42", "42"], {rk.STEP_HEADER: "100"})
        self.assertEqual(j["rewards"], [3.0, 0.0])
        self.assertEqual(j["scores"], [1.0, 0.0])  # pass of accuracy, not the total 3

    def test_r1_template_think_opened_by_the_prompt(self):
        p = R1.format(q="What is 6*7?")
        j = openrlhf_post(URL, [p + "6 times 7 is 42.\n</think>\n\n" + ANSWER + "<｜end▁of▁sentence｜>"], [p], ["42"])
        self.assertEqual(j["extra_logs"]["format"], [1.0])
        self.assertEqual(j["rewards"], [1.0])

    def test_structured_labels_object_list_and_json_string(self):
        p = CHATML.format(q="Give the city as JSON.")
        right, wrong = '{"city": "Paris", "n": 3}', '{"city": "Rome", "n": 4}'
        for label in ({"city": "Paris", "n": 3}, json.dumps({"city": "Paris", "n": 3})):
            j = openrlhf_post(JSON_URL, [p + right + "<|im_end|>", p + wrong + "<|im_end|>"], [p, p], [label, label])
            self.assertEqual(j["rewards"][0], 1.0)
            self.assertLess(j["rewards"][1], 0.5)
        # a list of acceptable answers as a JSON string, and a null label (unscorable: 0.0 and the flag)
        m = CHATML.format(q="What is 6*7?")
        j = openrlhf_post(URL, [m + ANSWER + "<|im_end|>", m + ANSWER + "<|im_end|>"], [m, m], [json.dumps(["41", "42"]), None])
        self.assertEqual(j["extra_logs"]["accuracy"], [1.0, 0.0])
        self.assertEqual(j["extra_logs"]["accuracy_unscorable"], [0.0, 1.0])


# -- prime-rl / verifiers ------------------------------------------------------------------------------------
async def rubric_call(func: Any, state: Dict[str, Any]) -> float:
    """Rubric._call_individual_reward_func for a function with **kwargs: every score object as a keyword."""
    merged = {"prompt": state["prompt"], "completion": state["completion"], "answer": state.get("answer", ""), "state": state, "info": state.get("info", {}), "task": None}
    return float(await func(**merged))


def vf_state(completion_text: str, answer: str, n_tokens: int) -> Dict[str, Any]:
    completion = [{"role": "assistant", "content": completion_text}]
    return {
        "prompt": [{"role": "user", "content": "What is 6*7?"}],
        "completion": completion,
        "answer": answer,
        "info": {"id": 1},
        "trajectory": [{"prompt": [], "completion": completion, "tokens": {"prompt_ids": [1, 2], "completion_ids": [7] * n_tokens}, "reward": None}],
    }


class VerifiersTest(unittest.TestCase):
    def test_rubric_call_with_trajectory_tokens(self):
        self.assertEqual(asyncio.run(rubric_call(rk.verifiers_reward, vf_state(ANSWER, "42", 10))), 1.0)
        self.assertEqual(asyncio.run(rubric_call(rk.verifiers_reward, vf_state(ANSWER, "42", 4000))), 1 + PENALTY_4000)
        self.assertEqual(asyncio.run(rubric_call(rk.verifiers_component("length"), vf_state(ANSWER, "42", 4000))), PENALTY_4000)
        self.assertEqual(asyncio.run(rubric_call(rk.verifiers_component("accuracy"), vf_state("\\boxed{41}", "42", 10))), 0.0)


if __name__ == "__main__":
    if not URL or not JSON_URL:
        sys.exit("set REWARDKIT_URL and REWARDKIT_JSON_URL (see the module docstring)")
    unittest.main(verbosity=1)
