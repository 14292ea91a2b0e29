"""Curriculum weights from rewardkit into a torch ``WeightedRandomSampler`` (standard library; torch imported lazily).

The weights come from ``rewardkit curriculum --state <file> --strategy <name> -o weights.jsonl`` (a JSONL file, one
``{prompt_id, weight, pass_rate, attempts, ...}`` per line) or from a server's ``GET /v1/curriculum?strategy=``::

    from rewardkit_curriculum import load_weights, dataset_weights, weighted_sampler
    rows = load_weights("weights.jsonl")                        # or load_weights("http://127.0.0.1:8787", strategy="knapsack", budget=512)
    ids = [ex["prompt_id"] for ex in train_dataset]              # the dataset's prompt ids, in dataset order
    sampler = weighted_sampler(dataset_weights(rows, ids), num_samples=len(ids))
    loader = DataLoader(train_dataset, batch_size=64, sampler=sampler)

A prompt the statistics have not seen yet gets ``unseen`` (default: the mean weight of the seen prompts, so new
prompts are drawn as often as an average one); a prompt whose weight is 0 is never drawn.
"""

import json
import os
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Mapping, Optional, Sequence

__all__ = ["load_weights", "dataset_weights", "weighted_sampler"]


def load_weights(source: str, strategy: str = "success-guided", token: Optional[str] = None, **params: Any) -> List[Dict[str, Any]]:
    """The rows of a ``rewardkit curriculum`` JSONL file, or of ``GET <source>/v1/curriculum`` when ``source`` is an
    ``http(s)://`` URL (``strategy`` and ``params`` become query parameters: ``budget=512``, ``pass_rate=0.8``;
    ``token`` or ``REWARDKIT_TOKEN`` is sent as a bearer token). Raises ``ValueError`` naming the file and line of a
    malformed row."""
    if source.startswith(("http://", "https://")):
        query = urllib.parse.urlencode({"strategy": strategy, **{k: str(v).lower() if isinstance(v, bool) else v for k, v in params.items()}})
        req = urllib.request.Request(source.rstrip("/") + "/v1/curriculum?" + query)
        tok = token or os.environ.get("REWARDKIT_TOKEN")
        if tok:
            req.add_header("Authorization", "Bearer " + tok)
        with urllib.request.urlopen(req, timeout=60) as res:
            rows = json.loads(res.read().decode("utf-8"))["rows"]
    else:
        rows = []
        with open(source, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except ValueError as e:
                    raise ValueError(f"{source}:{n}: not JSON ({e})") from None
    for n, r in enumerate(rows, 1):
        if not isinstance(r, dict) or not isinstance(r.get("prompt_id"), str):
            raise ValueError(f"{source}: row {n}: prompt_id: expected a string")
        w = r.get("weight")
        if not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0:
            raise ValueError(f"{source}: row {n}: weight: expected a number >= 0")
    return rows


def dataset_weights(rows: Sequence[Mapping[str, Any]], prompt_ids: Sequence[Any], unseen: Optional[float] = None) -> List[float]:
    """One weight per dataset example, in dataset order: its prompt's weight, or ``unseen`` for a prompt the rows do
    not have (default: the mean weight of the rows; 1.0 when there are none). Ids are compared as strings (the
    server's ``prompt_id`` is a string)."""
    by = {str(r["prompt_id"]): float(r["weight"]) for r in rows}
    fill = unseen if unseen is not None else (sum(by.values()) / len(by) if by else 1.0)
    return [by.get(str(p), fill) for p in prompt_ids]


def weighted_sampler(weights: Sequence[float], num_samples: Optional[int] = None, replacement: bool = True, generator: Any = None) -> Any:
    """A ``torch.utils.data.WeightedRandomSampler`` over ``weights`` (torch is imported here, not at module import);
    ``num_samples`` defaults to ``len(weights)``."""
    from torch.utils.data import WeightedRandomSampler  # lazily: the rest of this module needs no torch

    if not weights or sum(weights) <= 0:
        raise ValueError("weighted_sampler: every weight is 0; nothing could be drawn")
    return WeightedRandomSampler(list(weights), num_samples if num_samples is not None else len(weights), replacement=replacement, generator=generator)
