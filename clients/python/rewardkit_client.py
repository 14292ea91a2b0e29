"""rewardkit client: call a ``rewardkit serve`` reward server from Python trainers.

Standard library only, Python >= 3.9, fully annotated. Install it (``pip install ./clients/python``, offline:
``pip install --no-build-isolation ./clients/python``), or point the trainer's config at this one file. The server
address and token come from the environment unless given explicitly:

    REWARDKIT_URL    default http://127.0.0.1:8787
    REWARDKIT_TOKEN  bearer token (the server's ``REWARDKIT_TOKEN`` or ``--token-file``), optional

Entry points, one per trainer (see docs/server.md and the README's "Reward server" section):

- verl ``custom_reward_function``: :func:`compute_score` (one sample per call), :func:`compute_score_async`
  (current verl's reward loop: concurrent calls are coalesced into one request) and :func:`compute_score_batch`
  (older verl's ``batch`` manager). They return ``{"score": reward, <component>: score,
  <component>_unscorable: 0.0 | 1.0}`` with the same keys on every call (verl appends per key).
- TRL ``GRPOTrainer(reward_funcs=...)``: :func:`trl_reward_funcs` and :func:`trl_reward_weights`.
- prime-rl / verifiers: :func:`verifiers_reward` (and :func:`verifiers_component` for per-component metrics).
- anything else: :class:`Client` (``score``, ``advantages``, ``spec``).

The training step (schedules read it) is sent whenever the trainer exposes it: TRL's ``trainer_state.global_step``,
verl's ``extra_info["global_steps"]`` (the policy version the rollout was sampled with, which current verl's
rollout servers put there) or ``reward_kwargs.step``. Completion lengths are sent as ``completion_tokens`` from
token ids where the trainer has them (TRL's ``completion_ids``, verifiers' trajectory tokens); otherwise the
server approximates them from characters and says so in the overlong component's ``details.lengthSource``.

Failures: every request has a connect timeout and a read timeout. A server that refuses connections is retried
with exponential backoff and jitter for at most ``unreachable_s`` seconds (default 4), then
:class:`RewardkitUnreachable` names the URL; 429 (after ``Retry-After``), 502, 503 and 504 are retried up to
``retries`` times; any other error raises :class:`RewardkitError` with the server's message.

Component values (verl's ``<component>`` keys, TRL's ``rewardkit_<component>``, :func:`verifiers_component`) are
the raw component scores: not gated and not weighted. Only the total (``score``, ``rewardkit_total``,
:func:`verifiers_reward`) is the spec's reward.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import http.client
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.parse
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = [
    "Client",
    "RewardkitError",
    "RewardkitUnreachable",
    "default_client",
    "compute_score",
    "compute_score_async",
    "compute_score_batch",
    "trl_reward_funcs",
    "trl_reward_weights",
    "verifiers_reward",
    "verifiers_component",
    "STEP_HEADER",
]

__version__ = "0.2.0"

DEFAULT_URL = "http://127.0.0.1:8787"
#: Header carrying the training step (the server also reads a ``step`` field of the body).
STEP_HEADER = "X-Rewardkit-Step"
_RETRY_STATUS = (429, 502, 503, 504)


class RewardkitError(RuntimeError):
    """The server refused a request (``status`` is the HTTP status, ``code`` the protocol's error code)."""

    def __init__(self, message: str, status: Optional[int] = None, code: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.code = code


class _ReadTimeout(Exception):
    pass


class RewardkitUnreachable(RewardkitError):
    """No server answered at ``url`` (connection refused, reset or timed out) within the client's budget."""

    def __init__(self, message: str, url: str):
        super().__init__(message)
        self.url = url


def _jsonable(o: Any) -> Any:
    # numpy scalars and arrays (verl hands parquet columns over as numpy) and anything else JSON lacks
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    return str(o)


def _env_float(name: str, default: float) -> float:
    v = os.environ.get(name)
    try:
        return float(v) if v else default
    except ValueError:
        return default


def _as_step(v: Any) -> Optional[int]:
    """A non-negative integer step from an int, a numpy integer or a digit string; None otherwise."""
    if v is None or isinstance(v, bool):
        return None
    if hasattr(v, "item") and not isinstance(v, (int, float, str)):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, str) and v.strip().isdigit():
        v = int(v.strip())
    return v if isinstance(v, int) and v >= 0 else None


class Client:
    """A connection to one reward server.

    ``connect_timeout`` and ``read_timeout`` (seconds) bound each attempt. A server that cannot be reached
    (refused, reset, connect timeout) is retried with exponential backoff and full jitter for at most
    ``unreachable_s`` seconds in total, then :class:`RewardkitUnreachable` (naming the URL) is raised; with a
    budget over 10 s, one line on stderr announces the first retry. Busy answers (429 after ``Retry-After``, 502, 503, 504) are retried up to
    ``retries`` times. A retried request is the same request: the server computes nothing twice for it (verdict
    cache) and answers it whole or not at all. Batches larger than ``batch_size`` are split; results come back in
    input order. Thread-safe: each request opens its own connection.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: Optional[float] = None,
        retries: int = 8,
        batch_size: int = 1024,
        connect_timeout: float = 2.0,
        read_timeout: float = 180.0,
        unreachable_s: Optional[float] = None,
        backoff: float = 0.25,
        max_backoff: float = 30.0,
    ):
        self.url = (url or os.environ.get("REWARDKIT_URL") or DEFAULT_URL).rstrip("/")
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("rewardkit: bad server URL %r: expected http://host:port" % self.url)
        self._parts = parts
        self.token = token if token is not None else (os.environ.get("REWARDKIT_TOKEN") or None)
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout if timeout is None else timeout  # ``timeout``: the old name of read_timeout
        self.retries = retries
        self.batch_size = batch_size
        self.unreachable_s = unreachable_s if unreachable_s is not None else _env_float("REWARDKIT_UNREACHABLE_S", 4.0)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.requests = 0  # HTTP attempts made (tests and logging)
        self._spec: Optional[Dict[str, Any]] = None
        self._warned = False

    # -- transport -------------------------------------------------------------------------------------------
    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        p = self._parts
        if p.scheme == "https":
            return http.client.HTTPSConnection(p.hostname or "", p.port, timeout=timeout)
        return http.client.HTTPConnection(p.hostname or "", p.port, timeout=timeout)

    def _once(self, method: str, path: str, data: Optional[bytes], headers: Dict[str, str], connect_timeout: float) -> Tuple[int, Mapping[str, str], bytes]:
        conn = self._connection(connect_timeout)
        try:
            conn.connect()  # bounded by connect_timeout
            if conn.sock is not None:
                conn.sock.settimeout(self.read_timeout)
            base = self._parts.path.rstrip("/")
            try:
                conn.request(method, base + path, body=data, headers=headers)
                res = conn.getresponse()
                return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
            except (socket.timeout, TimeoutError):
                raise _ReadTimeout() from None
        finally:
            conn.close()

    def _sleep(self, attempt: int) -> float:
        # exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter")
        return random.uniform(0, min(self.max_backoff, self.backoff * (2**attempt)))

    def request(self, method: str, path: str, body: Any = None, headers: Optional[Mapping[str, str]] = None) -> Any:
        """Sends one request and returns the decoded JSON answer. Raises :class:`RewardkitUnreachable` when no
        server answers within ``unreachable_s``, :class:`RewardkitError` for an error answer."""
        data = None if body is None else json.dumps(body, default=_jsonable).encode("utf-8")
        hdrs = {"Accept": "application/json", "User-Agent": "rewardkit-client/" + __version__}
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        if headers:
            hdrs.update(headers)
        t0 = time.monotonic()
        busy = 0  # retries spent on busy answers
        down = 0  # failed connection attempts
        while True:
            self.requests += 1
            remaining = self.unreachable_s - (time.monotonic() - t0)
            try:
                status, res_headers, text = self._once(method, path, data, hdrs, max(0.05, min(self.connect_timeout, remaining)) if down else self.connect_timeout)
            except _ReadTimeout:
                # connected, then no answer: the server is alive but slow (or stuck); sending the batch again would
                # only add load, so this is not retried
                raise RewardkitError("rewardkit: %s %s%s: no answer within read_timeout=%.0f s" % (method, self.url, path, self.read_timeout)) from None
            except (ConnectionError, socket.timeout, TimeoutError, OSError, http.client.HTTPException) as e:
                down += 1
                elapsed = time.monotonic() - t0
                wait = self._sleep(down)
                if elapsed + wait >= self.unreachable_s:
                    raise RewardkitUnreachable(
                        "rewardkit: cannot reach the reward server at %s (%s %s): %s; %d attempt(s) in %.1f s. Is `rewardkit serve` running "
                        "there? Set REWARDKIT_URL (verl: reward_kwargs.rewardkit_url) to its address." % (self.url, method, path, e or type(e).__name__, down, elapsed),
                        self.url,
                    ) from None
                if not self._warned and self.unreachable_s > 10:  # a short budget ends in the exception soon enough
                    self._warned = True
                    sys.stderr.write("rewardkit: %s %s%s failed (%s); retrying for up to %.0f s\n" % (method, self.url, path, e or type(e).__name__, self.unreachable_s))
                time.sleep(wait)
                continue
            if 200 <= status < 300:
                return json.loads(text.decode("utf-8"))
            message, code = self._error(text)
            if status in _RETRY_STATUS and busy < self.retries:
                busy += 1
                ra = res_headers.get("retry-after", "")
                try:
                    wait = min(60.0, float(ra)) if ra else self._sleep(busy)
                except ValueError:
                    wait = self._sleep(busy)
                time.sleep(wait)
                continue
            raise RewardkitError("rewardkit: %s %s%s: HTTP %d: %s" % (method, self.url, path, status, message), status, code)

    @staticmethod
    def _error(text: bytes) -> Tuple[str, Optional[str]]:
        s = text.decode("utf-8", "replace")
        try:
            err = json.loads(s).get("error", {})
            return str(err.get("message", s)), err.get("code")
        except (ValueError, AttributeError):
            return s, None

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
        rollout, in order. ``step`` (the training step, for schedules) goes in the body and the ``X-Rewardkit-Step``
        header; a rollout's own ``step`` wins. Advantages are computed over the groups inside each request."""
        out: List[Dict[str, Any]] = []
        n = max(1, self.batch_size)
        s = _as_step(step)
        headers = {STEP_HEADER: str(s)} if s is not None else None
        for i in range(0, len(rollouts), n):
            body: Dict[str, Any] = {"rollouts": list(rollouts[i : i + n]), "details": details}
            if s is not None:
                body["step"] = s
            out.extend(self.request("POST", "/v1/score", body, headers)["results"])
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
_clients: Dict[Tuple[Optional[str], Optional[str]], Client] = {}
_default_lock = threading.Lock()


def default_client() -> Client:
    """The process-wide client configured from ``REWARDKIT_URL`` / ``REWARDKIT_TOKEN``."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Client()
        return _default


def _client_from(kw: Mapping[str, Any]) -> Client:
    # verl passes reward_kwargs into every call: rewardkit_url / rewardkit_token select another server
    url, token = kw.get("rewardkit_url"), kw.get("rewardkit_token")
    if url is None and token is None:
        return default_client()
    with _default_lock:
        c = _clients.get((url, token))
        if c is None:
            c = _clients[(url, token)] = Client(url=url, token=token)
        return c


def _component_score(result: Mapping[str, Any], name: str) -> Optional[float]:
    comps = result.get("components") or {}
    c = comps.get(name)
    s = c.get("score") if isinstance(c, dict) else c
    return None if s is None else float(s)


# -- verl ----------------------------------------------------------------------------------------------------
def _verl_row(result: Mapping[str, Any], names: Sequence[str]) -> Dict[str, float]:
    reward = result.get("reward")
    row: Dict[str, float] = {"score": 0.0 if reward is None else float(reward)}
    for name in names:
        s = _component_score(result, name)
        row[name] = 0.0 if s is None else s
        row[name + "_unscorable"] = 1.0 if s is None else 0.0
    return row


def _verl_step(extra_info: Any, kw: Mapping[str, Any]) -> Optional[int]:
    """verl's step: ``extra_info["global_steps"]`` (current verl's rollout servers tag each trajectory with the policy
    version it was sampled with, and the reward loop merges those fields into ``extra_info``; partial rollouts carry
    ``max_global_steps``), else ``reward_kwargs.step``."""
    if isinstance(extra_info, Mapping):
        for key in ("global_steps", "max_global_steps", "global_step", "step"):
            s = _as_step(extra_info.get(key))
            if s is not None:
                return s
    return _as_step(kw.get("step"))


_tokenizers: Dict[str, Any] = {}


def _token_count(text: str, kw: Mapping[str, Any]) -> Optional[int]:
    """Tokens of ``text`` with the tokenizer named by ``reward_kwargs.rewardkit_tokenizer`` (a Hugging Face name or
    path; transformers is loaded lazily, as every verl install has it); None when not configured."""
    name = kw.get("rewardkit_tokenizer")
    if not name:
        return None
    tok = _tokenizers.get(name)
    if tok is None:
        from transformers import AutoTokenizer  # type: ignore[import-not-found]

        tok = _tokenizers[name] = AutoTokenizer.from_pretrained(name)
    return len(tok(text, add_special_tokens=False)["input_ids"])


def _verl_rollout(i: int, data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any, kw: Mapping[str, Any]) -> Dict[str, Any]:
    r: Dict[str, Any] = {"id": str(i), "group": "verl-%d" % i, "completion": solution_str, "reference": ground_truth}
    meta: Dict[str, Any] = {"data_source": data_source}
    if isinstance(extra_info, Mapping):
        meta["extra_info"] = {k: v for k, v in extra_info.items() if k != "rollout_reward_scores"}
        n = extra_info.get("completion_tokens", extra_info.get("response_length"))
        if _as_step(n) is not None:
            r["completion_tokens"] = _as_step(n)
    r["metadata"] = meta
    if "completion_tokens" not in r:
        n = _token_count(solution_str, kw)
        if n is not None:
            r["completion_tokens"] = n
    s = _verl_step(extra_info, kw)
    if s is not None:
        r["step"] = s
    return r


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any], extra_infos: Optional[Sequence[Any]] = None, **kw: Any) -> List[Dict[str, float]]:
    """verl batch reward function (older verl's ``batch`` manager): one request for the whole batch.

    Returns one dict per sample: ``{"score": reward, <component>: score, <component>_unscorable: 0.0 | 1.0}``.
    Example: ``compute_score_batch(["math"], ["\\\\boxed{42}"], ["42"])`` →
    ``[{"score": 1.0, "accuracy": 1.0, "accuracy_unscorable": 0.0, ...}]``.
    """
    client = _client_from(kw)
    names = client.components()
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    rollouts = [_verl_rollout(i, d, s, g, e, kw) for i, (d, s, g, e) in enumerate(zip(data_sources, solution_strs, ground_truths, infos))]
    return [_verl_row(r, names) for r in client.score(rollouts, step=_as_step(kw.get("step")))]


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kw: Any) -> Dict[str, float]:
    """verl ``custom_reward_function`` (``naive``, ``gdpo``, ``dapo`` managers): one sample per call.

    ``ground_truth`` may be any JSON (a string, ``{"target": [...]}`` ...). Same keys on every call, so verl's
    per-key ``reward_extra_info`` columns stay aligned and GDPO can read each component
    (``algorithm.gdpo_reward_keys=[accuracy,format]``). The step comes from ``extra_info["global_steps"]``.
    """
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info], **kw)[0]


class _Coalescer:
    """Gathers the concurrent single-sample calls of one event loop into batched requests: a batch leaves when
    ``window_s`` has passed since its first sample or when it holds ``batch_size`` samples."""

    def __init__(self, client: Client, window_s: float):
        self.client = client
        self.window_s = window_s
        self.pending: List[Tuple[Dict[str, Any], "asyncio.Future[Dict[str, Any]]"]] = []
        self.timer: Optional[asyncio.TimerHandle] = None

    def add(self, rollout: Dict[str, Any]) -> "asyncio.Future[Dict[str, Any]]":
        loop = asyncio.get_running_loop()
        fut: "asyncio.Future[Dict[str, Any]]" = loop.create_future()
        self.pending.append((rollout, fut))
        if len(self.pending) >= self.client.batch_size:
            self.flush()
        elif self.timer is None:
            self.timer = loop.call_later(self.window_s, self.flush)
        return fut

    def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        batch, self.pending = self.pending, []
        if batch:
            asyncio.ensure_future(self._send(batch))

    async def _send(self, batch: List[Tuple[Dict[str, Any], "asyncio.Future[Dict[str, Any]]"]]) -> None:
        rollouts = []
        for i, (r, _) in enumerate(batch):
            r = dict(r, id=str(i), group="verl-%d" % i)
            rollouts.append(r)
        try:
            results = await asyncio.to_thread(self.client.score, rollouts)
        except BaseException as e:  # every waiting call gets the error
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(e)
            return
        for (_, fut), res in zip(batch, results):
            if not fut.done():
                fut.set_result(res)


# per event loop (weakly held: a finished loop takes its coalescers with it), then per client
_coalescers: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Dict[int, _Coalescer]]" = weakref.WeakKeyDictionary()


async def compute_score_async(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kw: Any) -> Dict[str, float]:
    """verl ``custom_reward_function`` for the reward loop of current verl (``naive`` manager; also ``rate_limited``):
    async, so verl awaits it on its event loop. Concurrent calls (the reward loop scores a whole chunk at once) are
    coalesced into one ``/v1/score`` request per ``reward_kwargs.rewardkit_window_ms`` (default 5 ms), so this is the
    batched path on current verl. Returns :func:`compute_score`'s dict."""
    client = _client_from(kw)
    names = client.components() if client._spec is not None else await asyncio.to_thread(client.components)
    per_loop = _coalescers.setdefault(asyncio.get_running_loop(), {})
    co = per_loop.get(id(client))
    if co is None or co.client is not client:
        window = float(kw.get("rewardkit_window_ms", 5.0)) / 1000.0
        co = per_loop[id(client)] = _Coalescer(client, window)
    rollout = _verl_rollout(0, data_source, solution_str, ground_truth, extra_info, kw)
    return _verl_row(await co.add(rollout), names)


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

    def _references(self, n: int, kw: Mapping[str, Any]) -> List[Any]:
        cols = (self.reference_column,) if self.reference_column else _REFERENCE_COLUMNS
        for c in cols:
            if c in kw and kw[c] is not None:
                return list(kw[c])
        return [None] * n

    def submit(self, prompts: Optional[Sequence[Any]], completions: Sequence[Any], kw: Mapping[str, Any]) -> "concurrent.futures.Future[List[Dict[str, Any]]]":
        refs = self._references(len(completions), kw)
        step = _as_step(getattr(kw.get("trainer_state"), "global_step", None))
        ids = kw.get("completion_ids")
        rollouts = []
        for i, comp in enumerate(completions):
            r: Dict[str, Any] = {"id": str(i), "completion": comp, "reference": refs[i]}
            p = prompts[i] if prompts is not None and i < len(prompts) else None
            if p is not None:
                r["prompt"] = p
            else:
                r["group"] = str(i)
            if ids is not None and i < len(ids) and ids[i] is not None:
                r["completion_tokens"] = len(ids[i])  # TRL's token ids: the overlong penalty counts real tokens
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
    per component, called as TRL's ``_calculate_rewards`` calls them (``prompts``, ``completions``,
    ``completion_ids``, the dataset columns, ``trainer_state``, ``log_extra``, ``log_metric``; plain or
    conversational). Each returns ``list[float | None]`` aligned with ``completions``; ``None`` marks an unscorable
    sample so TRL masks it (NaN) instead of training on a fake 0. All functions from one call share one HTTP request
    per batch. The reference is read from the dataset column ``reference_column`` (default: the first of
    ``solution``, ``answer``, ``ground_truth``, ``reference``); ``len(completion_ids[i])`` is sent as
    ``completion_tokens``; ``trainer_state.global_step`` is sent as the step.

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

        fn: Callable[..., Any]
        if asynchronous:

            async def afn(prompts: Any = None, completions: Any = None, **kw: Any) -> List[Optional[float]]:
                return pick(await asyncio.wrap_future(shared.submit(prompts, completions, kw)))

            fn = afn
        else:

            def sfn(prompts: Any = None, completions: Any = None, **kw: Any) -> List[Optional[float]]:
                return pick(shared.submit(prompts, completions, kw).result())

            fn = sfn
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
def _trajectory_tokens(state: Any) -> Optional[int]:
    """Completion tokens of a verifiers rollout: the sum of ``len(step["tokens"]["completion_ids"])`` over
    ``state["trajectory"]``, else of ``step["response"].usage.completion_tokens``; None when neither is there."""
    if not isinstance(state, Mapping):
        return None
    traj = state.get("trajectory")
    if not isinstance(traj, list) or not traj:
        return None
    total, found = 0, False
    for step in traj:
        if not isinstance(step, Mapping):
            continue
        toks = step.get("tokens")
        ids = toks.get("completion_ids") if isinstance(toks, Mapping) else None
        if ids is not None:
            total, found = total + len(ids), True
            continue
        resp = step.get("response")
        usage = resp.get("usage") if isinstance(resp, Mapping) else getattr(resp, "usage", None)
        n = usage.get("completion_tokens") if isinstance(usage, Mapping) else getattr(usage, "completion_tokens", None)
        if isinstance(n, int):
            total, found = total + n, True
    return total if found else None


def _one(completion: Any, answer: Any, info: Any, state: Any, kw: Mapping[str, Any]) -> Dict[str, Any]:
    r: Dict[str, Any] = {"id": "0", "group": "0", "completion": completion, "reference": answer}
    if isinstance(info, Mapping):
        r["metadata"] = {"info": dict(info)}
    n = _trajectory_tokens(state)
    if n is not None:
        r["completion_tokens"] = n
    prompt = kw.get("prompt")
    if isinstance(prompt, (str, list)):
        r["prompt"] = prompt
    return _client_from(kw).score([r], step=_as_step(kw.get("step")))[0]


async def verifiers_reward(completion: Any, answer: Any = None, info: Any = None, state: Any = None, **kw: Any) -> float:
    """A verifiers reward function (``vf.Rubric(funcs=[verifiers_reward])``, or v1 TOML
    ``fn = "rewardkit_client.py:verifiers_reward"``): the spec's total reward for one completion (text or chat
    messages). verifiers wants a float, so a null reward reads 0.0. Token counts come from the rollout's trajectory.

    Async: calling it returns a coroutine (verifiers awaits it; by hand ``asyncio.run(verifiers_reward(...))``).
    The HTTP call runs in a thread, so the event loop is not blocked."""
    res = await asyncio.to_thread(_one, completion, answer, info, state, kw)
    reward = res.get("reward")
    return 0.0 if reward is None else float(reward)


def verifiers_component(name: str) -> Callable[..., Any]:
    """An async verifiers function (calling it returns a coroutine) giving one component's raw score (not gated,
    not weighted; 0.0 when unscorable); add it with weight 0 to log it as a metric (prime-rl reads per-metric
    values from ``rollout["metrics"]`` for GDPO)."""

    async def fn(completion: Any, answer: Any = None, info: Any = None, state: Any = None, **kw: Any) -> float:
        s = _component_score(await asyncio.to_thread(_one, completion, answer, info, state, kw), name)
        return 0.0 if s is None else s

    fn.__name__ = "rewardkit_" + name
    return fn
