"""rewardkit client: call a ``rewardkit serve`` reward server from Python trainers.

Standard library only, Python >= 3.9, fully annotated. Install it (``pip install ./clients/python``, offline:
``pip install --no-build-isolation ./clients/python``), or point the trainer's config at this one file. The server
address and token come from the environment unless given explicitly:

    REWARDKIT_URLS   several replicas serving the same spec, comma-separated (wins over REWARDKIT_URL)
    REWARDKIT_URL    one server, default http://127.0.0.1:8787
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

Failures: every request has a connect timeout and a read timeout. With one URL, a server that refuses connections
is retried with exponential backoff and jitter for at most ``unreachable_s`` seconds (default 4), then
:class:`RewardkitUnreachable` names the URL; 429 (after ``Retry-After``), 502, 503 and 504 are retried up to
``retries`` times; any other error raises :class:`RewardkitError` with the server's message.

Several replicas: each group goes to one replica, chosen by rendezvous hashing of its group id (the same replica in
every call and process); a request whose replica fails (refused, reset, 500/502/503/504, read timeout) goes, with
the same ``X-Rewardkit-Request-Id``, to the next healthy replica of its group; a failed replica is skipped until it
answers ``/readyz``. See :class:`Client`.

Component values (verl's ``<component>`` keys, TRL's ``rewardkit_<component>``, :func:`verifiers_component`) are
the raw component scores: not gated and not weighted. Only the total (``score``, ``rewardkit_total``,
:func:`verifiers_reward`) is the spec's reward.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import http.client
import itertools
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.parse
import uuid
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

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
    "verifiers_group_reward",
    "verifiers_group_component",
    "verl_group",
    "trl_group_size",
    "rollout_id",
    "STEP_HEADER",
    "REQUEST_ID_HEADER",
    "GROUP_HEADER",
    "group_id",
    "rendezvous_order",
]

__version__ = "0.3.0"

DEFAULT_URL = "http://127.0.0.1:8787"
#: Header carrying the training step (the server also reads a ``step`` field of the body).
STEP_HEADER = "X-Rewardkit-Step"
#: Header carrying a ``/v1/score`` request's id (uuid4 hex), the same on every retry and failover of that request:
#: the server answers a repeated id and body with the first answer instead of scoring again.
REQUEST_ID_HEADER = "X-Rewardkit-Request-Id"
#: Header carrying the id of the first group of a ``/v1/score`` request, for load balancers that keep groups together
#: (haproxy ``balance hdr(X-Rewardkit-Group)``).
GROUP_HEADER = "X-Rewardkit-Group"
_RETRY_STATUS = (429, 502, 503, 504)  # one URL: retried on it
_FAILOVER_STATUS = (500, 502, 503, 504)  # several URLs: sent to the next replica


class RewardkitError(RuntimeError):
    """The server refused a request (``status`` is the HTTP status, ``code`` the protocol's error code)."""

    def __init__(self, message: str, status: Optional[int] = None, code: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.code = code


class RewardkitUnreachable(RewardkitError):
    """No server answered (connection refused, reset or timed out) within the client's budget. ``url`` names the
    server (with several, all of them, comma-separated); ``urls`` lists them."""

    def __init__(self, message: str, url: str, urls: Optional[Sequence[str]] = None):
        super().__init__(message)
        self.url = url
        self.urls: List[str] = list(urls) if urls is not None else [url]


class _ReadTimeout(Exception):
    """Connected and sent, then no answer within ``read_timeout``."""


class _ConnectFailed(Exception):
    """Nothing was sent: the connection was refused or not accepted within ``connect_timeout``."""

    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


class _Dropped(Exception):
    """Connected, then the connection was reset or closed before a whole answer came back (e.g. a killed server)."""

    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


class _Aborted(Exception):
    """Another chunk of the same call failed: this one stops early."""


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


def _split_urls(urls: Any) -> List[str]:
    """``"http://a:1, http://b:2"`` or a sequence of URLs → the URLs, stripped, without a trailing slash, deduplicated
    in order."""
    items = urls.split(",") if isinstance(urls, str) else list(urls)
    out: List[str] = []
    for u in items:
        u = str(u).strip().rstrip("/")
        if u and u not in out:
            out.append(u)
    return out


def _resolve_urls(url: Optional[str], urls: Any) -> List[str]:
    """The replica URLs: ``urls`` (a list or a comma-separated string), else ``url``, else ``REWARDKIT_URLS``
    (comma-separated), else ``REWARDKIT_URL``, else :data:`DEFAULT_URL`."""
    if urls is not None and url is not None:
        raise ValueError("rewardkit: give url= or urls=, not both")
    if urls is not None:
        found = _split_urls(urls)
        if not found:
            raise ValueError("rewardkit: urls= is empty")
        return found
    if url:
        return [url.strip().rstrip("/")]
    env = _split_urls(os.environ.get("REWARDKIT_URLS") or "")
    if env:
        return env
    return [(os.environ.get("REWARDKIT_URL") or DEFAULT_URL).strip().rstrip("/")]


def _parse_url(url: str) -> urllib.parse.SplitResult:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("rewardkit: bad server URL %r: expected http://host:port" % url)
    return parts


def group_id(rollout: Any, index: int = 0) -> str:
    """The group id the server gives ``rollout`` (see ``src/io/rollout.ts``): its ``group`` as a string; without one,
    the first 16 hex digits of SHA-256 of its ``prompt`` (the text, or the JSON of chat messages), so rollouts with
    the same prompt are one group; without either (the server answers such a rollout with an error), its ``id``,
    else its position ``index``. The client keeps a group in one request and routes it by this id."""
    if not isinstance(rollout, Mapping):
        return "\x00%d" % index
    g = rollout.get("group")
    if g is None:
        p = rollout.get("prompt")
        if p is None:
            i = rollout.get("id")
            return "\x00%s" % (i if isinstance(i, (str, int, float)) and not isinstance(i, bool) else index)
        # JavaScript's JSON.stringify: no spaces, non-ASCII as is
        text = p if isinstance(p, str) else json.dumps(p, separators=(",", ":"), ensure_ascii=False, default=_jsonable)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    if isinstance(g, float) and g.is_integer():
        g = int(g)  # JavaScript's String(3.0) is "3"
    return str(g)


def _weight(url: str, group: str) -> int:
    return int.from_bytes(hashlib.blake2b((url + "\n" + group).encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big")


def rendezvous_order(group: str, urls: Sequence[str]) -> List[str]:
    """``urls`` ordered by rendezvous (highest-random-weight) hashing of ``group``: the first is the group's replica,
    the next its failover targets in order. The weight of a URL is BLAKE2b of ``url + "\\n" + group``, so the order
    is the same in every process and on every machine (Python's ``hash()`` is not), and removing a URL moves only the
    groups whose first choice it was."""
    return sorted(urls, key=lambda u: _weight(u, group), reverse=True)


def _header_value(group: str) -> str:
    # printable ASCII goes as is; anything else percent-encoded (HTTP headers are latin-1, never CR/LF); long ids
    # hashed: a load balancer only needs the same value for the same group
    v = group if all(" " <= ch <= "~" for ch in group) else urllib.parse.quote(group, safe=_HEADER_SAFE)
    return v if len(v) <= 256 else "sha256:" + hashlib.sha256(v.encode("ascii")).hexdigest()


_HEADER_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) != "%")


class _Replica:
    """One server URL and what the client knows about it (guarded by the client's lock)."""

    __slots__ = ("url", "parts", "healthy", "failures", "next_probe", "probing", "in_flight", "reason")

    def __init__(self, url: str):
        self.url = url
        self.parts = _parse_url(url)
        self.healthy = True  # until a request to it fails
        self.failures = 0  # consecutive failed requests and probes
        self.next_probe = 0.0  # time.monotonic() after which an unhealthy replica may be probed
        self.probing = False
        self.in_flight = 0  # requests of this client to it now
        self.reason = ""


class _Chunk:
    """Rollouts sent in one request: whole groups (or one part of a group over ``max_rollouts``)."""

    __slots__ = ("indices", "group", "order", "request_id", "group_size", "waits")

    def __init__(self, group: str, order: List[_Replica]):
        self.indices: List[int] = []
        self.group = group  # its first group: the X-Rewardkit-Group header and the failover order
        self.order = order
        self.request_id = uuid.uuid4().hex
        self.group_size: Optional[int] = None  # set on the parts of a split group: sent as each rollout's group_size
        # its rollouts carry their own group_size: the server may hold the request at its group barrier until the
        # group's other members arrive, from other calls of this same client among others, so it takes no
        # max_in_flight slot (n threads of one verl worker each waiting with one member would otherwise starve the rest)
        self.waits = False


class Client:
    """A connection to one reward server, or to several replicas serving the same spec.

    **One URL** (``url=``, ``REWARDKIT_URL``). ``connect_timeout`` and ``read_timeout`` (seconds) bound each attempt.
    A server that cannot be reached (refused, reset, connect timeout) is retried with exponential backoff and full
    jitter for at most ``unreachable_s`` seconds in total, then :class:`RewardkitUnreachable` (naming the URL) is
    raised; with a budget over 10 s, one line on stderr announces the first retry. Busy answers (429 after
    ``Retry-After``, 502, 503, 504) are retried up to ``retries`` times. A read timeout is not retried.

    **Several URLs** (``urls=[...]``, ``REWARDKIT_URLS=a,b,c``). Each group goes to the replica that rendezvous hashing
    of its group id picks among the healthy ones (:func:`rendezvous_order`), so a group lands on the same replica in
    every call and every process. A request that fails on a replica (connection refused, reset or closed, 500, 502,
    503, 504, read timeout) marks the replica unhealthy, and the request goes, with the same request id, to the next
    healthy replica in its group's order: at most ``failover_retries`` re-sends (default: 2 × the number of URLs),
    with jittered backoff. An unhealthy replica is skipped until it answers a probe (``GET /readyz``, or ``/healthz``
    where there is no ``/readyz``), tried after a backoff. When no replica accepts connections, the request waits
    for one for up to ``unreachable_s``, then :class:`RewardkitUnreachable` names every URL. A 429 waits for
    ``Retry-After`` and goes to the same replica again (up to ``retries`` times); any other 4xx raises
    :class:`RewardkitError` at once.

    :meth:`score` sends whole groups (never a group split over two requests, but for a group over the server's
    ``max_rollouts``), at most ``batch_size`` rollouts per request (a bigger group goes whole, alone), at most
    ``max_in_flight`` requests at once per replica; results come back in input order, one per rollout. Every
    ``/v1/score`` request carries ``X-Rewardkit-Request-Id`` (the same on every retry: the server scores it once)
    and ``X-Rewardkit-Group`` (its first group's id, for a load balancer's ``balance hdr(...)``). Thread-safe: each
    request opens its own connection; replica health is shared under a lock.
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
        urls: Optional[Union[str, Sequence[str]]] = None,
        max_in_flight: int = 2,
        failover_retries: Optional[int] = None,
    ):
        self.urls: List[str] = _resolve_urls(url, urls)
        self._replicas = [_Replica(u) for u in self.urls]
        self.url = self.urls[0]  # the first (the only one with one URL)
        self._parts = self._replicas[0].parts
        self.token = token if token is not None else (os.environ.get("REWARDKIT_TOKEN") or None)
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout if timeout is None else timeout  # ``timeout``: the old name of read_timeout
        self.retries = retries
        self.batch_size = batch_size
        self.unreachable_s = unreachable_s if unreachable_s is not None else _env_float("REWARDKIT_UNREACHABLE_S", 4.0)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_in_flight = max(1, max_in_flight)
        self.failover_retries = 2 * len(self.urls) if failover_retries is None else max(0, failover_retries)
        self.requests = 0  # HTTP attempts made, probes excluded (tests and logging)
        self.failovers = 0  # requests re-sent to another replica after a failure
        self._spec: Optional[Dict[str, Any]] = None
        self._warned = False
        self._warned_split = False
        self._spec_hashes: List[str] = []
        self._cond = threading.Condition(threading.Lock())  # guards replica state and the counters

    # -- transport -------------------------------------------------------------------------------------------
    @staticmethod
    def _connection(parts: urllib.parse.SplitResult, timeout: float) -> http.client.HTTPConnection:
        if parts.scheme == "https":
            return http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout)
        return http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)

    def _attempt(self, rep: _Replica, method: str, path: str, data: Optional[bytes], headers: Mapping[str, str], connect_timeout: float, read_timeout: Optional[float] = None) -> Tuple[int, Dict[str, str], bytes]:
        """One HTTP exchange with ``rep``. Raises :class:`_ConnectFailed` (nothing sent), :class:`_ReadTimeout` or
        :class:`_Dropped` (sent, no whole answer)."""
        conn = self._connection(rep.parts, connect_timeout)
        try:
            try:
                conn.connect()  # bounded by connect_timeout
            except (OSError, http.client.HTTPException) as e:
                raise _ConnectFailed(e) from None
            if conn.sock is not None:
                conn.sock.settimeout(self.read_timeout if read_timeout is None else read_timeout)
            base = rep.parts.path.rstrip("/")
            try:
                conn.request(method, base + path, body=data, headers=dict(headers))
                res = conn.getresponse()
                return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
            except (socket.timeout, TimeoutError):
                raise _ReadTimeout() from None
            except (OSError, http.client.HTTPException) as e:
                raise _Dropped(e) from None
        finally:
            conn.close()

    def _count(self) -> None:
        with self._cond:
            self.requests += 1

    def _sleep(self, attempt: int) -> float:
        # exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter")
        return random.uniform(0, min(self.max_backoff, self.backoff * (2**attempt)))

    def _headers(self, data: Optional[bytes], headers: Optional[Mapping[str, str]]) -> Dict[str, str]:
        hdrs = {"Accept": "application/json", "User-Agent": "rewardkit-client/" + __version__}
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        if headers:
            hdrs.update(headers)
        return hdrs

    def request(self, method: str, path: str, body: Any = None, headers: Optional[Mapping[str, str]] = None) -> Any:
        """Sends one request and returns the decoded JSON answer. Raises :class:`RewardkitUnreachable` when no
        server answers within ``unreachable_s``, :class:`RewardkitError` for an error answer. With several URLs the
        request fails over like a chunk of :meth:`score` (starting at a random healthy replica)."""
        data = None if body is None else json.dumps(body, default=_jsonable).encode("utf-8")
        hdrs = self._headers(data, headers)
        if len(self._replicas) == 1:
            return self._request_one(method, path, data, hdrs)
        self._probe_in_background()
        order = [self._replica(u) for u in rendezvous_order(uuid.uuid4().hex, self.urls)]
        return self._request_failover(method, path, data, hdrs, order, None)

    def _replica(self, url: str) -> _Replica:
        return self._replicas[self.urls.index(url)]

    def _request_one(self, method: str, path: str, data: Optional[bytes], hdrs: Mapping[str, str]) -> Any:
        """One URL: retries connection failures for ``unreachable_s`` and busy answers ``retries`` times."""
        rep = self._replicas[0]
        t0 = time.monotonic()
        busy = 0  # retries spent on busy answers
        down = 0  # failed connection attempts
        while True:
            self._count()
            remaining = self.unreachable_s - (time.monotonic() - t0)
            try:
                status, res_headers, text = self._attempt(rep, method, path, data, hdrs, max(0.05, min(self.connect_timeout, remaining)) if down else self.connect_timeout)
            except _ReadTimeout:
                # connected, then no answer: the server is alive but slow (or stuck); sending the batch again would
                # only add load, so this is not retried
                raise RewardkitError("rewardkit: %s %s%s: no answer within read_timeout=%.0f s" % (method, self.url, path, self.read_timeout)) from None
            except (_ConnectFailed, _Dropped) as err:
                e = err.cause
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
                time.sleep(self._retry_after(res_headers, busy))
                continue
            raise RewardkitError("rewardkit: %s %s%s: HTTP %d: %s" % (method, self.url, path, status, message), status, code)

    def _retry_after(self, res_headers: Mapping[str, str], attempt: int) -> float:
        ra = res_headers.get("retry-after", "")
        try:
            return min(60.0, float(ra)) if ra else self._sleep(attempt)
        except ValueError:
            return self._sleep(attempt)

    # -- several replicas ------------------------------------------------------------------------------------
    def health(self) -> Dict[str, bool]:
        """Each URL and whether the client now sends to it (False: failed, skipped until a probe answers)."""
        with self._cond:
            return {r.url: r.healthy for r in self._replicas}

    def _pick(self, order: Sequence[_Replica]) -> Optional[_Replica]:
        with self._cond:
            for r in order:
                if r.healthy:
                    return r
        return None

    def _probe_delay(self, failures: int) -> float:
        # jittered exponential backoff between probes of one replica: 0.25 s, 0.5 s, ... at most 5 s (× 0.5 … 1)
        return random.uniform(0.5, 1.0) * min(5.0, self.max_backoff, self.backoff * float(2 ** max(0, failures - 1)))

    def _mark_down(self, rep: _Replica, why: str) -> None:
        with self._cond:
            if not rep.healthy:
                return
            rep.healthy = False
            rep.failures += 1
            rep.reason = why
            rep.next_probe = time.monotonic() + self._probe_delay(rep.failures)
            self._cond.notify_all()  # requests waiting for its slots go elsewhere
        sys.stderr.write("rewardkit: %s failed (%s); sending its groups to the other replicas until it answers /readyz\n" % (rep.url, why))

    def _reasons(self) -> str:
        with self._cond:
            return "; ".join("%s (%s)" % (r.url, r.reason or "up") for r in self._replicas)

    def _probe(self, rep: _Replica) -> bool:
        """``GET /readyz`` (``/healthz`` when the server has no ``/readyz``): True when the replica takes work."""
        return self._probe_why(rep) is None

    def _probe_why(self, rep: _Replica) -> Optional[str]:
        """:meth:`_probe`'s reason: None when the replica is up, else why not. An answer refusing the token (401,
        403) counts as up: the request itself will then say what is wrong."""
        hdrs = self._headers(None, None)
        for path in ("/readyz", "/healthz"):
            try:
                status, _, _ = self._attempt(rep, "GET", path, None, hdrs, self.connect_timeout, min(self.read_timeout, 5.0))
            except (_ConnectFailed, _Dropped) as e:
                return str(e.cause or type(e.cause).__name__)
            except _ReadTimeout:
                return "%s: no answer" % path
            if status == 404 and path == "/readyz":
                continue
            return None if 200 <= status < 300 or status in (401, 403) else "%s: HTTP %d" % (path, status)
        return "no /readyz nor /healthz"

    def _probe_due(self, rep: _Replica) -> None:
        """Probes ``rep`` if it is unhealthy, due and not being probed by another thread; updates its state."""
        with self._cond:
            if rep.healthy or rep.probing or time.monotonic() < rep.next_probe:
                return
            rep.probing = True
        why: Optional[str] = "probe failed"
        try:
            why = self._probe_why(rep)
        finally:
            ok = why is None
            with self._cond:
                rep.probing = False
                if ok:
                    rep.healthy, rep.failures, rep.reason = True, 0, ""
                    self._cond.notify_all()
                else:
                    rep.failures += 1
                    rep.next_probe = time.monotonic() + self._probe_delay(rep.failures)
                    rep.reason = why or rep.reason
            if ok:
                sys.stderr.write("rewardkit: %s answers again; sending its groups to it\n" % rep.url)

    def _probe_in_background(self) -> None:
        """Starts a probe of each unhealthy replica that is due (the request being routed does not wait for it)."""
        with self._cond:
            due = [r for r in self._replicas if not r.healthy and not r.probing and time.monotonic() >= r.next_probe]
        for r in due:
            threading.Thread(target=self._probe_due, args=(r,), name="rewardkit-probe", daemon=True).start()

    def _acquire(self, rep: _Replica, abort: Optional[threading.Event]) -> bool:
        """Takes one of ``rep``'s ``max_in_flight`` slots; False when it turned unhealthy (or the call was aborted)
        while waiting."""
        with self._cond:
            while rep.healthy and rep.in_flight >= self.max_in_flight and not (abort is not None and abort.is_set()):
                self._cond.wait(0.5)
            if not rep.healthy or (abort is not None and abort.is_set()):
                return False
            rep.in_flight += 1
            return True

    def _release(self, rep: _Replica) -> None:
        with self._cond:
            rep.in_flight -= 1
            self._cond.notify_all()

    def _request_failover(self, method: str, path: str, data: Optional[bytes], hdrs: Mapping[str, str], order: Sequence[_Replica], abort: Optional[threading.Event], slots: bool = True) -> Any:
        """Several URLs: sends to the first healthy replica of ``order``, failing over along it (see :class:`Client`).
        ``slots=False``: the request takes none of the replica's ``max_in_flight`` slots (a request that may wait at
        the server's group barrier)."""
        unreachable_since: Optional[float] = None  # since when no replica accepted a connection
        sends = 0  # re-sends after a failure that reached a server
        busy = 0  # retries after 429
        last = "no replica tried"
        while True:
            if abort is not None and abort.is_set():
                raise _Aborted()
            rep = self._pick(order)
            if rep is None:  # every replica is down: probe them (each at most once per its backoff) and wait
                now = time.monotonic()
                if unreachable_since is None:
                    unreachable_since = now
                waited = now - unreachable_since
                if waited >= self.unreachable_s:
                    raise RewardkitUnreachable(
                        "rewardkit: cannot reach any reward server (%s %s): %s; waited %.1f s. Is `rewardkit serve` running there? "
                        "Set REWARDKIT_URLS (verl: reward_kwargs.rewardkit_urls) to their addresses." % (method, path, self._reasons(), waited),
                        ",".join(self.urls),
                        self.urls,
                    )
                for r in order:
                    self._probe_due(r)
                if self._pick(order) is None:
                    time.sleep(min(0.05, max(0.0, self.unreachable_s - waited)) + random.uniform(0, 0.05))
                continue
            if slots and not self._acquire(rep, abort):
                continue
            try:
                self._count()
                status, res_headers, text = self._attempt(rep, method, path, data, hdrs, self.connect_timeout)
            except _ConnectFailed as e:
                last = "%s: %s" % (rep.url, e.cause or type(e.cause).__name__)
                self._mark_down(rep, str(e.cause or type(e.cause).__name__))
                if unreachable_since is None:
                    unreachable_since = time.monotonic()
                continue  # nothing was sent: the next replica at once
            except (_Dropped, _ReadTimeout) as e:
                why = "no answer within read_timeout=%.0f s" % self.read_timeout if isinstance(e, _ReadTimeout) else "connection lost: %s" % (e.cause or type(e.cause).__name__)
                status, res_headers, text = 0, {}, why.encode("utf-8")
            finally:
                if slots:
                    self._release(rep)
            unreachable_since = None
            if 200 <= status < 300:
                return json.loads(text.decode("utf-8"))
            message, code = self._error(text) if status else (text.decode("utf-8"), None)
            if status == 0 or status in _FAILOVER_STATUS:
                last = "%s: %s" % (rep.url, message if status == 0 else "HTTP %d: %s" % (status, message))
                self._mark_down(rep, message if status == 0 else "HTTP %d" % status)
                sends += 1
                if sends > self.failover_retries:
                    raise RewardkitError("rewardkit: %s %s failed %d time(s) over %s; last: %s" % (method, path, sends, ", ".join(self.urls), last), status or None, code)
                with self._cond:
                    self.failovers += 1
                time.sleep(random.uniform(0, min(self.max_backoff, self.backoff * (2 ** (sends - 1)))))
                continue
            if status == 429 and busy < self.retries:
                # backpressure from a live replica: wait as it asks and send it there again (see docs/server.md)
                busy += 1
                time.sleep(self._retry_after(res_headers, busy))
                continue
            raise RewardkitError("rewardkit: %s %s%s: HTTP %d: %s" % (method, rep.url, path, status, message), status, code)

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

    def _max_rollouts(self) -> int:
        lim = (self.spec().get("limits") or {}).get("max_rollouts")
        return lim if isinstance(lim, int) and lim > 0 else 4096

    def _chunks(self, rollouts: Sequence[Any]) -> List[_Chunk]:
        """Whole groups per chunk, each group on its replica (rendezvous over the healthy ones), at most
        ``batch_size`` rollouts per chunk but for a bigger group (alone; in parts over ``max_rollouts``).
        Interleaved over the replicas, so every replica gets work at once."""
        groups: Dict[str, List[int]] = {}
        for i, r in enumerate(rollouts):
            groups.setdefault(group_id(r, i), []).append(i)
        limit = max(1, self.batch_size)
        several = len(self._replicas) > 1
        if several:
            self._probe_in_background()
        per: Dict[int, List[_Chunk]] = {}
        open_: Dict[int, _Chunk] = {}
        for g, idx in groups.items():
            order = [self._replica(u) for u in rendezvous_order(g, self.urls)] if several else self._replicas
            rep = self._pick(order) or order[0]
            k = id(rep)
            if len(idx) > limit:  # alone, and in parts when the server would refuse it whole
                cap = self._max_rollouts()
                if len(idx) > cap:
                    self._warn_split(g, len(idx), cap)
                for j in range(0, len(idx), cap):
                    c = _Chunk(g, order)
                    c.indices = idx[j : j + cap]
                    if len(idx) > cap:
                        c.group_size = len(idx)
                    per.setdefault(k, []).append(c)
                continue
            cur = open_.get(k)
            if cur is None or len(cur.indices) + len(idx) > limit:
                cur = open_[k] = _Chunk(g, order)
                per.setdefault(k, []).append(cur)
            cur.indices.extend(idx)
        lists = list(per.values())
        chunks = [c for row in itertools.zip_longest(*lists) for c in row if c is not None]
        for c in chunks:
            c.waits = c.group_size is not None or any(isinstance(rollouts[i], Mapping) and rollouts[i].get("group_size") is not None for i in c.indices)
        return chunks

    def _warn_split(self, group: str, n: int, cap: int) -> None:
        with self._cond:
            if self._warned_split:
                return
            self._warned_split = True
        sys.stderr.write(
            "rewardkit: group %r has %d rollouts, more than the server's max_rollouts=%d: it is sent in parts with group_size=%d, "
            "so a spec with group-level components answers its rollouts with a partial-group error rather than a reward from part "
            "of the group, and its advantages are computed per part (raise the server's --max-rollouts; warned once)\n" % (group, n, cap, n)
        )

    def _send_chunk(self, rollouts: Sequence[Any], chunk: _Chunk, step: Optional[int], details: bool, abort: Optional[threading.Event]) -> Dict[str, Any]:
        part = [rollouts[i] for i in chunk.indices]
        if chunk.group_size is not None:  # a part of a split group says how large the group is (the server checks)
            part = [dict(r, group_size=chunk.group_size) if isinstance(r, Mapping) and "group_size" not in r else r for r in part]
        body: Dict[str, Any] = {"rollouts": part, "details": details}
        extra = {REQUEST_ID_HEADER: chunk.request_id, GROUP_HEADER: _header_value(chunk.group)}
        if step is not None:
            body["step"] = step
            extra[STEP_HEADER] = str(step)
        data = json.dumps(body, default=_jsonable).encode("utf-8")  # the same bytes on every retry
        hdrs = self._headers(data, extra)
        answer: Dict[str, Any]
        if len(self._replicas) > 1:
            answer = self._request_failover("POST", "/v1/score", data, hdrs, chunk.order, abort, slots=not chunk.waits)
            return answer
        rep = self._replicas[0]
        if chunk.waits:  # see _Chunk.waits: no slot, or the group's other members could never be sent
            return self._request_one("POST", "/v1/score", data, hdrs)
        if not self._acquire(rep, abort):
            raise _Aborted()
        try:
            answer = self._request_one("POST", "/v1/score", data, hdrs)
            return answer
        finally:
            self._release(rep)

    def score(self, rollouts: Sequence[Dict[str, Any]], step: Optional[int] = None, details: bool = False) -> List[Dict[str, Any]]:
        """``POST /v1/score``: one result ``{"id", "reward", "components", "advantage"}`` (or ``{"id", "error"}``) per
        rollout, in input order. ``step`` (the training step, for schedules) goes in the body and the
        ``X-Rewardkit-Step`` header; a rollout's own ``step`` wins. Groups are never split over requests (but for a
        group over the server's ``max_rollouts``), so advantages are the same as in one request; with several URLs
        each group goes to its replica and failed requests fail over (see :class:`Client`)."""
        s = _as_step(step)
        chunks = self._chunks(rollouts)
        out: List[Optional[Dict[str, Any]]] = [None] * len(rollouts)
        if len(chunks) == 1:
            self._collect(rollouts, chunks[0], self._send_chunk(rollouts, chunks[0], s, details, None), out)
        elif chunks:
            self._send_all(rollouts, chunks, s, details, out)
        return out  # type: ignore[return-value]  # every slot filled by _collect

    def _send_all(self, rollouts: Sequence[Any], chunks: List[_Chunk], step: Optional[int], details: bool, out: List[Optional[Dict[str, Any]]]) -> None:
        """Sends ``chunks`` concurrently: ``max_in_flight`` workers per replica, each taking the first waiting chunk
        whose replica has a free slot (so no worker waits on a busy replica while another one idles). The first
        error stops the other workers after their current request and is raised."""
        pending = list(chunks)
        abort = threading.Event()

        def ready(c: _Chunk) -> bool:  # under the lock
            rep = next((r for r in c.order if r.healthy), None)
            return rep is None or rep.in_flight < self.max_in_flight  # none healthy: its request waits for one

        def worker() -> None:
            while True:
                with self._cond:
                    while True:
                        if abort.is_set() or not pending:
                            return
                        i = next((i for i, c in enumerate(pending) if ready(c)), -1)
                        if i >= 0:
                            chunk = pending.pop(i)
                            break
                        self._cond.wait(0.5)
                try:
                    self._collect(rollouts, chunk, self._send_chunk(rollouts, chunk, step, details, abort), out)
                except BaseException:
                    abort.set()  # the other workers stop after their current request
                    with self._cond:
                        self._cond.notify_all()
                    raise

        n = min(len(chunks), self.max_in_flight * len(self._replicas))
        if any(c.waits for c in chunks):  # every chunk in flight at once: one held at a barrier must not keep back another
            n = len(chunks)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=n, thread_name_prefix="rewardkit-score")
        try:
            futs = [pool.submit(worker) for _ in range(n)]
            done, _ = concurrent.futures.wait(futs, return_when=concurrent.futures.FIRST_EXCEPTION)
            errors = [f.exception() for f in done if f.exception() is not None]
            first = next((e for e in errors if not isinstance(e, _Aborted)), errors[0] if errors else None)
            if first is not None:
                raise first
        finally:
            abort.set()
            pool.shutdown(wait=False)

    def _collect(self, rollouts: Sequence[Any], chunk: _Chunk, answer: Mapping[str, Any], out: List[Optional[Dict[str, Any]]]) -> None:
        """Puts a chunk's results at their input positions; ids and error fields the server gave by position within
        the chunk are renumbered to the input position."""
        results = answer.get("results")
        if not isinstance(results, list) or len(results) != len(chunk.indices):
            raise RewardkitError("rewardkit: POST /v1/score answered %s results for %d rollouts" % (len(results) if isinstance(results, list) else "no", len(chunk.indices)))
        self._check_spec(answer)
        for j, (k, res) in enumerate(zip(chunk.indices, results)):
            if j != k and isinstance(res, dict):
                r = rollouts[k]
                rid = r.get("id") if isinstance(r, Mapping) else None
                if not isinstance(rid, (str, int, float)) or isinstance(rid, bool):
                    res["id"] = str(k)
                err = res.get("error")
                if isinstance(err, dict) and isinstance(err.get("field"), str):
                    head = "rollouts[%d]" % j
                    if err["field"].startswith(head):
                        err["field"] = "rollouts[%d]" % k + err["field"][len(head) :]
            out[k] = res

    def _check_spec(self, answer: Mapping[str, Any]) -> None:
        """Warns once per new spec hash when replicas answer with different specs (a misconfigured fleet, or a
        rolling update in progress): their rewards are not comparable."""
        h = (answer.get("spec") or {}).get("hash") if isinstance(answer.get("spec"), Mapping) else None
        if not isinstance(h, str):
            return
        with self._cond:
            if h in self._spec_hashes:
                return
            self._spec_hashes.append(h)
            seen = list(self._spec_hashes)
        if len(seen) > 1:
            sys.stderr.write("rewardkit: the replicas answer with different specs (hashes %s): their rewards are not comparable\n" % ", ".join(seen))

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
_clients: Dict[Tuple[Any, ...], Client] = {}
_default_lock = threading.Lock()


def default_client() -> Client:
    """The process-wide client configured from ``REWARDKIT_URLS`` / ``REWARDKIT_URL`` / ``REWARDKIT_TOKEN``."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Client()
        return _default


def _client_from(kw: Mapping[str, Any]) -> Client:
    # verl passes reward_kwargs into every call: rewardkit_urls (a list or "a,b,c"; it wins over rewardkit_url),
    # rewardkit_url and rewardkit_token select other servers
    url, urls, token = kw.get("rewardkit_url"), kw.get("rewardkit_urls"), kw.get("rewardkit_token")
    if url is None and urls is None and token is None:
        return default_client()
    if urls is not None:
        urls, url = tuple(_split_urls(urls)), None
    with _default_lock:
        c = _clients.get((url, urls, token))
        if c is None:
            c = _clients[(url, urls, token)] = Client(url=url, urls=urls, token=token)
        return c


def _component_score(result: Mapping[str, Any], name: str) -> Optional[float]:
    comps = result.get("components") or {}
    c = comps.get(name)
    s = c.get("score") if isinstance(c, dict) else c
    return None if s is None else float(s)


# -- groups (docs/groups-trainers.md) -------------------------------------------------------------------------
# The server's group barrier holds a rollout that says ``group_size`` until that many DISTINCT ids of its (group, step)
# have arrived, from any request or process. So each trainer shim names the real group, says its size, and gives
# every rollout an id that no other call, thread, process or host uses, and that stays the same on the client's own
# retries (the request body is built once and re-sent as it is).
_id_lock = threading.Lock()
_id_state: Dict[str, Any] = {"pid": -1, "prefix": "", "next": 0}


def rollout_id() -> str:
    """A rollout id unique across calls, threads, processes and hosts: ``<host>-<pid>-<nonce>-<n>`` (the trainer's
    ``RANK`` first when set, for readability), where ``nonce`` is 6 random hex digits drawn once per process (again
    after a fork) and ``n`` counts the ids this process made. Example: ``"r1-gpu7-4242-a3f09c-17"``."""
    with _id_lock:
        pid = os.getpid()
        if _id_state["pid"] != pid:  # first use, or a forked child: a fresh prefix, so no two processes share one
            rank = os.environ.get("RANK")
            host = socket.gethostname().split(".")[0] or "host"
            _id_state.update(pid=pid, next=0, prefix="%s%s-%d-%s" % ("r%s-" % rank if rank else "", host, pid, uuid.uuid4().hex[:6]))
        _id_state["next"] += 1
        return "%s-%d" % (_id_state["prefix"], _id_state["next"])


_noted: set = set()


def _note_once(key: str, message: str) -> None:
    """One line on stderr per ``key`` and process (a shim that cannot tell the group says so once, not per sample)."""
    with _id_lock:
        if key in _noted:
            return
        _noted.add(key)
    sys.stderr.write("rewardkit: " + message + "\n")


def _as_group_size(v: Any) -> Optional[int]:
    """A positive integer group size from an int, a numpy integer or a digit string; None otherwise."""
    n = _as_step(v)
    return n if n is not None and n >= 1 else None


def _digest(v: Any) -> str:
    """First 16 hex digits of SHA-256 of ``v``'s text (chat messages: their JSON as JavaScript writes it), the
    server's ``promptGroup`` (src/io/rollout.ts)."""
    text = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), ensure_ascii=False, default=_jsonable)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _keypart(v: Any) -> str:
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


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


def _verl_group(i: int, solution_str: Any) -> str:
    """A group of one (the sample's group is unknown, or its size is): unique in its request (``i``) and named after
    the response, so single-sample calls spread over the replicas (and the same response goes to the same replica,
    where its verdict is cached)."""
    text = solution_str if isinstance(solution_str, str) else json.dumps(solution_str, default=_jsonable)
    return "verl-%d-%s" % (i, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12])


def verl_group(data_source: Any, extra_info: Any, step: Optional[int]) -> Tuple[Optional[str], Optional[str], str]:
    """The group and prompt id of a verl sample, from what verl hands ``compute_score``: ``(group, prompt_id, how)``.

    verl (verl-project/verl @1dda039b) groups a step's samples by ``non_tensor_batch["uid"]`` (a uuid4 per prompt per
    step, ``ray_trainer.py``), but no reward manager passes it on: ``compute_score`` gets ``data_source``,
    ``ground_truth`` and ``extra_info``, which is the dataset's ``extra_info`` column (verl's preprocessing scripts
    write ``split`` and ``index``) merged, in the reward loop, with the rollout's ``extra_fields`` (``raw_prompt``,
    ``global_steps``, ``min_global_steps``, ``max_global_steps``) plus ``num_turns`` and ``rollout_reward_scores``.
    So, in order:

    1. ``extra_info["uid"]`` (a pipeline that copies verl's uid in): group ``verl:uid:<uid>``;
    2. ``extra_info["index"]``: group ``verl:<data_source>:<split>:<index>@<step>`` (``:<split>`` only when
       present: train and test rows share indexes; ``@<step>`` only with a step: the same row in another epoch is
       another group);
    3. ``extra_info["raw_prompt"]`` (current verl's reward loop): group ``verl:<sha256(prompt)[:16]>@<step>``;
    4. none: ``(None, None, <what was missing>)``.

    ``prompt_id`` is the most stable of them: ``<data_source>:<split>:<index>``, else the prompt's hash, else the uid.
    Example: ``verl_group("math", {"index": 7, "global_steps": 3}, 3)`` → ``("verl:math:7@3", "math:7", "index")``.
    """
    if not isinstance(extra_info, Mapping):
        return None, None, "no extra_info"
    at = "" if step is None else "@%d" % step
    uid = extra_info.get("uid")
    index = extra_info.get("index")
    split = extra_info.get("split")
    raw = extra_info.get("raw_prompt")
    row = None
    if index is not None and not isinstance(index, bool):
        row = "%s:%s%s" % (_keypart(data_source), "%s:" % _keypart(split) if isinstance(split, str) and split else "", _keypart(index))
    digest = _digest(raw) if isinstance(raw, (str, list)) or hasattr(raw, "tolist") else None
    if uid is not None and str(uid) != "":
        return "verl:uid:%s" % _keypart(uid), row or digest or _keypart(uid), "uid"
    if row is not None:
        return "verl:%s%s" % (row, at), row, "index"
    if digest is not None:
        return "verl:%s%s" % (digest, at), digest, "raw_prompt"
    return None, None, "extra_info has no uid, no index and no raw_prompt"


#: ``extra_info["split"]`` values of validation rows (verl's ``examples/data_preprocess/*.py`` write ``"test"``)
_VAL_SPLITS = frozenset(("test", "val", "validation", "eval", "dev"))


def _verl_rollout(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any, kw: Mapping[str, Any], whole: bool = False) -> Dict[str, Any]:
    """One verl sample as a rollout with a unique id (:func:`rollout_id`). Its ``group`` is the real one
    (:func:`verl_group`) with ``group_size`` = ``reward_kwargs.rewardkit_group_size`` when both are known, or, with
    ``whole`` (the legacy batch manager hands over the whole batch), the real group without a size; otherwise the
    key is left out and the caller names a group of one (:func:`_verl_group`), saying so once on stderr."""
    r: Dict[str, Any] = {"id": rollout_id(), "completion": solution_str, "reference": ground_truth}
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
    group, prompt_id, how = verl_group(data_source, extra_info, s)
    if prompt_id is not None:
        r["prompt_id"] = prompt_id
    size = _as_group_size(kw.get("rewardkit_group_size"))
    split = extra_info.get("split") if isinstance(extra_info, Mapping) else None
    if isinstance(split, str) and split.lower() in _VAL_SPLITS:
        # validation samples (verl's preprocessing writes split "test" on the validation set) come val_kwargs.n at a
        # time, not rollout.n: their group size is rewardkit_val_group_size, and without it they are not held
        size = _as_group_size(kw.get("rewardkit_val_group_size"))
        if size is None:
            _note_once("verl-val", "verl: validation samples (extra_info.split %r) are scored as groups of one (set "
                       "reward_kwargs.rewardkit_val_group_size to actor_rollout_ref.rollout.val_kwargs.n to hold their groups)" % split)
            group = None if not whole else group
            how = "validation"
    if group is not None and size is not None:
        r["group"], r["group_size"] = group, size
    elif group is not None and whole:
        r["group"] = group
    elif group is None and how == "validation":
        pass
    elif group is None:
        _note_once("verl-group", "verl: cannot tell a sample's group (%s): each sample is scored as a group of one, so group-stage "
                   "components and advantages see groups of one (docs/groups-trainers.md)" % how)
    else:
        _note_once("verl-size", "verl: reward_kwargs.rewardkit_group_size is not set (set it to actor_rollout_ref.rollout.n): each sample "
                   "is scored as a group of one, so group-stage components and advantages see groups of one (docs/groups-trainers.md)")
    return r


def _solo_groups(rollouts: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Names a group of one for each rollout without a group (see :func:`_verl_group`)."""
    for i, r in enumerate(rollouts):
        if "group" not in r:
            r["group"] = _verl_group(i, r["completion"])
    return rollouts


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any], extra_infos: Optional[Sequence[Any]] = None, **kw: Any) -> List[Dict[str, float]]:
    """verl batch reward function (older verl's ``batch`` manager): one request for the whole batch.

    The batch holds whole groups, so each sample's real group (:func:`verl_group`) is sent, with
    ``reward_kwargs.rewardkit_group_size`` when given. Returns one dict per sample:
    ``{"score": reward, <component>: score, <component>_unscorable: 0.0 | 1.0}``.
    Example: ``compute_score_batch(["math"], ["\\\\boxed{42}"], ["42"])`` →
    ``[{"score": 1.0, "accuracy": 1.0, "accuracy_unscorable": 0.0, ...}]``.
    """
    client = _client_from(kw)
    names = client.components()
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    rollouts = _solo_groups([_verl_rollout(d, s, g, e, kw, whole=True) for d, s, g, e in zip(data_sources, solution_strs, ground_truths, infos)])
    return [_verl_row(r, names) for r in client.score(rollouts, step=_as_step(kw.get("step")))]


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kw: Any) -> Dict[str, float]:
    """verl ``custom_reward_function`` (``naive``, ``gdpo``, ``dapo`` managers): one sample per call.

    ``ground_truth`` may be any JSON (a string, ``{"target": [...]}`` ...). Same keys on every call, so verl's
    per-key ``reward_extra_info`` columns stay aligned and GDPO can read each component
    (``algorithm.gdpo_reward_keys=[accuracy,format]``). The step comes from ``extra_info["global_steps"]``. With
    ``reward_kwargs.rewardkit_group_size`` (verl's ``actor_rollout_ref.rollout.n``) the sample joins its real group
    (:func:`verl_group`) at the server's group barrier: the call returns once the whole group has arrived, from any
    worker, thread or process, so group-stage components and advantages see the whole group.
    """
    client = _client_from(kw)
    names = client.components()
    rollouts = _solo_groups([_verl_rollout(data_source, solution_str, ground_truth, extra_info, kw)])
    return _verl_row(client.score(rollouts, step=_as_step(kw.get("step")))[0], names)


class _Coalescer:
    """Gathers the concurrent single-sample calls of one event loop into batched requests: a batch leaves when
    ``window_s`` has passed since its first sample or when it holds ``batch_size`` samples. Each sample keeps its
    own id and group (several groups, and parts of groups, may share a request: the server's barrier completes them
    with the members other requests bring)."""

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
        rollouts = _solo_groups([dict(r) for r, _ in batch])
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
    rollout = _verl_rollout(data_source, solution_str, ground_truth, extra_info, kw)
    return _verl_row(await co.add(rollout), names)


# -- TRL -----------------------------------------------------------------------------------------------------
_REFERENCE_COLUMNS = ("solution", "answer", "ground_truth", "reference")


def trl_group_size(kw: Mapping[str, Any], given: Optional[int] = None) -> Tuple[Optional[int], str]:
    """The size of a TRL prompt's group and the mode, from what ``GRPOTrainer._calculate_rewards`` passes
    (huggingface/trl @f2cd5771): it does not pass ``num_generations``, but ``log_metric`` and ``log_extra`` are the
    trainer's bound methods, so their ``__self__`` is the trainer: ``num_generations`` while ``trainer.model.training``,
    ``num_generations_eval`` (TRL's fallback: ``num_generations``) in evaluation. ``given`` (``trl_reward_funcs``'s
    ``group_size``) wins in training; in evaluation the trainer's value wins when there is a trainer.
    Returns ``(size or None, "train" | "eval")``."""
    trainer = getattr(kw.get("log_metric"), "__self__", None) or getattr(kw.get("log_extra"), "__self__", None)
    model = getattr(trainer, "model", None)
    training = bool(getattr(model, "training", True)) if model is not None else True
    if not training:
        n = _as_group_size(getattr(trainer, "num_generations_eval", None)) or _as_group_size(getattr(trainer, "num_generations", None))
        return n or _as_group_size(given), "eval"
    return _as_group_size(given) or _as_group_size(getattr(trainer, "num_generations", None)), "train"


def _world_size() -> int:
    n = _as_step(os.environ.get("WORLD_SIZE"))
    return n if n else 1


class _SharedBatch:
    """Scores a TRL batch once for all reward functions built together (they are called with the same batch)."""

    def __init__(self, client: Client, reference_column: Optional[str], group_size: Optional[int] = None):
        self.client = client
        self.reference_column = reference_column
        self.group_size = group_size
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
            r: Dict[str, Any] = {"completion": comp, "reference": refs[i]}
            p = prompts[i] if prompts is not None and i < len(prompts) else None
            if p is not None:
                r["prompt"] = p
            if ids is not None and i < len(ids) and ids[i] is not None:
                r["completion_tokens"] = len(ids[i])  # TRL's token ids: the overlong penalty counts real tokens
            rollouts.append(r)
        size, mode = trl_group_size(kw, self.group_size)
        # the batch's identity, before ids are given: every reward function of one batch shares one request
        key = hashlib.sha256(json.dumps([rollouts, step, mode], default=_jsonable, sort_keys=True).encode("utf-8")).hexdigest()
        with self.lock:
            fut = self.recent.get(key)
            if fut is None:
                self._identify(rollouts, step, size, mode)
                fut = self.pool.submit(self.client.score, rollouts, step)
                self.recent[key] = fut
                while len(self.recent) > 4:
                    self.recent.pop(next(iter(self.recent)))
            return fut

    @staticmethod
    def _identify(rollouts: List[Dict[str, Any]], step: Optional[int], size: Optional[int], mode: str) -> None:
        """Ids, groups and sizes. With the group size known, group ``trl:<prompt hash>@<step>`` (``trl-eval:`` in
        evaluation) with ``group_size``: under several processes each rank holds part of a prompt's completions
        (TRL's RepeatSampler spreads them), and the server's barrier joins them. Without it, today's behaviour: the
        request's completions of a prompt are taken as its whole group (true on one process; said once when
        ``WORLD_SIZE`` > 1)."""
        if size is None and _world_size() > 1:  # on one process the request does hold whole groups: nothing to say
            _note_once("trl-size", "TRL: the group size is unknown (no GRPOTrainer behind log_metric, no trl_reward_funcs(group_size=N)) "
                       "on %d processes: a request's completions of one prompt, part of the prompt's group, are taken as its whole "
                       "group (docs/groups-trainers.md)" % _world_size())
        at = "" if step is None else "@%d" % step
        for i, r in enumerate(rollouts):
            r["id"] = rollout_id()
            p = r.get("prompt")
            if p is None:
                r["group"] = "trl-%d-%s" % (i, r["id"])  # no prompt: a group of one
                continue
            h = _digest(p)
            r["prompt_id"] = h
            if size is not None:
                r["group"] = "%s:%s%s" % ("trl" if mode == "train" else "trl-eval", h, at)
                r["group_size"] = size


def trl_reward_funcs(client: Optional[Client] = None, total: bool = True, components: Optional[Sequence[str]] = None, reference_column: Optional[str] = None, asynchronous: bool = True, group_size: Optional[int] = None) -> List[Callable[..., Any]]:
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

    Groups: a prompt's completions are one group per training step (``trl:<prompt hash>@<global_step>``) of
    ``group_size`` rollouts, TRL's ``num_generations``, read from the trainer behind ``log_metric`` (or
    ``group_size=`` here); on several processes each rank sends its part and the server's group barrier joins them,
    so group-stage components and advantages see the whole group (see :func:`trl_group_size`).
    """
    c = client or default_client()
    names = list(components) if components is not None else c.components()
    shared = _SharedBatch(c, reference_column, _as_group_size(group_size))

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


def _example_id(state: Any) -> Optional[str]:
    """verifiers' example id of a rollout: ``state["example_id"]`` (one of the state's input fields, verifiers @a60a606e
    ``legacy/types.py``); None when absent."""
    if not isinstance(state, Mapping):
        return None
    try:
        v = state.get("example_id")
    except Exception:  # a State that forwards to its input may raise on a missing key
        return None
    return None if v is None or isinstance(v, bool) else _keypart(v)


def _vf_rollout(completion: Any, answer: Any, info: Any, state: Any, prompt: Any) -> Dict[str, Any]:
    r: Dict[str, Any] = {"id": rollout_id(), "completion": completion, "reference": answer}
    if isinstance(info, Mapping):
        r["metadata"] = {"info": dict(info)}
    n = _trajectory_tokens(state)
    if n is not None:
        r["completion_tokens"] = n
    if isinstance(prompt, (str, list)):
        r["prompt"] = prompt
    ex = _example_id(state)
    if ex is not None:
        r["prompt_id"] = ex
    elif isinstance(prompt, (str, list)):
        r["prompt_id"] = _digest(prompt)
    return r


def _one(completion: Any, answer: Any, info: Any, state: Any, kw: Mapping[str, Any]) -> Dict[str, Any]:
    # a group of one, named after the prompt (else the completion): calls spread over replicas by prompt
    prompt = kw.get("prompt")
    _note_once("vf-one", "verifiers: a per-rollout reward function sees one rollout, so each is scored as a group of one "
               "(group-stage components and advantages see groups of one); use verifiers_group_reward for whole groups (docs/groups-trainers.md)")
    r = _vf_rollout(completion, answer, info, state, prompt)
    r["group"] = "vf-" + _digest(prompt if isinstance(prompt, (str, list)) else completion)
    return _client_from(kw).score([r], step=_as_step(kw.get("step")))[0]


def _group(prompts: Any, completions: Any, answers: Any, states: Any, infos: Any, kw: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """One verifiers group (``Rubric.score_group``: the rollouts of one example) in one request, as one rewardkit
    group ``vf:<example_id>`` (else ``vf:<prompt hash>``): whole, so no barrier and no group_size are needed."""
    n = len(completions)
    col = lambda xs, i: xs[i] if xs is not None and i < len(xs) else None  # noqa: E731
    rollouts = []
    for i in range(n):
        state, prompt = col(states, i), col(prompts, i)
        r = _vf_rollout(completions[i], col(answers, i), col(infos, i), state, prompt)
        ex = _example_id(state)
        r["group"] = "vf:" + (ex if ex is not None else _digest(prompt) if isinstance(prompt, (str, list)) else "%d-%s" % (i, r["id"]))
        rollouts.append(r)
    return _client_from(kw).score(rollouts, step=_as_step(kw.get("step")))


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


async def verifiers_group_reward(prompts: Any = None, completions: Any = None, answers: Any = None, states: Any = None, infos: Any = None, **kw: Any) -> List[float]:
    """A verifiers group reward function (``vf.Rubric(funcs=[verifiers_group_reward])``): its plural parameters make
    ``Rubric.score_group`` call it once per example with the example's whole group of rollouts (verifiers @a60a606e
    ``legacy/rubrics/rubric.py``: ``_is_group_func``, ``group_score_objects``), which goes to the server as one
    group ``vf:<example_id>`` in one request. So group-stage components and advantages see the whole group. Returns
    the spec's total per rollout, in order (a null reward reads 0.0)."""
    res = await asyncio.to_thread(_group, prompts, completions or [], answers, states, infos, kw)
    return [0.0 if r.get("reward") is None else float(r["reward"]) for r in res]


def verifiers_group_component(name: str) -> Callable[..., Any]:
    """:func:`verifiers_component` for a whole group (see :func:`verifiers_group_reward`): one component's raw score
    per rollout (0.0 when unscorable); add it with weight 0 to log it."""

    async def fn(prompts: Any = None, completions: Any = None, answers: Any = None, states: Any = None, infos: Any = None, **kw: Any) -> List[float]:
        res = await asyncio.to_thread(_group, prompts, completions or [], answers, states, infos, kw)
        return [0.0 if s is None else s for s in (_component_score(r, name) for r in res)]

    fn.__name__ = "rewardkit_" + name
    return fn
