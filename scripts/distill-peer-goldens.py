"""verl's on-policy distillation token rewards on real log-probs, for test/dense-peers.test.ts.

Runs verl's own code (read from a git checkout at run time, never copied into this repository) on every rollout of
examples/data/dense-rollouts.jsonl and writes test/fixtures/dense/verl-distill-goldens.json:

- `kl_penalty(logprob=student, ref_logprob=teacher, kl_penalty="k1")` from `verl/trainer/ppo/core_algos.py` (the
  whole module is executed, as scripts/advantages-peer-goldens.py does), the per-token distillation loss of
  `compute_distillation_loss_reverse_kl_estimator` (`verl/trainer/distillation/losses.py`);
- the `loss_max_clamp` statement of `distillation_loss` and the `advantages=-distillation_losses.detach()` expression
  of its `use_policy_gradient` branch, both taken from `losses.py` by text and executed as they are.

    /usr/bin/python3 scripts/distill-peer-goldens.py --verl <git dir> [-o test/fixtures/dense/verl-distill-goldens.json]

Needs torch (Debian: `apt-get install -y --no-install-recommends python3-torch python3-numpy`). float64 throughout.
"""
import argparse, importlib.util, json, os, types

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("peer_goldens", os.path.join(HERE, "advantages-peer-goldens.py"))
peers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers)
torch = peers.torch
CLAMPS = [None, 0.05]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--verl", required=True, help="git dir of verl")
    ap.add_argument("-o", default=os.path.join(HERE, "../test/fixtures/dense/verl-distill-goldens.json"))
    a = ap.parse_args()
    commit = peers.COMMITS["verl"]
    torch.set_default_dtype(torch.float64)
    core = peers.load_verl(a.verl)
    losses_src = peers.show(a.verl, commit, "verl/trainer/distillation/losses.py")
    clamp_stmt = next(l.strip() for l in losses_src.splitlines() if "distillation_losses = distillation_losses.clamp(" in l)
    adv_expr = next(l.strip() for l in losses_src.splitlines() if "advantages=-distillation_losses" in l)
    adv_expr = adv_expr[len("advantages="):].rstrip(",")
    rows = [json.loads(l) for l in open(os.path.join(HERE, "../examples/data/dense-rollouts.jsonl")) if l.strip()]
    cases = []
    for r in rows:
        s = torch.tensor([r["student_logprobs"]], dtype=torch.float64)
        t = torch.tensor([r["teacher_logprobs"]], dtype=torch.float64)
        for c in CLAMPS:
            ns = {"distillation_losses": core.kl_penalty(logprob=s, ref_logprob=t, kl_penalty="k1"),
                  "loss_config": types.SimpleNamespace(loss_max_clamp=c)}
            if c is not None:
                exec(clamp_stmt, ns)
            adv = eval(adv_expr, ns)
            cases.append({"id": r["id"], "clip": c, "token_rewards": [float(x) for x in adv[0]]})
    out = {
        "peer": "verl", "commit": commit,
        "functions": ["verl/trainer/ppo/core_algos.py:kl_penalty(k1)", f"verl/trainer/distillation/losses.py: {clamp_stmt}", f"losses.py: advantages={adv_expr}"],
        "rollouts": "examples/data/dense-rollouts.jsonl", "cases": cases,
    }
    os.makedirs(os.path.dirname(a.o), exist_ok=True)
    with open(a.o, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases from verl@{commit[:8]} to {a.o}")


if __name__ == "__main__":
    main()
