"""Shortcut probes fitted on a train table and scored on an eval table.

Two attackers that learn what the hand-written heuristics of
:mod:`~rsb_mj.tables.heuristics` and :mod:`~rsb_mj.episodes.probes` do not name:

* :class:`ValuePrior` -- a per-value answer prior: for every option text seen in train
  (numbers normalized, ``"1,080"`` = ``"1080"``; text lower-cased), how often it was the
  correct option, smoothed towards chance (``(correct + 1) / (shown + N)`` for ``N``
  options); on eval it picks the option of highest prior and abstains when all tie (all
  unseen, say);
* :class:`LinearProbe` -- a linear text-only classifier: a conditional logit (softmax over
  the options of a row of ``w . features(option)``) fitted by L-BFGS with an L2 penalty on
  features of the option texts and their relation to the other options and the question:
  for numbers the divisor count, trailing zeros, units digit, digit count, rank, distance
  to the options' mean and nearest neighbour, whether the question writes the value; for
  text hashed character 3-grams and words of the option, its length and word-count rank,
  word overlap with the question and with the other options.

Both are deterministic (stable hashes, fixed initial point), so an audit gives the same
figures on every machine.

The conditional logit is not the logistic regression of :mod:`rsb_mj.probing.probe` and
cannot be fitted by it: here one weight vector scores every option of a row from that
option's own features, and the softmax runs over a row's options (a row's options are the
"classes", different in every row); the probe fits one weight vector per fixed label (a
letter, a side) on one feature vector per sample, with scikit-learn (an optional extra that
``rsb episodes build`` and ``rsb audit`` must not need). These two are the only logistic
fits in the package.
"""

from __future__ import annotations

import hashlib
import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.numeric import decimals_of, format_number, numbers_in, trailing_zeros
from rsb_mj.episodes.probes import divisor_count, magnitude
from rsb_mj.tables.heuristics import numeric_options, words

#: Hash buckets of the text features.
BUCKETS = 1 << 12
#: Text features: the buckets and 4 rank features.
TEXT_WIDTH = BUCKETS + 4
#: L2 penalties of the classifiers (per row): a sharp one that uses the hashed n-grams and
#: a smooth one that leans on the dense features (measured: each finds a different shortcut).
L2 = 1e-2
L2_SMOOTH = 1e-1
_WORD = re.compile(r"[a-z0-9]+")


def value_key(option: str, value: object) -> str:
    """The prior's key of an option: its normalized number, or its lower-cased text."""
    if value is not None:
        return format_number(value, decimals_of(value))  # type: ignore[arg-type]
    return " ".join(option.lower().split())


def _keys(episode: Episode) -> list[str]:
    values = numeric_options(episode)
    if values is None:
        return [value_key(o, None) for o in episode.options]
    return [value_key(o, v) for o, v in zip(episode.options, values, strict=True)]


class ValuePrior:
    """Per-value answer prior fitted on a train table.

    Args:
        train: the train table's rows.
    """

    def __init__(self, train: Sequence[Episode]) -> None:
        self.shown: Counter = Counter()
        self.correct: Counter = Counter()
        for e in train:
            keys = _keys(e)
            self.shown.update(keys)
            self.correct[keys[e.letters.index(e.correct)]] += 1

    def score(self, key: str, choices: int) -> float:
        """Smoothed probability that an option with ``key`` is correct."""
        return (self.correct[key] + 1.0) / (self.shown[key] + choices)

    def pick(self, episode: Episode) -> str | None:
        """The option of highest prior (earliest on a tie); None when all tie."""
        scores = [self.score(k, episode.choices) for k in _keys(episode)]
        if all(s == scores[0] for s in scores):
            return None
        return episode.letters[scores.index(max(scores))]


def fitted_probes(train: Sequence[Episode]) -> dict[str, object]:
    """Name -> pick function of every probe fitted on ``train``: ``value_prior``,
    ``linear_probe`` (L2 ``L2``) and ``linear_probe_smooth`` (``L2_SMOOTH``). Fits are
    cached by the content of ``train`` (what the probes see of it), since a build and an
    audit fit the same train table."""
    digest = hashlib.sha256()
    for e in train:
        digest.update(repr((e.question, e.options, e.correct)).encode())
    key = digest.hexdigest()
    if key not in _FITTED:
        if len(_FITTED) >= 8:
            _FITTED.pop(next(iter(_FITTED)))
        _FITTED[key] = {
            "value_prior": ValuePrior(train).pick,
            "linear_probe": LinearProbe(train, L2).pick,
            "linear_probe_smooth": LinearProbe(train, L2_SMOOTH).pick,
        }
    return dict(_FITTED[key])


_FITTED: dict[str, dict[str, object]] = {}


def _bucket(token: str) -> int:
    return zlib.crc32(token.encode()) % BUCKETS


def _ranks(values: Sequence[float]) -> list[float]:
    """Rank of each value in [0, 1] (ties share the lowest rank)."""
    n = len(values)
    ordered = sorted(values)
    return [ordered.index(v) / max(1, n - 1) for v in values]


#: Dense feature count of numeric options (see :func:`_numeric_features`).
_NUM = 13 + 4 + 10 + 6 + 10 + 7


def _numeric_features(episode: Episode, values: list) -> np.ndarray:
    n = len(values)
    out = np.zeros((n, _NUM))
    floats = [float(v) for v in values]
    mean = sum(floats) / n
    spread = (max(floats) - min(floats)) or 1.0
    echoes = set(numbers_in(episode.question))
    sizes = Counter(magnitude(v) for v in values)
    order = sorted(range(n), key=lambda i: floats[i])
    for i, v in enumerate(values):
        col = 0
        out[i, col + divisor_count(v)] = 1
        col += 13
        out[i, col + min(3, trailing_zeros(v))] = 1
        col += 4
        out[i, col + int(f"{abs(v):f}"[-1])] = 1
        col += 10
        out[i, col + min(5, magnitude(v) - 1)] = 1
        col += 6
        out[i, col + min(9, order.index(i) * 10 // n)] = 1
        col += 10
        gap = min(abs(floats[i] - floats[j]) for j in range(n) if j != i)
        out[i, col : col + 7] = (
            (floats[i] - mean) / spread,
            ((floats[i] - mean) / spread) ** 2,
            gap / spread,
            float(v in echoes),
            sizes[magnitude(v)] / n,
            math.log10(abs(floats[i]) + 1.0),
            float(v < 0),
        )
    return out


def _text_features(episode: Episode) -> np.ndarray:
    n = len(episode.options)
    lengths = _ranks([len(o) for o in episode.options])
    counts = _ranks([len(o.split()) for o in episode.options])
    question = words(episode.question)
    bags = [words(o) for o in episode.options]
    overlap = _ranks([len(b & question) for b in bags])
    shared = _ranks(
        [sum(len(b & other) for j, other in enumerate(bags) if j != i) for i, b in enumerate(bags)]
    )
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for i, option in enumerate(episode.options):
        text = " ".join(option.lower().split())
        tokens = {f"w:{w}" for w in _WORD.findall(text)}
        tokens |= {f"c:{text[k : k + 3]}" for k in range(len(text) - 2)}
        buckets = sorted({_bucket(token) for token in tokens})
        dense = (lengths[i], counts[i], overlap[i], shared[i])
        rows += [i] * (len(buckets) + len(dense))
        cols += [*buckets, *range(BUCKETS, BUCKETS + len(dense))]
        vals += [1.0] * len(buckets) + list(dense)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(n, TEXT_WIDTH))


def features(episode: Episode, numeric: bool) -> np.ndarray | sparse.csr_matrix:
    """The ``(options, features)`` matrix of one row: dense numeric features when ``numeric``
    and every option is a number, else sparse text features (General rows whose options all
    start with a number, such as ``"5 m/s"``, use text features like the other rows of their
    table)."""
    values = numeric_options(episode) if numeric else None
    if values is not None:
        return _numeric_features(episode, values)
    return _text_features(episode)


class LinearProbe:
    """Conditional-logit classifier of the correct option, fitted on a train table: the
    probability of option ``i`` of a row is ``softmax_i(features(option_j) . w)`` over the
    row's options ``j``, one ``w`` shared by every option (see the module docstring for why
    this is not :mod:`rsb_mj.probing.probe`'s logistic regression).

    Args:
        train: the train table's rows (all numeric or all text options, one choice count).
        l2: the L2 penalty.
    """

    def __init__(self, train: Sequence[Episode], l2: float = L2) -> None:

        self.l2 = l2
        self.numeric = all(numeric_options(e) is not None for e in train)
        n = train[0].choices
        blocks = [self._features(e) for e in train]
        # one (rows * options, features) matrix; scores reshape to (rows, options)
        x = np.vstack(blocks) if self.numeric else sparse.vstack(blocks, format="csr")
        xt = x.T.tocsr() if not self.numeric else x.T
        ys = np.array([e.letters.index(e.correct) for e in train])
        rows = len(train)

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            s = np.asarray(x @ w).reshape(rows, n)
            s -= s.max(axis=1, keepdims=True)
            p = np.exp(s)
            p /= p.sum(axis=1, keepdims=True)
            nll = -np.log(p[np.arange(rows), ys]).sum() / rows
            p[np.arange(rows), ys] -= 1.0
            grad = np.asarray(xt @ p.reshape(-1)) / rows
            return nll + l2 * float(w @ w), grad + 2 * l2 * w

        result = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B")
        # rounded, so that a platform's last-bit differences do not change a pick
        self.weights = np.round(result.x, 6)

    def _features(self, episode: Episode) -> np.ndarray | sparse.csr_matrix:
        x = features(episode, self.numeric)
        if self.numeric and sparse.issparse(x):  # a text row in a numeric table: no evidence
            return np.zeros((x.shape[0], _NUM))
        return x

    def pick(self, episode: Episode) -> str:
        """The option of highest score (earliest on a tie)."""
        scores = np.round(np.asarray(self._features(episode) @ self.weights).reshape(-1), 9)
        return episode.letters[int(np.argmax(scores))]
