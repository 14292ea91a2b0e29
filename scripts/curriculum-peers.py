"""The curriculum's decisions against the peers' own code, on the bundled math rollouts (docs/curriculum.md).

    python3 scripts/curriculum-peers.py [--verl <git dir>] [--trl <git dir>]

Defaults: the tool library's mirrors beside the checkout (../.mirror/verl-project+verl/repo,
../.mirror/huggingface+trl/repo; `fetch github:verl-project/verl`, `github:huggingface/trl`). Nothing of the peers is
copied into this repository: their source is read from the git directories at run time.

1. DAPO dynamic sampling. rewardkit: `rewardkit score examples/data/math-rollouts.jsonl` with examples/math.yaml plus
   `filter: dapo` (on the reward, then on the `accuracy` component, verl's `metric: acc`), the dropped groups read from
   `--summary`. verl: the filtering block of `RayDAPOTrainer.fit` (`recipe/dapo/dapo_ray_trainer.py` at 246cac4, the last
   commit before the recipe left the repository: from `prompt_uid2metric_vals = defaultdict(list)` to the
   `kept_prompt_uids` list) executed as is over the scored rows, and the classification line of today's
   `ReplayBuffer._dapo_filtered_keys` (`verl/trainer/ppo/v1/replay_buffer.py`, HEAD). Same kept groups required.
2. Replay. rewardkit: the rollouts cut into batches of 10 groups, each scored with `--state` chained (the buffer is
   kept in the state) and `replay: {size: 4, keep: score}`, `advantage: {estimator: grpo, preset: trl}`. TRL: the
   `ReplayBuffer` class of `trl/experimental/grpo_with_replay_buffer/grpo_with_replay_buffer_trainer.py` (HEAD; taken by
   AST and executed; `add` uses heapq only) fed per batch the groups with reward std > 0 and TRL's score
   `(advantages.abs() * std).sum()`, advantages (r − mean) / (std + 1e-4), std unbiased as torch's. Same buffered
   groups after every batch required; `keep: recent` is compared too and its differences printed (TRL keeps the best
   scores, not the most recent).
Prints one line per comparison and exits 1 on a mismatch.
"""
import argparse, ast, json, os, subprocess, sys, tempfile, textwrap, types
from collections import defaultdict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERL_COMMIT = "246cac4ca6b0e3ce1009bc48aaa798689e0600af"


def git_show(git_dir, rev, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout


def git_head(git_dir):
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def rewardkit(*args):
    r = subprocess.run(["node", os.path.join(ROOT, "bin/rewardkit.js"), *args], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"rewardkit {' '.join(args)} failed: {r.stderr}")
    return r


def spec_with(tmp, extra):
    base = open(os.path.join(ROOT, "examples/math.yaml")).read()
    path = os.path.join(tmp, f"spec-{abs(hash(extra))}.yaml")
    with open(path, "w") as f:
        f.write(base + "\n" + extra + "\n")
    return path


def verl_filter_block(verl):
    """The lines of RayDAPOTrainer.fit that decide the kept prompts, dedented, as verl wrote them."""
    src = git_show(verl, VERL_COMMIT, "recipe/dapo/dapo_ray_trainer.py").split("\n")
    start = next(i for i, l in enumerate(src) if "prompt_uid2metric_vals = defaultdict(list)" in l)
    end = next(i for i in range(start, len(src)) if "num_prompt_in_batch += len(kept_prompt_uids)" in src[i])
    return textwrap.dedent("\n".join(src[start:end]))


def verl_kept(block, uids, metric_name, values):
    new_batch = types.SimpleNamespace(non_tensor_batch={"uid": np.array(uids, dtype=object), metric_name: np.array(values)})
    scope = {"defaultdict": defaultdict, "np": np, "new_batch": new_batch, "metric_name": metric_name}
    exec(block, scope)
    return set(scope["kept_prompt_uids"])


def verl_v1_filtered(verl, uids, values):
    """Today's classification line of ReplayBuffer._dapo_filtered_keys, executed per group."""
    src = git_show(verl, "HEAD", "verl/trainer/ppo/v1/replay_buffer.py")
    line = next(l.strip() for l in src.split("\n") if "classification_cache[uid] = float(values[0]) if len(values) > 1" in l)
    by = defaultdict(list)
    for u, v in zip(uids, values):
        by[u].append(float(v))
    dropped = set()
    for uid, vals in by.items():
        scope = {"np": np, "values": vals, "uid": uid, "classification_cache": {}}
        exec(line, scope)
        if scope["classification_cache"][uid] is not None:
            dropped.add(uid)
    return dropped


def compare_dapo(verl, tmp):
    ok = True
    data = os.path.join(ROOT, "examples/data/math-rollouts.jsonl")
    block = verl_filter_block(verl)
    for label, extra, value in [
        ("reward (verl metric: score)", "filter: dapo", lambda r: r["reward"]),
        ("accuracy component (verl metric: acc)", "filter: {type: dapo, component: accuracy}", lambda r: r["components"]["accuracy"]["score"]),
    ]:
        out, summ = os.path.join(tmp, "d.jsonl"), os.path.join(tmp, "d.json")
        rewardkit("score", data, "--spec", spec_with(tmp, extra), "-o", out, "--summary", summ, "-q")
        rows = [json.loads(l) for l in open(out)]
        f = json.load(open(summ))["filter"]
        ours_dropped = set(f["dropped_groups"])
        uids = [r["group"] for r in rows]
        vals = [value(r) for r in rows]
        groups = set(uids)
        theirs_kept = verl_kept(block, uids, "m", vals)
        v1_dropped = verl_v1_filtered(verl, uids, vals)
        same = groups - ours_dropped == theirs_kept and ours_dropped == v1_dropped
        ok &= same
        print(
            f"dapo on {label}: rewardkit kept {f['kept']}/{f['groups']} (need {f['need']}, sample {f['sample']}); "
            f"verl {VERL_COMMIT[:7]} recipe kept {len(theirs_kept)}, verl {git_head(verl)[:7]} v1 dropped {len(v1_dropped)}: "
            f"{'same groups' if same else 'DIFFERENT: ' + str(sorted((groups - ours_dropped) ^ theirs_kept))}"
        )
    return ok


def trl_replay_class(trl):
    src = git_show(trl, "HEAD", "trl/experimental/grpo_with_replay_buffer/grpo_with_replay_buffer_trainer.py")
    node = next(n for n in ast.parse(src).body if isinstance(n, ast.ClassDef) and n.name == "ReplayBuffer")
    scope = {"heapq": __import__("heapq"), "torch": types.SimpleNamespace(Tensor=object)}
    exec(ast.get_source_segment(src, node), scope)
    return scope["ReplayBuffer"]


def trl_scores(rewards_by_group):
    """TRL's per-group std (unbiased) and score Σ|A|·std, A = (r − mean)/(std + 1e-4), for groups with std > 0."""
    out = {}
    for g, rs in rewards_by_group.items():
        r = np.array(rs, dtype=np.float64)
        std = r.std(ddof=1) if len(r) > 1 else float("nan")
        if not std > 0:
            continue
        adv = (r - r.mean()) / (std + 1e-4)
        out[g] = float((np.abs(adv) * std).sum())
    return out


def compare_replay(trl, tmp):
    ReplayBuffer = trl_replay_class(trl)
    rows = [json.loads(l) for l in open(os.path.join(ROOT, "examples/data/math-rollouts.jsonl"))]
    order = list(dict.fromkeys(r["group"] for r in rows))
    batches = [order[i : i + 10] for i in range(0, len(order), 10)]
    ok = True
    for keep in ["score", "recent"]:
        spec = spec_with(tmp, f"replay: {{size: 4, keep: {keep}}}\n")
        text = open(spec).read().replace("  std: unbiased\n  epsilon: 1.0e-6\n", "  preset: trl\n")
        with open(spec, "w") as f:
            f.write(text)
        state = os.path.join(tmp, f"replay-{keep}.json")
        buf = ReplayBuffer(4)
        mismatches = 0
        for b, groups in enumerate(batches):
            inp = os.path.join(tmp, "batch.jsonl")
            with open(inp, "w") as f:
                for r in rows:
                    if r["group"] in groups:
                        f.write(json.dumps(r) + "\n")
            out = os.path.join(tmp, "batch-out.jsonl")
            rewardkit("score", inp, "--spec", spec, "--state", state, "-o", out, "-q")
            scored = [json.loads(l) for l in open(out)]
            by = defaultdict(list)
            for r in scored:
                by[r["group"]].append(r["reward"])
            sc = trl_scores({g: by[g] for g in groups})
            buf.add([sc[g] for g in groups if g in sc], [g for g in groups if g in sc])
            theirs = sorted(d for _, d in buf.heap)
            ours = sorted(g["group"] for g in json.load(open(state))["curriculum"]["replay"])
            if ours != theirs:
                mismatches += 1
                if keep == "score":
                    print(f"  batch {b}: rewardkit {ours} vs TRL {theirs}")
        same = mismatches == 0
        if keep == "score":
            ok &= same
        print(
            f"replay keep: {keep} vs TRL {git_head(trl)[:7]} ReplayBuffer(4) over {len(batches)} batches of 10 groups: "
            + ("same buffered groups after every batch" if same else f"buffers differ after {mismatches} of {len(batches)} batches"
               + (" (expected: TRL keeps the highest scores, recent the newest groups)" if keep == "recent" else ""))
        )
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--verl", default=os.path.join(ROOT, "..", ".mirror", "verl-project+verl", "repo"))
    ap.add_argument("--trl", default=os.path.join(ROOT, "..", ".mirror", "huggingface+trl", "repo"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ok = compare_dapo(a.verl, tmp)
        ok &= compare_replay(a.trl, tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
