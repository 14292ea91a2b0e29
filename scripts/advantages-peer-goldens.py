"""Golden advantages from the peers' own code, for test/advantages-peers.test.ts.

Runs the peers' real advantage functions (read from their git checkouts at run time, never copied into this
repository) on small batches, in float64, and writes test/fixtures/advantages/peer-goldens.json: for every case the
batch (rewards, groups, components, response lengths), the rewardkit estimator/preset/options that must reproduce
it, the peer function and its commit, and the peer's advantages.

    /usr/bin/python3 scripts/advantages-peer-goldens.py --verl <git dir> --openrlhf <git dir> --trl <git dir> \
        --nemo <git dir> --gopo <git dir> [-o test/fixtures/advantages/peer-goldens.json]

Needs torch (Debian: `apt-get install -y --no-install-recommends python3-torch python3-numpy`, torch 1.13 for
/usr/bin/python3). Only imports the advantage code never calls are stubbed; what computes is the peers' source:
- verl: the whole `verl/trainer/ppo/core_algos.py` and `verl/utils/torch_functional.py` modules are executed;
- OpenRLHF: `RemoteExperienceMaker.compute_advantages_and_returns` and `get_cumulative_returns` (taken from
  `experience_maker.py` by AST) with the real `compute_reward` from `openrlhf/models/utils.py`;
- TRL: the advantage block of `GRPOTrainer._generate_and_score_completions` (from `unscorable_mask = ...` to
  `advantages = torch.nan_to_num(...)`) executed as is, with the real `nanstd` of `trl/trainer/utils.py`;
- NeMo-RL: `calculate_baseline_and_std_per_prompt` (`nemo_rl/algorithms/utils.py`) and the `GRPOAdvantageEstimator`,
  `GDPOAdvantageEstimator` classes of `nemo_rl/algorithms/advantage_estimator.py`;
- GOPO: the `advantage == "ranking"` lines of `src/open_r1/grpo_trainer.py`.
float64: `torch.set_default_dtype(torch.float64)`; where a peer casts to float32 explicitly (verl GDPO's
`np.float32` components, OpenRLHF's `.float()` before whitening) the cast is redirected to float64, so the goldens
test the formula, not fp32 rounding (docs/advantages.md lists the fp32 gaps separately).
"""
import argparse, ast, itertools, json, math, random, subprocess, sys, textwrap, types, typing
import numpy as np
import torch

_FLOAT = torch.Tensor.float


def float64_mode():
    torch.set_default_dtype(torch.float64)
    torch.Tensor.float = lambda self, *a, **k: self.double()  # a peer's `.float()` cast (OpenRLHF whitening, NeMo counts, GOPO ranks) in float64

COMMITS = {
    "verl": "1dda039b9c6311889a9c9a26040677e1254814f9",
    "openrlhf": "3c3be6234e0cb353e76bb8019947db9dfe99fca7",
    "trl": "f2cd57710ae345ea6428ae95363267fcf38a3dc8",
    "nemo": "7ea279abfbeb698b092856d0dab61e7cf39bc909",
    "gopo": "02e2b9fa41d5a1dcee593d59b56eb85f9ed24d1f",
}


def show(gitdir, commit, path):
    return subprocess.run(["git", "--git-dir", gitdir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def run_module(name, source, **extra):
    m = module(name)
    m.__dict__.update(extra)
    exec(compile(source, name, "exec"), m.__dict__)
    return m


def ast_source(source, *names, cls=None):
    """Source of top-level functions (or methods of class `cls`) called `names`."""
    tree = ast.parse(source)
    body = tree.body
    if cls:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == cls).body
    out = []
    for n in body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in names:
            out.append(textwrap.dedent(ast.get_source_segment(source, n)))
    assert len(out) == len(names), f"not all of {names} found"
    return "\n\n".join(out)


class F32AsF64(types.ModuleType):
    """A view of a module whose `float32` is float64 (the peer's explicit fp32 casts become fp64)."""

    def __init__(self, real, f64):
        super().__init__(real.__name__)
        self._real, self._f64 = real, f64

    def __getattr__(self, k):
        return self._f64 if k == "float32" else getattr(self._real, k)


# ---------------------------------------------------------------- loaders

def load_verl(gitdir):
    c = COMMITS["verl"]
    for n in ["omegaconf", "tensordict", "transformers", "verl", "verl.trainer", "verl.trainer.config", "verl.workers", "verl.workers.config", "verl.utils.device", "verl.utils.import_utils"]:
        module(n)
    sys.modules["omegaconf"].DictConfig = dict
    sys.modules["tensordict"].TensorDict = object
    sys.modules["transformers"].PreTrainedTokenizer = object
    sys.modules["verl.trainer.config"].AlgoConfig = dict
    sys.modules["verl.workers.config"].ActorConfig = dict
    sys.modules["verl.utils.device"].get_device_name = lambda: "cpu"
    sys.modules["verl.utils.device"].get_torch_device = lambda: torch
    sys.modules["verl.utils.import_utils"].deprecated = lambda *a, **k: (lambda f: f)
    utils = module("verl.utils", as_torch_index=None, group_mean_std=None)
    sys.modules["verl"].utils = utils
    tf = run_module("verl.utils.torch_functional", show(gitdir, c, "verl/utils/torch_functional.py"))
    utils.torch_functional = tf
    return run_module("verl.trainer.ppo.core_algos", show(gitdir, c, "verl/trainer/ppo/core_algos.py"))


def load_openrlhf(gitdir):
    c = COMMITS["openrlhf"]
    src = show(gitdir, c, "openrlhf/trainer/ppo_utils/experience_maker.py")
    ns = {"torch": torch, "itertools": itertools, "List": typing.List, "Tuple": typing.Tuple, "Union": typing.Union, "Optional": typing.Optional, "Experience": object,
          "apply_length_penalties": lambda exps, args: None, "logger": types.SimpleNamespace(warning=lambda *a: None)}
    exec(ast_source(show(gitdir, c, "openrlhf/models/utils.py"), "compute_reward"), ns)
    exec(ast_source(src, "compute_advantages_and_returns", "get_cumulative_returns", cls="RemoteExperienceMaker"), ns)
    return ns


def load_trl(gitdir):
    c = COMMITS["trl"]
    src = show(gitdir, c, "trl/trainer/grpo_trainer.py")
    start = src.index("        unscorable_mask = torch.isnan(rewards_per_func).all(dim=1)")
    end = src.index("        advantages = torch.nan_to_num(advantages, nan=0.0)")
    end = src.index("\n", end) + 1
    block = textwrap.dedent(src[start:end])
    ns = {"torch": torch}
    exec(ast_source(show(gitdir, c, "trl/trainer/utils.py"), "nanstd"), ns)
    return block, ns


def load_nemo(gitdir):
    c = COMMITS["nemo"]
    ns = {"torch": torch, "BaseModel": object, "ClippedPGLossConfig": dict, "AdvEstimatorConfig": object}
    exec(ast_source(show(gitdir, c, "nemo_rl/algorithms/utils.py"), "calculate_baseline_and_std_per_prompt"), ns)
    ns["get_gdpo_reward_component_keys"] = lambda batch: sorted(k for k in batch if k.startswith("reward/"))
    exec(ast_source(show(gitdir, c, "nemo_rl/algorithms/advantage_estimator.py"), "GRPOAdvantageEstimator", "GDPOAdvantageEstimator"), ns)
    return ns


def load_gopo(gitdir):
    src = show(gitdir, COMMITS["gopo"], "src/open_r1/grpo_trainer.py")
    start = src.index("            rewards_grouped = rewards.view(-1, self.num_generations)")
    end = src.index("            advantages = values.view(-1)")
    end = src.index("\n", end) + 1
    return textwrap.dedent(src[start:end])


# ---------------------------------------------------------------- batches

def masks(lengths):
    T = max(lengths)
    m = torch.zeros(len(lengths), T)
    for i, l in enumerate(lengths):
        m[i, :l] = 1
    return m


def outcome(values, lengths):
    """Token-level rewards with the scalar at the last response token (as the peers build them)."""
    m = masks(lengths)
    r = torch.zeros_like(m)
    for i, l in enumerate(lengths):
        r[i, l - 1] = values[i]
    return r, m


def first_token(adv):
    return [float(x) for x in adv[:, 0]]


def rlvr_batch(rng, groups, sizes, comps=("accuracy", "format", "brevity"), dyadic=True):
    rows = []
    for g in range(groups):
        n = rng.choice(sizes)
        p = rng.random()
        flat_fmt = g % 5 == 0
        for i in range(n):
            acc = float(rng.random() < p)
            fmt = 1.0 if flat_fmt else (rng.choice([0.0, 0.5, 1.0]) if dyadic else round(rng.random(), 3))
            brev = -rng.randint(0, 8) / 8 if dyadic else -round(rng.random() / 3, 3)
            L = rng.randint(300, 1500) if acc else rng.randint(1500, 4100)
            rows.append({"group": f"q{g}", "accuracy": acc, "format": fmt, "brevity": brev, "length": L})
    return rows


def case(name, peer, function, estimator, preset, options, rows, expected, comps=None, reward=None, note=None):
    batch = {"groups": [r["group"] for r in rows], "lengths": [r["length"] for r in rows]}
    batch["rewards"] = [reward(r) if reward else r["reward"] for r in rows]
    if comps:
        batch["components"] = {k: [r[k] for r in rows] for k in comps}
    out = {"name": name, "peer": peer, "commit": COMMITS[peer], "function": function, "estimator": estimator, "preset": preset, "options": options, "batch": batch, "expected": expected}
    if note:
        out["note"] = note
    return out


def main():
    ap = argparse.ArgumentParser()
    for p in COMMITS:
        ap.add_argument(f"--{p}", required=True, help=f"git dir of {p}")
    ap.add_argument("-o", "--output", default="test/fixtures/advantages/peer-goldens.json")
    ap.add_argument("--fp32-flat", action="store_true", help="instead: measure each peer's advantage on flat groups in float32, as the peers run")
    a = ap.parse_args()
    if a.fp32_flat:
        return flat_fp32(a)
    float64_mode()
    rng = random.Random(2612)
    cases = []

    # ---------------- verl ----------------
    verl = load_verl(a.verl)
    rows = rlvr_batch(rng, 30, [1, 2, 3, 5, 8])
    for r in rows:
        r["reward"] = r["accuracy"] + 0.5 * r["format"] + r["brevity"]
    L = [r["length"] for r in rows]
    idx = np.array([r["group"] for r in rows], dtype=object)
    tl, m = outcome([r["reward"] for r in rows], L)
    adv, _ = verl.compute_reinforce_plus_plus_baseline_outcome_advantage(tl, m, idx)
    cases.append(case("verl-rpp-baseline", "verl", "core_algos.compute_reinforce_plus_plus_baseline_outcome_advantage", "reinforce_pp_baseline", "verl", {}, rows, first_token(adv)))
    adv, _ = verl.compute_grpo_outcome_advantage(tl, m, idx)
    cases.append(case("verl-grpo", "verl", "core_algos.compute_grpo_outcome_advantage", "grpo", "verl", {}, rows, first_token(adv)))
    # GDPO: components through non_tensor_batch with gdpo_reward_keys and weights; np.float32/torch.float32 → float64
    verl.__dict__["np"] = F32AsF64(np, np.float64)
    verl.__dict__["torch"] = F32AsF64(torch, torch.float64)
    P = 4
    batch = {"prompts": torch.zeros(len(rows), P), "attention_mask": torch.cat([torch.ones(len(rows), P), m], dim=1).long()}
    for weights in (None, [1.0, 0.5, 0.25]):
        cfg = {"gdpo_reward_keys": ["accuracy", "format", "brevity"]}
        if weights:
            cfg["gdpo_reward_weights"] = weights
        ntb = {k: [r[k] for r in rows] for k in cfg["gdpo_reward_keys"]}
        adv, _ = verl.compute_gdpo_outcome_advantage(torch.zeros_like(m), m, idx, config=cfg, non_tensor_batch=ntb, batch=batch)
        opts = {"weights": dict(zip(cfg["gdpo_reward_keys"], weights))} if weights else {}
        cases.append(case("verl-gdpo" + ("-weights" if weights else ""), "verl", "core_algos.compute_gdpo_outcome_advantage", "gdpo", "verl", opts, rows, first_token(adv),
                          comps=cfg["gdpo_reward_keys"], note="per-component np.float32/torch.float32 casts run as float64"))
    verl.__dict__["np"], verl.__dict__["torch"] = np, torch

    # ---------------- OpenRLHF ----------------
    orl = load_openrlhf(a.openrlhf)
    n_per = 8
    rows = []
    for g in range(24):
        p = rng.random()
        for i in range(n_per):
            acc = float(rng.random() < p)
            rows.append({"group": f"o{g}", "reward": acc + 0.25 * rng.choice([0.0, 0.5, 1.0]) + (0.3 if g == 3 else 0.0), "length": rng.randint(300, 1500) if acc else rng.randint(1500, 4100)})
    for est, preset, rk in (("reinforce_baseline", "openrlhf", "reinforce_pp_baseline"), ("group_norm", "openrlhf", "grpo"), ("rloo", "openrlhf", "rloo"), ("dr_grpo", "openrlhf", "dr_grpo")):
        order = list(range(len(rows)))
        rng.shuffle(order)  # generation order; OpenRLHF scatters back by `index`
        exps = []
        for chunk in (order[i::3] for i in range(3)):
            tl_, m_ = outcome([rows[i]["reward"] for i in chunk], [rows[i]["length"] for i in chunk])
            exps.append(types.SimpleNamespace(index=chunk, rewards=torch.tensor([rows[i]["reward"] for i in chunk]), action_mask=m_, kl=torch.zeros_like(m_), info={}, advantages=None, returns=None))
        args = types.SimpleNamespace(rollout=types.SimpleNamespace(n_samples_per_prompt=n_per), algo=types.SimpleNamespace(advantage=types.SimpleNamespace(estimator=est, gamma=1.0, lambd=1.0, no_std_norm=False)), reward=types.SimpleNamespace(clip_range=None))
        self = types.SimpleNamespace(strategy=types.SimpleNamespace(args=args), advantage_estimator=est, kl_ctl=types.SimpleNamespace(value=0.0))
        self.get_cumulative_returns = lambda r, mm, gm, s=self: orl["get_cumulative_returns"](s, r, mm, gm)
        out = orl["compute_advantages_and_returns"](self, exps)
        got = [0.0] * len(rows)
        for e in out:
            for j, i in enumerate(e.index):
                got[i] = float(e.advantages[j, 0])
        cases.append(case(f"openrlhf-{est}", "openrlhf", f"experience_maker.RemoteExperienceMaker.compute_advantages_and_returns ({est})", rk, preset, {}, rows, got))

    # ---------------- TRL ----------------
    block, tns = load_trl(a.trl)
    G = 8
    rows = []
    for g in range(20):
        p = rng.random()
        for i in range(G):
            acc = float(rng.random() < p)
            fmt = rng.choice([0.0, 0.5, 1.0, None]) if g % 4 else 1.0
            judge = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, None])
            if g == 5 and i == 2:
                acc, fmt, judge = None, None, None  # a scored rollout whose every reward function returned None
            rows.append({"group": f"t{g}", "accuracy": acc, "format": fmt, "judge": judge, "length": 10})
    names = ["accuracy", "format", "judge"]
    rpf = torch.tensor([[math.nan if r[k] is None else r[k] for k in names] for r in rows])

    def trl(agg, scale, weights):
        self = types.SimpleNamespace(multi_objective_aggregation=agg, scale_rewards=scale, reward_weights=torch.tensor(weights), reward_funcs=names)
        ns = dict(tns, self=self, rewards_per_func=rpf.clone(), num_generations=G, device="cpu")
        exec(block, ns)
        return [float(x) for x in ns["advantages"]]

    def nansum(r, w):
        vals = [w[j] * r[k] for j, k in enumerate(names) if r[k] is not None]
        return sum(vals) if vals else None

    for agg, scale, w, est, opts in (("sum_then_normalize", "group", [1.0, 1.0, 1.0], "grpo", {}), ("sum_then_normalize", "batch", [1.0, 1.0, 1.0], "grpo", {"scale": "batch"}),
                                      ("sum_then_normalize", "none", [1.0, 1.0, 1.0], "dr_grpo", {}), ("normalize_then_sum", "group", [1.0, 0.5, 2.0], "gdpo", {"weights": {"accuracy": 1.0, "format": 0.5, "judge": 2.0}})):
        got = trl(agg, scale, w)
        # rewardkit reads TRL's reward (the weighted nansum; null where every function returned None) and the components
        cases.append(case(f"trl-{agg}-{scale}" + ("-weights" if w[1] != 1 else ""), "trl", f"grpo_trainer.GRPOTrainer._generate_and_score_completions (multi_objective_aggregation={agg}, scale_rewards={scale})",
                          est, "trl", opts, rows, got, comps=names if est == "gdpo" else None, reward=(lambda r, w=w: nansum(r, w)) if est != "gdpo" else (lambda r, w=w: nansum(r, w) if nansum(r, w) is not None else 0.0),
                          note=("a rollout with every component null has a numeric reward here: TRL leaves it out of the batch statistics and gives it 0" if est == "gdpo" else None)))

    # ---------------- NeMo-RL ----------------
    nemo = load_nemo(a.nemo)
    rows = []
    for g in range(16):
        n = rng.choice([2, 3, 4, 8])
        for i in range(n):
            rows.append({"group": f"n{g}", "accuracy": float(rng.random() < 0.5), "format": rng.choice([0.0, 0.5, 1.0]), "length": 10})
    for r in rows:
        r["reward"] = r["accuracy"] + r["format"]
    gid = {k: j for j, k in enumerate(dict.fromkeys(r["group"] for r in rows))}
    prompts = torch.tensor([[gid[r["group"]]] for r in rows])
    mask = torch.ones(len(rows), 1)
    cfg = types.SimpleNamespace(use_leave_one_out_baseline=True, normalize_rewards=True, reward_weights=None)
    adv = nemo["GRPOAdvantageEstimator"](cfg, None).compute_advantage(prompts, torch.tensor([r["reward"] for r in rows]), mask)
    cases.append(case("nemo-grpo", "nemo", "advantage_estimator.GRPOAdvantageEstimator (leave-one-out)", "grpo", "nemo", {}, rows, first_token(adv)))
    rb = {"reward/accuracy": torch.tensor([r["accuracy"] for r in rows]), "reward/format": torch.tensor([r["format"] for r in rows])}
    adv = nemo["GDPOAdvantageEstimator"](cfg, None).compute_advantage(prompts, None, mask, rb)
    cases.append(case("nemo-gdpo", "nemo", "advantage_estimator.GDPOAdvantageEstimator (leave-one-out, its default)", "gdpo", "nemo", {}, rows, first_token(adv), comps=["accuracy", "format"]))

    # ---------------- GOPO ----------------
    gopo = load_gopo(a.gopo)
    rows = []
    for g in range(12):
        vals = rng.sample(range(1000), 8)  # untied rewards
        rows += [{"group": f"r{g}", "reward": v / 100, "length": 10} for v in vals]
    ns = {"torch": torch, "rewards": torch.tensor([r["reward"] for r in rows]), "self": types.SimpleNamespace(num_generations=8)}
    exec(gopo, ns)
    cases.append(case("gopo-ranking", "gopo", "grpo_trainer.py advantage == \"ranking\" (untied rewards)", "rank", None, {"scale": "gopo"}, rows, [float(x) for x in ns["values"].view(-1)]))

    out = {"source": "scripts/advantages-peer-goldens.py", "python": sys.version.split()[0], "torch": torch.__version__, "numpy": np.__version__, "cases": cases}
    with open(a.output, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(cases)} cases → {a.output}")


FLAT = [[0.7] * 8, [0.1] * 3, [0.977] * 16, [0.3] * 16, [1 / 3] * 8, [0.2] * 4]


def flat_fp32(a):
    """Largest |advantage| each peer gives a flat group (all rewards equal) in float32, as it runs in training."""
    rows = [(g, v) for g, grp in enumerate(FLAT) for v in grp]
    out = {}
    verl = load_verl(a.verl)
    idx = np.array([f"f{g}" for g, _ in rows], dtype=object)
    tl, m = outcome([v for _, v in rows], [1] * len(rows))
    tl, m = tl.float(), m.float()
    out["verl compute_grpo_outcome_advantage"] = float(verl.compute_grpo_outcome_advantage(tl, m, idx)[0][:, 0].abs().max())
    trl_block, tns = load_trl(a.trl)
    worst = 0.0
    for grp in FLAT:
        G = len(grp)
        self = types.SimpleNamespace(multi_objective_aggregation="sum_then_normalize", scale_rewards="group", reward_weights=torch.tensor([1.0]), reward_funcs=["r"])
        ns = dict(tns, self=self, rewards_per_func=torch.tensor([[v] for v in grp]), num_generations=G, device="cpu")
        exec(trl_block, ns)
        worst = max(worst, float(ns["advantages"].abs().max()))
        # OpenRLHF group_norm: (r − mean)/(std + 1e-9) on the reshaped [prompts, n] tensor (a batch of 48 prompts)
        r = torch.tensor([grp] * 48)
        out["OpenRLHF group_norm"] = max(out.get("OpenRLHF group_norm", 0.0), float(((r - r.mean(-1, keepdim=True)) / (r.std(-1, keepdim=True) + 1e-9)).abs().max()))
    out["TRL sum_then_normalize, scale_rewards=group"] = worst
    nemo = load_nemo(a.nemo)
    gid = torch.tensor([[g] for g, _ in rows])
    rw = torch.tensor([v for _, v in rows])
    for loo in (True, False):
        cfg = types.SimpleNamespace(use_leave_one_out_baseline=loo, normalize_rewards=True, reward_weights=None)
        adv = nemo["GRPOAdvantageEstimator"](cfg, None).compute_advantage(gid, rw, torch.ones(len(rows), 1))
        out[f"NeMo-RL GRPOAdvantageEstimator (use_leave_one_out_baseline={loo})"] = float(adv.abs().max())
    for k, v in out.items():
        print(f"{k}: {v:.3g}")


if __name__ == "__main__":
    main()
