"""numpy baselines for bench/advantages.mjs: general-group (bincount) implementations of rewardkit's estimators with
the presets the benchmark runs, on the batch the driver writes. A long-lived worker: it loads the batch, writes
each estimator's output once (for the max |Δ| column), prints "ready", then answers each line `name` on stdin with
one timed call `{"s": seconds}` on stdout, so the driver can interleave numpy and rewardkit call by call.

Usage (by the driver): python3 bench/advantages.py <dir> <n> <components> <names,comma,separated>
The names come from rewardkit's estimator registry: a name without a function here exits 2 before any timing,
naming it (the driver stops and says so), so a new estimator cannot go unbenchmarked.
Group ids are arbitrary integers (np.bincount), not a reshape: the layout any real batch has."""
import json, sys, time
import numpy as np

d, N, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = sys.argv[4].split(",")
R = np.fromfile(f"{d}/rewards.f64")
C = np.fromfile(f"{d}/components.f64").reshape(K, N)
L = np.fromfile(f"{d}/lengths.f64")
S = np.fromfile(f"{d}/strata.f64").astype(np.int64)
gid = np.fromfile(f"{d}/groups.i32", dtype=np.int32).astype(np.int64)
G = int(gid.max()) + 1
W = np.array([1.0, 0.5, 1.0, 0.25])[:K]  # component weights, as in the driver


np.seterr(invalid="ignore", divide="ignore")  # empty sub-groups (stratified) divide 0 by 0; they are not used


def gstats(x, g=gid, G=G):
    n = np.bincount(g, minlength=G).astype(np.float64)
    mean = np.bincount(g, weights=x, minlength=G) / n
    dev = x - mean[g]
    m2 = np.bincount(g, weights=dev * dev, minlength=G)
    return n, dev, m2


def zscore(x, ddof, eps, g=gid, G=G):
    n, dev, m2 = gstats(x, g, G)
    return dev / (np.sqrt(m2 / (n - ddof)) + eps)[g]


def whiten(x, w=None, pop=False, mode="sqrt", eps=1e-8):
    w = np.ones_like(x) if w is None else w
    T = w.sum()
    m = (w * x).sum() / T
    var = (w * (x - m) ** 2).sum() / (T if pop else T - 1)
    return (x - m) / (np.sqrt(var + eps) if mode == "sqrt" else np.sqrt(max(var, eps)))


def grpo(x=R):  # verl: (r − μ)/(σ_{n−1} + 1e-6)
    return zscore(x, 1, 1e-6)


def dr_grpo():
    return gstats(R)[1]


def rloo():
    n, dev, _ = gstats(R)
    return (n / (n - 1))[gid] * dev


def reinforce_pp_baseline():  # verl: r − μ, masked_whiten over tokens (weights = lengths)
    return whiten(gstats(R)[1], L)


def reinforce_pp():  # verl compute_reinforce_plus_plus_outcome_advantage: every token's return is r (γ = 1), masked_whiten
    return whiten(R, L)


def opo():
    b = np.bincount(gid, weights=L * R, minlength=G) / np.bincount(gid, weights=L, minlength=G)
    return R - b[gid]


def sorted_by_group(x):
    """Positions sorted by (group, value), and each position's first/last index of its (group, value) run and group."""
    o = np.lexsort((x, gid))
    gs, xs = gid[o], x[o]
    new_g = np.r_[True, gs[1:] != gs[:-1]]
    new_run = new_g | np.r_[True, xs[1:] != xs[:-1]]
    idx = np.arange(N)
    g_start = np.maximum.accumulate(np.where(new_g, idx, 0))
    r_start = np.maximum.accumulate(np.where(new_run, idx, 0))
    r_end = np.minimum.accumulate(np.where(np.r_[new_run[1:], True], idx, N)[::-1])[::-1]
    return o, g_start, r_start, r_end


def midrank(x):
    o, g_start, r_start, r_end = sorted_by_group(x)
    out = np.empty(N)
    out[o] = (r_start + r_end) / 2 - g_start + 1
    return out


def grpo_passk():  # verl: only the best gets (r_max − r_2nd)/(σ_{n−1} + 1e-6)
    o = np.lexsort((-R, gid))
    gs = gid[o]
    first = np.r_[True, gs[1:] != gs[:-1]]
    best = o[first]
    second = R[o[np.flatnonzero(first) + 1]]
    n, _, m2 = gstats(R)
    A = np.zeros(N)
    A[best] = (R[best] - second) / (np.sqrt(m2 / (n - 1)) + 1e-6)
    return A


def gpg():
    return R.size / max(1, np.count_nonzero(R)) * gstats(R)[1]


def rank():
    n = np.bincount(gid, minlength=G).astype(np.float64)[gid]
    return (midrank(R) - (n + 1) / 2) * 2 / (n - 1)


def stratified(alpha=0.5, eps=1e-6):
    sub = gid * 2 + S
    n, dev, m2 = gstats(R, sub, 2 * G)
    glob = zscore(R, 0, eps)
    san = dev / (np.sqrt(m2 / np.maximum(n, 1)) + eps)[sub]
    return np.where(n[sub] >= 2, alpha * san + (1 - alpha) * glob, glob)


def gdpo():  # verl: per component (s − μ)/(σ_{n−1} + 1e-6), weighted sum, masked_whiten over tokens
    x = sum(W[k] * zscore(C[k], 1, 1e-6) for k in range(K))
    return whiten(x, L)


def mo_grpo():
    return sum(W[k] * zscore(C[k], 0, 1e-6) for k in range(K))


def corr_grpo(eps=1e-6):
    st = [gstats(W[k] * C[k]) for k in range(K)]
    act = [m2 > 1e-24 for _, _, m2 in st]
    D = np.zeros(G)
    for k in range(K):
        D += act[k]
        for l in range(k + 1, K):
            cross = np.bincount(gid, weights=st[k][1] * st[l][1], minlength=G)
            with np.errstate(invalid="ignore", divide="ignore"):
                rho = np.nan_to_num(cross / np.sqrt(st[k][2] * st[l][2]))
            D += 2 * np.where(act[k] & act[l], rho, 0.0)
    c = sum(np.where(act[k][gid], st[k][1], 0.0) for k in range(K))
    return c / np.sqrt(np.maximum(D, 0) + eps)[gid]


def rdpo(tol=1e-10):
    U = np.zeros((K, N))
    masks = np.zeros(G, dtype=np.int64)
    rng = C.max(1) - C.min(1)
    n = np.bincount(gid, minlength=G).astype(np.float64)
    for k in range(K):
        o, g_start, r_start, r_end = sorted_by_group(C[k])
        xs = C[k][o]
        last = np.r_[gid[o][1:] != gid[o][:-1], True]
        lo = np.empty(G); hi = np.empty(G)
        lo[gid[o][g_start == np.arange(N)]] = xs[g_start == np.arange(N)]
        hi[gid[o][last]] = xs[last]
        active = (hi > lo) & (rng[k] > 0)
        q = np.empty(N)
        q[o] = ((r_start + r_end) / 2 - g_start + 0.5) / n[gid[o]] - 0.5
        mag = np.where(active, (hi - lo) / (rng[k] if rng[k] > 0 else 1), 0.0)
        U[k] = mag[gid] * q
        masks |= active.astype(np.int64) << k
    cov = U @ U.T / N
    out = np.zeros(N)
    code = masks[gid]
    for m in np.unique(masks):
        if m == 0:
            continue
        comps = [k for k in range(K) if m >> k & 1]
        w, V = np.linalg.eigh(cov[np.ix_(comps, comps)])
        keep = w > tol * w.max()
        inv = (V[:, keep] / np.sqrt(w[keep])) @ V[:, keep].T
        sel = code == m
        out[sel] = (W[comps] @ inv) @ U[comps][:, sel]
    return out


FNS = {f.__name__: f for f in [grpo, dr_grpo, rloo, reinforce_pp_baseline, reinforce_pp, opo, grpo_passk, gpg, rank, stratified, gdpo, mo_grpo, corr_grpo, rdpo]}
missing = [n for n in names if n not in FNS]
if missing:
    print(f"bench/advantages.py has no numpy version of {', '.join(missing)}: add one (the formula is in the estimator's docstring)", file=sys.stderr)
    sys.exit(2)
for name in names:
    np.ascontiguousarray(FNS[name](), dtype=np.float64).tofile(f"{d}/np-{name}.f64")
print("ready", flush=True)
for line in sys.stdin:
    name = line.strip()
    if not name:
        break
    t = time.perf_counter()
    FNS[name]()
    print(json.dumps({"s": time.perf_counter() - t}), flush=True)
