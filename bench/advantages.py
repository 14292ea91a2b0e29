"""Plain numpy implementations of rewardkit's advantage formulas, timed on the batch written by
bench/advantages.mjs. Usage: python3 bench/advantages.py <dir> <n> <group size> <components> <repeats>.
Prints one JSON object: {estimator: {"seconds": best time, "checksum": [advantages …]}} (advantages saved as .f64 files)."""
import json, sys, time
import numpy as np

d, n, gs, K, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
G = n // gs
R = np.fromfile(f"{d}/rewards.f64").reshape(G, gs)
C = np.fromfile(f"{d}/components.f64").reshape(K, G, gs)
L = np.fromfile(f"{d}/lengths.f64").reshape(G, gs)
S = np.fromfile(f"{d}/strata.f64").reshape(G, gs)


def grpo(R, eps=1e-6):
    m = R.mean(1, keepdims=True)
    s = R.std(1, ddof=1, keepdims=True)
    return (R - m) / (s + eps)


def dr_grpo(R):
    return R - R.mean(1, keepdims=True)


def rloo(R):
    return gs / (gs - 1) * (R - R.mean(1, keepdims=True))


def whiten(x, eps=1e-8):
    return (x - x.mean()) / np.sqrt(x.var(ddof=1) + eps)


def rpp(R):
    return whiten(R - R.mean(1, keepdims=True))


def opo(R):
    return R - ((L * R).sum(1, keepdims=True) / L.sum(1, keepdims=True))


def passk(R, eps=1e-6):
    A = np.zeros_like(R)
    top2 = -np.partition(-R, 1, axis=1)[:, :2]
    best = R.argmax(1)
    A[np.arange(G), best] = (top2[:, 0] - top2[:, 1]) / (R.std(1, ddof=1) + eps)
    return A


def gpg(R):
    alpha = R.size / max(1, np.count_nonzero(R))
    return alpha * (R - R.mean(1, keepdims=True))


def midrank(R):
    less = (R[:, None, :] < R[:, :, None]).sum(2)
    eq = (R[:, None, :] == R[:, :, None]).sum(2)
    return less + (eq + 1) / 2


def rank(R):
    return (midrank(R) - (gs + 1) / 2) * 2 / (gs - 1)


def stratified(R, alpha=0.5, eps=1e-6):
    glob_s = R.std(1, keepdims=True)
    flat = R.max(1, keepdims=True) == R.min(1, keepdims=True)
    glob = np.where(flat, 0.0, (R - R.mean(1, keepdims=True)) / (glob_s + eps))
    out = glob.copy()
    for s in (0.0, 1.0):
        M = S == s
        k = M.sum(1, keepdims=True)
        mean = np.where(k > 0, (R * M).sum(1, keepdims=True) / np.maximum(k, 1), 0)
        var = ((R - mean) ** 2 * M).sum(1, keepdims=True) / np.maximum(k, 1)
        hi = np.where(M, R, -np.inf).max(1, keepdims=True)
        lo = np.where(M, R, np.inf).min(1, keepdims=True)
        san = np.where(hi > lo, (R - mean) / (np.sqrt(var) + eps), 0.0)
        out = np.where(M & (k >= 2), alpha * san + (1 - alpha) * glob, out)
    return out


def zscore(X, ddof, eps):
    m = X.mean(2, keepdims=True)
    s = X.std(2, ddof=ddof, keepdims=True)
    flat = X.max(2, keepdims=True) == X.min(2, keepdims=True)
    return np.where(flat, 0.0, (X - m) / (s + eps))


def gdpo(C):
    return whiten(zscore(C, 1, 1e-6).sum(0))


def mo_grpo(C):
    return zscore(C, 0, 1e-6).sum(0)


def corr_grpo(C, eps=1e-6):
    c = C - C.mean(2, keepdims=True)
    active = C.max(2) > C.min(2)  # K, G
    cov = np.einsum("kgi,lgi->gkl", c, c)
    sd = np.sqrt(np.einsum("gkk->gk", cov))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = cov / (sd[:, :, None] * sd[:, None, :])
    act = active.T  # G, K
    both = act[:, :, None] & act[:, None, :]
    D = np.where(both, np.nan_to_num(rho), 0.0).sum((1, 2))
    num = (c * active[:, :, None]).sum(0)
    return num / (np.sqrt(np.maximum(D, 0))[:, None] + eps)


def rdpo(C, tol=1e-10):
    q = (midrank_k(C) - 0.5) / gs - 0.5
    rng = C.reshape(K, -1).max(1) - C.reshape(K, -1).min(1)
    spread = C.max(2) - C.min(2)
    mag = np.where(rng[:, None] > 0, spread / np.where(rng > 0, rng, 1)[:, None], 0.0)
    u = q * mag[:, :, None]
    cov = np.einsum("kgi,lgi->kl", u, u) / (G * gs)
    masks = ((spread > 0) & (rng[:, None] > 0)).T  # G, K
    out = np.zeros((G, gs))
    codes = masks @ (1 << np.arange(K))
    for code in np.unique(codes):
        if code == 0:
            continue
        comps = [k for k in range(K) if code >> k & 1]
        w, V = np.linalg.eigh(cov[np.ix_(comps, comps)])
        keep = w > tol * w.max()
        inv = (V[:, keep] / np.sqrt(w[keep])) @ V[:, keep].T
        sel = codes == code
        out[sel] = np.einsum("c,cgi->gi", inv.sum(0), u[comps][:, sel])
    return out


def midrank_k(C):
    less = (C[:, :, None, :] < C[:, :, :, None]).sum(3)
    eq = (C[:, :, None, :] == C[:, :, :, None]).sum(3)
    return less + (eq + 1) / 2


FNS = {
    "grpo": lambda: grpo(R), "dr_grpo": lambda: dr_grpo(R), "rloo": lambda: rloo(R),
    "reinforce_pp_baseline": lambda: rpp(R), "opo": lambda: opo(R), "grpo_passk": lambda: passk(R),
    "gpg": lambda: gpg(R), "rank": lambda: rank(R), "stratified": lambda: stratified(R),
    "gdpo": lambda: gdpo(C), "mo_grpo": lambda: mo_grpo(C), "corr_grpo": lambda: corr_grpo(C), "rdpo": lambda: rdpo(C),
}
only = set(sys.argv[6].split(",")) if len(sys.argv) > 6 and sys.argv[6] else set(FNS)
res = {}
for name, fn in FNS.items():
    if name not in only:
        continue
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        a = fn()
        best = min(best, time.perf_counter() - t)
    np.ascontiguousarray(a, dtype=np.float64).reshape(-1).tofile(f"{d}/np-{name}.f64")
    res[name] = {"seconds": best}
print(json.dumps(res))
