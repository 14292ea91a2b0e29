"""Tests of rewardkit_client against a live server serving examples/math.yaml.

Run by test/server.test.ts, which starts the server and sets REWARDKIT_URL and REWARDKIT_TOKEN. By hand:

    REWARDKIT_TOKEN=t npx rewardkit serve --spec examples/math.yaml &
    REWARDKIT_URL=http://127.0.0.1:8787 REWARDKIT_TOKEN=t python3 clients/python/test_client.py
"""

import asyncio
import http.server
import json
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rewardkit_client as rk  # noqa: E402

COMPONENTS = ["accuracy", "format", "overlong"]
KEYS = {"score"} | set(COMPONENTS) | {c + "_unscorable" for c in COMPONENTS}


class VerlTest(unittest.TestCase):
    def test_compute_score_same_keys_every_call(self):
        right = rk.compute_score("math", "So the answer is \\boxed{42}.", "42")
        wrong = rk.compute_score("math", "I think \\boxed{41}.", "42", extra_info={"index": 3})
        none = rk.compute_score("math", "I have no idea.", "42")
        for row in (right, wrong, none):
            self.assertEqual(set(row), KEYS)
            self.assertTrue(all(isinstance(v, float) for v in row.values()))
        self.assertEqual(right["score"], 1.0)
        self.assertEqual(right["accuracy"], 1.0)
        self.assertEqual(right["accuracy_unscorable"], 0.0)
        self.assertEqual(wrong["accuracy"], 0.0)
        self.assertEqual(wrong["accuracy_unscorable"], 0.0)
        # no answer: unscorable reads 0.0 plus a flag
        self.assertEqual(none["accuracy"], 0.0)
        self.assertEqual(none["accuracy_unscorable"], 1.0)

    def test_batch_form_and_any_json_ground_truth(self):
        rows = rk.compute_score_batch(["math", "math", "math"], ["\\boxed{1/2}", "\\boxed{3}", "\\boxed{x}"], ["\\frac{1}{2}", {"target": ["3"]}, "y"], [None, {"split": "train"}, None])
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows[0]["accuracy"], 1.0)
        for r in rows:
            self.assertEqual(set(r), KEYS)

    def test_async_variant(self):
        row = asyncio.run(rk.compute_score_async("math", "\\boxed{42}", "42"))
        self.assertEqual(row["score"], 1.0)


class TrlTest(unittest.TestCase):
    def test_total_and_components_share_one_request(self):
        client = rk.Client()
        funcs = rk.trl_reward_funcs(client)
        self.assertEqual([f.__name__ for f in funcs], ["rewardkit_total"] + ["rewardkit_" + c for c in COMPONENTS])
        self.assertEqual(rk.trl_reward_weights(client), [1.0, 0.0, 0.0, 0.0])
        self.assertEqual(rk.trl_reward_weights(client, total=False), [1.0, 0.0, 1.0])
        before = client.requests
        prompts = ["What is 6*7?"] * 3
        completions = ["\\boxed{42}", "\\boxed{41}", "no idea"]

        async def run():
            return await asyncio.gather(*[f(prompts=prompts, completions=completions, completion_ids=None, solution=["42"] * 3) for f in funcs])

        total, acc, fmt, over = asyncio.run(run())
        self.assertEqual(client.requests - before, 1)
        self.assertEqual(total, [1.0, 0.0, 0.0])
        self.assertEqual(acc, [1.0, 0.0, None])  # unscorable → None: TRL masks it
        self.assertEqual(fmt, [0.0, 0.0, 0.0])
        self.assertEqual(over, [0.0, 0.0, 0.0])

    def test_conversational_and_sync(self):
        funcs = rk.trl_reward_funcs(total=False, asynchronous=False)
        prompts = [[{"role": "user", "content": "6*7?"}]] * 2
        completions = [[{"role": "assistant", "content": "\\boxed{42}"}], [{"role": "assistant", "content": "\\boxed{7}"}]]
        self.assertEqual(funcs[0](prompts=prompts, completions=completions, answer=["42", "42"]), [1.0, 0.0])


class VerifiersTest(unittest.TestCase):
    def test_reward_and_component(self):
        self.assertEqual(asyncio.run(rk.verifiers_reward("\\boxed{42}", "42")), 1.0)
        self.assertEqual(asyncio.run(rk.verifiers_reward([{"role": "assistant", "content": "\\boxed{4}"}], "42")), 0.0)
        self.assertEqual(asyncio.run(rk.verifiers_component("accuracy")("nothing", "42")), 0.0)

    def test_documented_async_functions_return_coroutines(self):
        import inspect

        for fn in [rk.verifiers_reward, rk.verifiers_component("accuracy"), rk.compute_score_async] + rk.trl_reward_funcs():
            self.assertTrue(inspect.iscoroutinefunction(fn), fn.__name__)
        coro = rk.verifiers_reward("\\boxed{42}", "42")
        self.assertTrue(inspect.iscoroutine(coro))
        self.assertEqual(asyncio.run(coro), 1.0)
        self.assertFalse(inspect.iscoroutinefunction(rk.compute_score))

    def test_component_values_are_raw_not_weighted(self):
        # examples/math.yaml: format has weight 0, so it is not in the total, yet its raw score is reported
        row = rk.compute_score("math", "<think>6*7=42</think> \\boxed{42}", "42")
        self.assertEqual(row["format"], 1.0)
        self.assertEqual(row["score"], 1.0)
        self.assertEqual(asyncio.run(rk.verifiers_component("format")("<think>6*7=42</think> \\boxed{41}", "42")), 1.0)
        self.assertEqual(asyncio.run(rk.verifiers_reward("<think>6*7=42</think> \\boxed{41}", "42")), 0.0)


class ProtocolTest(unittest.TestCase):
    def test_spec_and_advantages(self):
        client = rk.Client()
        self.assertEqual(client.components(), COMPONENTS)
        res = client.score([{"id": "a", "group": "g", "completion": "\\boxed{42}", "reference": "42"}, {"id": "b", "group": "g", "completion": "\\boxed{4}", "reference": "42"}, {"id": "bad"}])
        self.assertEqual([r["id"] for r in res], ["a", "b", "bad"])
        self.assertGreater(res[0]["advantage"], 0)
        self.assertIn("error", res[2])
        adv = client.advantages([{"id": "a", "group": "g", "reward": 1.0}, {"id": "b", "group": "g", "reward": 0.0}], estimator="grpo", preset="trl")
        self.assertAlmostEqual(adv[0], 0.5 / (0.5 ** 0.5 + 1e-4), places=9)

    def test_wrong_token_is_401(self):
        with self.assertRaises(rk.RewardkitError) as e:
            rk.Client(token="wrong", retries=0).spec()
        self.assertEqual(e.exception.status, 401)

    def test_bad_request_names_the_problem(self):
        with self.assertRaises(rk.RewardkitError) as e:
            rk.Client().request("POST", "/v1/score", {"rollouts": 3})
        self.assertEqual(e.exception.status, 400)
        self.assertIn("rollouts", str(e.exception))

    def test_retries_429_after_retry_after(self):
        calls = []

        class Stub(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                calls.append(1)
                if len(calls) == 1:
                    body, status = b'{"error":{"code":"overloaded","message":"queue full"}}', 429
                else:
                    body, status = json.dumps({"results": [{"id": "0", "reward": 1.0, "components": {}, "advantage": 0.0}]}).encode(), 200
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        srv = http.server.HTTPServer(("127.0.0.1", 0), Stub)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            res = rk.Client(url="http://127.0.0.1:%d" % srv.server_address[1]).score([{"id": "0", "group": "g", "completion": "x"}])
            self.assertEqual(len(calls), 2)
            self.assertEqual(res[0]["reward"], 1.0)
        finally:
            srv.shutdown()
            srv.server_close()


if __name__ == "__main__":
    if not os.environ.get("REWARDKIT_URL"):
        sys.exit("set REWARDKIT_URL (and REWARDKIT_TOKEN) to a server serving examples/math.yaml")
    unittest.main(verbosity=1)
