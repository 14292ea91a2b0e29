"""rewardkit client: call a ``rewardkit serve`` reward server from Python trainers.

Standard library only, Python >= 3.9. Copy this one file next to your training script, or point the trainer's
config at it. The server address and token come from the environment unless given explicitly:

    REWARDKIT_URL    default http://127.0.0.1:8787
    REWARDKIT_TOKEN  bearer token (``rewardkit serve --token``), optional

Entry points, one per trainer (see docs/server.md and the README's "Reward server" section):

- verl ``custom_reward_function``: :func:`compute_score` (per sample, ``naive``/``gdpo`` managers) and
  :func:`compute_score_batch` (``batch`` manager). Both return ``{"score": reward, <component>: score,
  <component>_unscorable: 0.0 | 1.0}`` with the same keys on every call (verl appends per key).
- TRL ``GRPOTrainer(reward_funcs=...)``: :func:`trl_reward_funcs` and :func:`trl_reward_weights`.
- prime-rl / verifiers: :func:`verifiers_reward` (and :func:`verifiers_component` for per-component metrics).
- anything else: :class:`Client` (``score``, ``advantages``, ``spec``).

Async: :func:`compute_score_async`, :func:`verifiers_reward`, the functions :func:`verifiers_component` returns and
(by default) those :func:`trl_reward_funcs` returns are ``async def``: calling one returns a coroutine (the trainer
awaits it; by hand, ``asyncio.run(verifiers_reward("\\boxed{42}", "42"))`` -> ``1.0``). The rest is synchronous.

Component values (verl's ``<component>`` keys, TRL's ``rewardkit_<component>``, :func:`verifiers_component`) are
the raw component scores: not gated and not weighted. Only the total (``score``, ``rewardkit_total``,
:func:`verifiers_reward`) is the spec's reward. GDPO (verl's ``gdpo_reward_keys``, TRL with ``total=False``)
therefore normalizes raw scores; the spec's gates do not apply there.

Unscorable verdicts: the native protocol gives ``score: null``. verl needs floats, so an unscorable component
reads 0.0 there and sets ``<name>_unscorable`` to 1.0; TRL functions return ``None`` so TRL masks the sample.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Sequence

__all__ = [
    "Client",
    "RewardkitError",
    "default_client",
    "compute_score",
    "compute_score_async",
    "compute_score_batch",
    "trl_reward_funcs",
    "trl_reward_weights",
    "verifiers_reward",
    "verifiers_component",
]

DEFAULT_URL = "http://127.0.0.1:8787"


class RewardkitError(RuntimeError):
    """The server refused a request (``status`` is the HTTP status, ``code`` the protocol's error code)."""

    def __init__(self, message: str, status: Optional[int] = None, code: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.code = code


def _jsonable(o: Any) -> Any:
    # numpy scalars and arrays (verl hands parquet columns over as numpy) and anything else JSON lacks
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    return str(o)


class Client:
    """A connection to one reward server.

    ``retries`` covers 429 (waits ``Retry-After``), 503 and connection errors, with the same request each time:
    the server computes nothing twice for a retried batch (verdict cache) and answers it whole or not at all.
    Batches larger than ``batch_size`` are split, and results come back in input order.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 180.0,
        retries: int = 8,
        batch_size: int = 1024,
    ):
        self.url = (url or os.environ.get("REWARDKIT_URL") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else (os.environ.get("REWARDKIT_TOKEN") or None)
        self.timeout = timeout
        self.retries = retries
        self.batch_size = batch_size
        self.requests = 0  # HTTP requests sent (tests and logging)
        self._spec: Optional[Dict[str, Any]] = None

    # -- transport -------------------------------------------------------------------------------------------
    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Sends one request and returns the decoded JSON answer. Raises :class:`RewardkitError`."""
        data = None if body is None else json.dumps(body, default=_jsonable).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        delay = 0.5
        for attempt in range(self.retries + 1):
            self.requests += 1
            req = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    return json.loads(res.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                text = e.read().decode("utf-8", "replace")
                try:
                    err = json.loads(text).get("error", {})
                    message, code = err.get("message", text), err.get("code")
                except (ValueError, AttributeError):
                    message, code = text, None
                if e.code in (429, 503) and attempt < self.retries:
                    wait = e.headers.get("Retry-After")
                    time.sleep(min(60.0, float(wait)) if wait and wait.replace(".", "", 1).isdigit() else delay)
                    delay = min(delay * 2, 30.0)
                    continue
                raise RewardkitError("%s %s: HTTP %d: %s" % (method, path, e.code, message), e.code, code) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
                if attempt < self.retries:
                    time.sleep(delay)
                    delay = min(delay * 2, 30.0)
                    continue
                raise RewardkitError("%s %s: cannot reach %s: %s" % (method, path, self.url, e)) from None
        raise RewardkitError("unreachable")  # pragma: no cover

    # -- native protocol -------------------------------------------------------------------------------------
    def spec(self) -> Dict[str, Any]:
        """``GET /v1/spec`` (cached): name, hash, component names, the spec and the server's limits."""
        if self._spec is None:
            self._spec = self.request("GET", "/v1/spec")
        return self._spec

    def components(self) -> List[str]:
        """Component names in spec order."""
        return list(self.spec()["components"])

    def score(self, rollouts: Sequence[Dict[str, Any]], step: Optional[int] = None, details: bool = False) -> List[Dict[str, Any]]:
        """``POST /v1/score``: one result ``{"id", "reward", "components", "advantage"}`` (or ``{"id", "error"}``) per
        rollout, in order. Advantages are computed over the groups inside each request: send whole groups."""
        out: List[Dict[str, Any]] = []
        n = max(1, self.batch_size)
        for i in range(0, len(rollouts), n):
            body: Dict[str, Any] = {"rollouts": list(rollouts[i : i + n]), "details": details}
            if step is not None:
                body["step"] = int(step)
            out.extend(self.request("POST", "/v1/score", body)["results"])
        return out

    def advantages(self, rollouts: Sequence[Dict[str, Any]], estimator: Optional[str] = None, preset: Optional[str] = None, options: Optional[Dict[str, Any]] = None) -> List[Optional[float]]:
        """``POST /v1/advantages`` over rollouts with ``id``, ``group``, ``reward`` (and ``components``)."""
        body: Dict[str, Any] = {"rollouts": list(rollouts)}
        if estimator is not None:
            body["estimator"] = estimator
        if preset is not None:
            body["preset"] = preset
        if options is not None:
            body["options"] = options
        return [r.get("advantage") for r in self.request("POST", "/v1/advantages", body)["results"]]


_default: Optional[Client] = None
_default_lock = threading.Lock()


def default_client() -> Client:
    """The process-wide client configured from ``REWARDKIT_URL`` / ``REWARDKIT_TOKEN``."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Client()
        return _default


def _client_from(kw: Dict[str, Any]) -> Client:
    # verl passes reward_kwargs into every call: rewardkit_url / rewardkit_token select another server
    url, token = kw.get("rewardkit_url"), kw.get("rewardkit_token")
    if url is None and token is None:
        return default_client()
    return Client(url=url, token=token)


def _component_score(result: Dict[str, Any], name: str) -> Optional[float]:
    comps = result.get("components") or {}
    c = comps.get(name)
    s = c.get("score") if isinstance(c, dict) else c
    return None if s is None else float(s)


# -- verl ----------------------------------------------------------------------------------------------------
def _verl_row(result: Dict[str, Any], names: Sequence[str]) -> Dict[str, float]:
    reward = result.get("reward")
    row: Dict[str, float] = {"score": 0.0 if reward is None else float(reward)}
    for name in names:
        s = _component_score(result, name)
        row[name] = 0.0 if s is None else s
        row[name + "_unscorable"] = 1.0 if s is None else 0.0
    return row


def _verl_rollout(i: int, data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any) -> Dict[str, Any]:
    r: Dict[str, Any] = {"id": str(i), "group": "verl-%d" % i, "completion": solution_str, "reference": ground_truth}
    meta: Dict[str, Any] = {"data_source": data_source}
    if isinstance(extra_info, dict):
        meta["extra_info"] = extra_info
    r["metadata"] = meta
    return r


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any], extra_infos: Optional[Sequence[Any]] = None, **kw: Any) -> List[Dict[str, float]]:
    """verl batch reward function (``reward.reward_manager.name=batch``): one request for the whole batch.

    Returns one dict per sample: ``{"score": reward, <component>: score, <component>_unscorable: 0.0 | 1.0}``.
    Example: ``compute_score_batch(["math"], ["\\\\boxed{42}"], ["42"])`` →
    ``[{"score": 1.0, "accuracy": 1.0, "accuracy_unscorable": 0.0, ...}]``.
    """
    client = _client_from(kw)
    names = client.components()
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    rollouts = [_verl_rollout(i, d, s, g, e) for i, (d, s, g, e) in enumerate(zip(data_sources, solution_strs, ground_truths, infos))]
    step = kw.get("step")
    return [_verl_row(r, names) for r in client.score(rollouts, step=step)]


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kw: Any) -> Dict[str, float]:
    """verl ``custom_reward_function`` (``naive``, ``gdpo``, ``dapo`` managers): one sample per call.

    ``ground_truth`` may be any JSON (a string, ``{"target": [...]}`` ...). Same keys on every call, so verl's
    per-key ``reward_extra_info`` columns stay aligned and GDPO can read each component
    (``algorithm.gdpo_reward_keys=[accuracy,format]``).
    """
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info], **kw)[0]


async def compute_score_async(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kw: Any) -> Dict[str, float]:
    """:func:`compute_score` for verl's async managers (``rate_limited``). Async: returns a coroutine; the HTTP call
    runs in a thread."""
    return await asyncio.to_thread(compute_score, data_source, solution_str, ground_truth, extra_info, **kw)


# -- TRL -----------------------------------------------------------------------------------------------------
_REFERENCE_COLUMNS = ("solution", "answer", "ground_truth", "reference")


class _SharedBatch:
    """Scores a TRL batch once for all reward functions built together (they are called with the same batch)."""

    def __init__(self, client: Client, reference_column: Optional[str]):
        self.client = client
        self.reference_column = reference_column
        self.lock = threading.Lock()
        self.recent: "Dict[str, concurrent.futures.Future[List[Dict[str, Any]]]]" = {}
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="rewardkit")

    def _references(self, n: int, kw: Dict[str, Any]) -> List[Any]:
        cols = (self.reference_column,) if self.reference_column else _REFERENCE_COLUMNS
        for c in cols:
            if c in kw and kw[c] is not None:
                return list(kw[c])
        return [None] * n

    def submit(self, prompts: Sequence[Any], completions: Sequence[Any], kw: Dict[str, Any]) -> "concurrent.futures.Future[List[Dict[str, Any]]]":
        refs = self._references(len(completions), kw)
        state = kw.get("trainer_state")
        step = getattr(state, "global_step", None)
        rollouts = []
        for i, comp in enumerate(completions):
            r: Dict[str, Any] = {"id": str(i), "completion": comp, "reference": refs[i]}
            p = prompts[i] if prompts is not None and i < len(prompts) else None
            if p is not None:
                r["prompt"] = p
            else:
                r["group"] = str(i)
            rollouts.append(r)
        key = hashlib.sha256(json.dumps([rollouts, step], default=_jsonable, sort_keys=True).encode("utf-8")).hexdigest()
        with self.lock:
            fut = self.recent.get(key)
            if fut is None:
                fut = self.pool.submit(self.client.score, rollouts, step)
                self.recent[key] = fut
                while len(self.recent) > 4:
                    self.recent.pop(next(iter(self.recent)))
            return fut


def trl_reward_funcs(client: Optional[Client] = None, total: bool = True, components: Optional[Sequence[str]] = None, reference_column: Optional[str] = None, asynchronous: bool = True) -> List[Callable[..., Any]]:
    """TRL ``GRPOTrainer`` reward functions: ``rewardkit_total`` (when ``total``) then ``rewardkit_<component>``
    per component. Each returns ``list[float | None]`` aligned with ``completions``; ``None`` marks an unscorable
    sample so TRL masks it (NaN) instead of training on a fake 0. All functions from one call share one HTTP
    request per batch. The reference is read from the dataset column ``reference_column`` (default: the first of
    ``solution``, ``answer``, ``ground_truth``, ``reference``); ``trainer_state.global_step`` is sent as ``step``.

    Pair with :func:`trl_reward_weights` (same arguments) for ``GRPOConfig(reward_weights=...)``: with ``total``
    the total trains and the components are logged at weight 0; with ``total=False`` each component trains at its
    spec weight (TRL's ``multi_objective_aggregation="normalize_then_sum"`` gives GDPO).
    """
    c = client or default_client()
    names = list(components) if components is not None else c.components()
    shared = _SharedBatch(c, reference_column)

    def make(name: Optional[str]) -> Callable[..., Any]:
        def pick(results: List[Dict[str, Any]]) -> List[Optional[float]]:
            if name is None:
                return [None if r.get("reward") is None else float(r["reward"]) for r in results]
            return [_component_score(r, name) for r in results]

        if asynchronous:

            async def fn(prompts: Any = None, completions: Any = None, **kw: Any) -> List[Optional[float]]:
                return pick(await asyncio.wrap_future(shared.submit(prompts, completions, kw)))

        else:

            def fn(prompts: Any = None, completions: Any = None, **kw: Any) -> List[Optional[float]]:  # type: ignore[misc]
                return pick(shared.submit(prompts, completions, kw).result())

        fn.__name__ = "rewardkit_" + (name if name is not None else "total")
        fn.__qualname__ = fn.__name__
        return fn

    return ([make(None)] if total else []) + [make(n) for n in names]


def trl_reward_weights(client: Optional[Client] = None, total: bool = True, components: Optional[Sequence[str]] = None) -> List[float]:
    """``GRPOConfig.reward_weights`` matching :func:`trl_reward_funcs` called with the same arguments:
    ``[1.0, 0.0, ...]`` with ``total`` (components logged only), else each component's spec weight."""
    c = client or default_client()
    names = list(components) if components is not None else c.components()
    if total:
        return [1.0] + [0.0] * len(names)
    weights = {comp["name"]: float(comp.get("weight", 1.0)) for comp in c.spec()["spec"]["components"]}
    return [weights.get(n, 0.0) for n in names]


# -- prime-rl / verifiers ------------------------------------------------------------------------------------
def _one(completion: Any, answer: Any, info: Any, kw: Dict[str, Any]) -> Dict[str, Any]:
    r: Dict[str, Any] = {"id": "0", "group": "0", "completion": completion, "reference": answer}
    if isinstance(info, dict):
        r["metadata"] = {"info": info}
    return _client_from(kw).score([r])[0]


async def verifiers_reward(completion: Any, answer: Any = None, info: Any = None, state: Any = None, **kw: Any) -> float:
    """A verifiers reward function (``vf.Rubric(funcs=[verifiers_reward])``, or v1 TOML
    ``fn = "rewardkit_client.py:verifiers_reward"``): the spec's total reward for one completion (text or chat
    messages). verifiers wants a float, so a null reward reads 0.0.

    Async: calling it returns a coroutine (verifiers awaits it; by hand ``asyncio.run(verifiers_reward(...))``).
    The HTTP call runs in a thread, so the event loop is not blocked."""
    res = await asyncio.to_thread(_one, completion, answer, info, kw)
    reward = res.get("reward")
    return 0.0 if reward is None else float(reward)


def verifiers_component(name: str) -> Callable[..., Any]:
    """An async verifiers function (calling it returns a coroutine) giving one component's raw score (not gated,
    not weighted; 0.0 when unscorable); add it with weight 0 to log it as a metric (prime-rl reads per-metric
    values from ``rollout["metrics"]`` for GDPO)."""

    async def fn(completion: Any, answer: Any = None, info: Any = None, state: Any = None, **kw: Any) -> float:
        s = _component_score(await asyncio.to_thread(_one, completion, answer, info, kw), name)
        return 0.0 if s is None else s

    fn.__name__ = "rewardkit_" + name
    return fn
