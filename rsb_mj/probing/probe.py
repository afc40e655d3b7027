"""Layerwise linear probes: how well each layer's features predict the target, out of fold.

For each layer of a :class:`~rsb_mj.probing.dataset.ProbeSet` (Act2Answer's *layerwise
intent probing*):

1. **Classifier**: standardize the features (mean 0, unit variance, fitted on the training
   fold), reduce them with PCA to ``n_train - 1`` components when the dimension exceeds the
   training samples, and fit an L2-regularized logistic regression (scikit-learn, ``C``
   the inverse regularization strength, multinomial for more than two classes).
2. **Out of fold**: ``folds``-fold cross-validation with folds *grouped*
   (:func:`~rsb_mj.probing.dataset.groups_of`: the two plate orders of an item, a row's
   variants and counterfactual twins never straddle train and test) and stratified by label
   where the groups allow (:func:`grouped_folds`, seeded); every sample is predicted by the
   one model that did not see its group.
3. **Accuracy** of those predictions with a Wilson 95% interval, against **chance**: the
   majority share of the labels when it exceeds 1/N (unbalanced labels), else 1/N; the
   **chance band** is chance +- 1.96 sqrt(chance (1 - chance) / n_eff), Act2Answer's margin
   (Appendix E). The samples of a group are not independent (the two plate orders of an
   item share their answer and most of what the policy sees, so a probe gets both right or
   both wrong), so the interval and the band count *groups*, ``n_eff``: Act2Answer's
   conservative effective sample size (its N = 150 for 300 episodes); with one episode per
   question, ``n_eff = n``. Verdict: ``above`` / ``below`` the band, else ``chance``.
4. **Label-permutation control**: the same cross-validation on ``permutations`` seeded
   permutations of the labels *between groups of the same size* (a group takes another
   group's labels whole, so the pairs stay pairs); reported as their mean accuracy, their
   95th percentile and the permutation p-value ``(1 + #{permuted >= observed}) / (1 + P)``.
5. **Knows but does not act** (KBNA): among samples whose out-of-fold prediction is the
   right value (the correct letter, or the correct side), the share whose choice was wrong
   (no choice counts as wrong): information the layer holds that the action did not follow.

Everything is deterministic for a given ``seed`` (folds, permutations, solver).

The classifier is a plain multinomial (binary for two classes) logistic regression: one
weight vector per label over one feature vector per sample. It is not the conditional logit
of :class:`rsb_mj.tables.learned.LinearProbe` (one weight vector shared by a row's options,
a softmax over each row's own options, fitted with SciPy so that the tables need no
scikit-learn); the two are the only logistic fits in the package.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.metrics import wilson
from rsb_mj.probing.dataset import ProbeSet
from rsb_mj.stats import chance_band

#: Default number of folds.
FOLDS = 5
#: Default inverse L2 regularization strength of the logistic regression.
C = 1.0
#: Default number of label permutations of the control.
PERMUTATIONS = 50
#: Default seed of folds and permutations.
SEED = 0
#: Most features (after PCA) fitted with Newton-Cholesky; more use L-BFGS.
NEWTON_MAX_FEATURES = 64


@dataclass(frozen=True)
class ProbeSettings:
    """How a probe is fitted (see the module docstring).

    Attributes:
        folds: cross-validation folds (fewer when there are fewer groups).
        c: inverse L2 regularization strength.
        permutations: label permutations of the control (0: none).
        seed: seed of the folds and the permutations.
        grouped: group the folds (False only to show what leaks: ungrouped folds split the
            samples at random).
    """

    folds: int = FOLDS
    c: float = C
    permutations: int = PERMUTATIONS
    seed: int = SEED
    grouped: bool = True

    def __post_init__(self) -> None:
        if self.folds < 2:
            raise EvalError(f"--folds {self.folds}: at least 2")
        if not self.c > 0:
            raise EvalError(f"--C {self.c}: must be positive")
        if self.permutations < 0:
            raise EvalError(f"--permutations {self.permutations}: at least 0")


@dataclass(frozen=True)
class LayerResult:
    """The probe of one layer.

    Attributes:
        label, suite: the probe set's row label and suite.
        layer: the layer name; depth: its position (0 = nearest the input).
        dim: the layer's feature size; n: samples; groups: distinct groups (the effective
            sample size of the interval and the band); folds: folds used; classes: distinct
            labels.
        accuracy: out-of-fold accuracy; interval: its Wilson 95% interval over ``groups``.
        chance: the chance rate; chance_kind: ``"1/N"`` or ``"majority"``; band: the chance
            band (low, high).
        verdict: ``"above"``, ``"chance"`` or ``"below"`` (accuracy against the band).
        permuted_mean, permuted_p95, permutation_p: the label-permutation control (None
            without permutations).
        known: samples predicted right; known_wrong: of those, the ones whose choice was
            wrong; kbna: their share (None when none is predicted right); kbna_interval:
            its Wilson 95% interval.
        predictions: the out-of-fold prediction of each sample (same order as the set).
    """

    label: str
    suite: str
    layer: str
    depth: int
    dim: int
    n: int
    groups: int
    folds: int
    classes: int
    accuracy: float
    interval: tuple[float, float]
    chance: float
    chance_kind: str
    band: tuple[float, float]
    verdict: str
    permuted_mean: float | None
    permuted_p95: float | None
    permutation_p: float | None
    known: int
    known_wrong: int
    kbna: float | None
    kbna_interval: tuple[float, float] | None
    predictions: tuple[str, ...] = field(repr=False, default=())


def chance_of(labels: np.ndarray, choices: int) -> tuple[float, str]:
    """(chance rate, ``"1/N"`` or ``"majority"``): the majority share of ``labels`` when it
    exceeds 1/``choices``, else 1/``choices``."""
    _, counts = np.unique(labels, return_counts=True)
    majority = float(counts.max() / counts.sum())
    uniform = 1.0 / choices
    return (majority, "majority") if majority > uniform + 1e-12 else (uniform, "1/N")


def permute_groups(codes: np.ndarray, groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``codes`` with whole groups' label vectors exchanged among groups of the same size."""
    out = codes.copy()
    members: dict[int, list[int]] = {}
    for i, g in enumerate(groups.tolist()):
        members.setdefault(g, []).append(i)
    by_size: dict[int, list[list[int]]] = {}
    for idx in members.values():
        by_size.setdefault(len(idx), []).append(idx)
    for same in by_size.values():
        order = rng.permutation(len(same))
        for idx, k in zip(same, order, strict=True):
            out[idx] = codes[same[int(k)]]
    return out


def grouped_folds(
    codes: np.ndarray, groups: np.ndarray, k: int, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``k`` (train, test) index pairs whose test folds hold whole groups, stratified.

    Groups are taken largest first (ties in a seeded random order) and each goes to the fold
    least filled in the group's own classes, relative to each class's total (then the
    smallest fold); so folds get about equal label shares and sizes, and a group never
    straddles two folds.

    Args:
        codes: (n,) int class of each sample (0..C-1).
        groups: (n,) int group of each sample.
        k: number of folds (at most the number of groups).
        seed: seed of the tie order.
    """
    rng = np.random.default_rng(seed)
    names, inverse = np.unique(groups, return_inverse=True)
    classes = int(codes.max()) + 1
    counts = np.zeros((len(names), classes))
    np.add.at(counts, (inverse, codes), 1.0)
    order = rng.permutation(len(names))
    order = order[np.argsort(-counts[order].sum(axis=1), kind="stable")]
    totals = counts.sum(axis=0)
    fill = np.zeros((k, classes))
    fold_of = np.empty(len(names), dtype=np.int64)
    for g in order:
        # the fold least filled in this group's classes (relative to each class's total),
        # then the smallest, then the first
        classwise = ((fill + counts[g]) / totals * counts[g]).sum(axis=1)
        best = int(np.lexsort((np.arange(k), fill.sum(axis=1), classwise))[0])
        fold_of[g] = best
        fill[best] += counts[g]
    sample_fold = fold_of[inverse]
    every = np.arange(len(codes))
    return [(every[sample_fold != f], every[sample_fold == f]) for f in range(k)]


def _splits(codes: np.ndarray, groups: np.ndarray, settings: ProbeSettings):
    """The folds of a probe (grouped, or at random when ``settings.grouped`` is False)."""
    if not settings.grouped:
        k = min(settings.folds, len(codes))
        rng = np.random.default_rng(settings.seed)
        fold = rng.permutation(np.arange(len(codes)) % k)
        every = np.arange(len(codes))
        return [(every[fold != f], every[fold == f]) for f in range(k)], k
    k = min(settings.folds, len(np.unique(groups)))
    if k < 2:
        raise EvalError(
            f"{len(np.unique(groups))} group of related episodes: a grouped probe needs at "
            "least 2 (run more episodes)"
        )
    return grouped_folds(codes, groups, k, settings.seed), k


Folds = list[tuple[np.ndarray, np.ndarray, np.ndarray]]


def prepare_folds(x: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]]) -> Folds:
    """Per fold ``(test indices, training inputs, test inputs)``: standardized with the
    training fold's mean and deviation, then reduced by PCA (fitted on the training fold) to
    ``n_train - 1`` components when the dimension exceeds the training samples. The labels
    play no part, so the label-permutation control reuses them."""
    # scikit-learn: the optional probe extra (rsb_mj[probe])
    from sklearn.decomposition import PCA

    out = []
    for train, test in splits:
        mean, std = x[train].mean(axis=0), x[train].std(axis=0)
        std[std == 0] = 1.0  # a constant feature stays 0
        a, b = (x[train] - mean) / std, (x[test] - mean) / std
        if a.shape[1] > a.shape[0]:
            pca = PCA(n_components=a.shape[0] - 1, svd_solver="full").fit(a)
            a, b = pca.transform(a), pca.transform(b)
        out.append((test, a, b))
    return out


def _fit_predict(a: np.ndarray, y: np.ndarray, b: np.ndarray, c: float) -> np.ndarray:
    # scikit-learn: the optional probe extra (rsb_mj[probe])
    from sklearn.linear_model import LogisticRegression

    classes = np.unique(y)
    if len(classes) == 1:
        return np.full(len(b), classes[0], dtype=y.dtype)
    # The L2-regularized problem has one optimum; the solver only sets the speed:
    # Newton-Cholesky for few features, L-BFGS for many (a Cholesky of D x D then costs more).
    solver = "newton-cholesky" if a.shape[1] <= NEWTON_MAX_FEATURES else "lbfgs"
    model = LogisticRegression(C=c, solver=solver, max_iter=2000)
    model.fit(a, y)
    return model.predict(b)


def out_of_fold(
    folds: Folds, codes: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]], c: float
) -> np.ndarray:
    """The out-of-fold predictions of the int classes ``codes`` over ``splits``, from the
    inputs :func:`prepare_folds` made of them."""
    # scikit-learn: the optional probe extra (rsb_mj[probe])
    import sklearn

    pred = np.empty(len(codes), dtype=codes.dtype)
    with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
        for (train, _), (test, a, b) in zip(splits, folds, strict=True):
            pred[test] = _fit_predict(a, codes[train], b, c)
    return pred


def probe_layer(data: ProbeSet, layer: str, settings: ProbeSettings | None = None) -> LayerResult:
    """The probe of ``layer`` of ``data`` (see the module docstring; default settings when
    ``settings`` is None)."""
    settings = settings or ProbeSettings()
    x = data.features[layer].astype(np.float64)
    labels = data.labels
    names, codes = np.unique(labels, return_inverse=True)
    splits, k = _splits(codes, data.groups, settings)
    folds = prepare_folds(x, splits)
    pred_codes = out_of_fold(folds, codes, splits, settings.c)
    pred = names[pred_codes]
    hits = int((pred_codes == codes).sum())
    accuracy = hits / data.n
    n_eff = len(np.unique(data.groups))
    chance, kind = chance_of(labels, data.choices)
    band = chance_band(chance, n_eff)
    verdict = "above" if accuracy > band[1] else "below" if accuracy < band[0] else "chance"
    permuted_mean = permuted_p95 = permutation_p = None
    if settings.permutations:
        rng = np.random.default_rng([settings.seed, data.layers.index(layer)])
        scores = []
        for _ in range(settings.permutations):
            shuffled = permute_groups(codes, data.groups, rng)
            predicted = out_of_fold(folds, shuffled, splits, settings.c)
            scores.append(float((predicted == shuffled).mean()))
        arr = np.asarray(scores)
        permuted_mean, permuted_p95 = float(arr.mean()), float(np.quantile(arr, 0.95))
        permutation_p = float((1 + (arr >= accuracy - 1e-12).sum()) / (1 + len(arr)))
    known = pred == data.correct
    known_wrong = int((known & ~data.acted).sum())
    n_known = int(known.sum())
    return LayerResult(
        label=data.label,
        suite=data.suite,
        layer=layer,
        depth=data.layers.index(layer),
        dim=int(x.shape[1]),
        n=data.n,
        groups=n_eff,
        folds=k,
        classes=len(np.unique(labels)),
        accuracy=accuracy,
        interval=wilson(accuracy * n_eff, n_eff),  # type: ignore[arg-type] # k: a share
        chance=chance,
        chance_kind=kind,
        band=band,
        verdict=verdict,
        permuted_mean=permuted_mean,
        permuted_p95=permuted_p95,
        permutation_p=permutation_p,
        known=n_known,
        known_wrong=known_wrong,
        kbna=known_wrong / n_known if n_known else None,
        kbna_interval=wilson(known_wrong, n_known) if n_known else None,
        predictions=tuple(str(p) for p in pred),
    )


def probe_set(data: ProbeSet, settings: ProbeSettings | None = None) -> list[LayerResult]:
    """:func:`probe_layer` of every layer of ``data``, in depth order.

    The fits run on one BLAS/OpenMP thread: they are small, and thread pools cost far more
    than they save on them (x9 on a loaded 2-core machine)."""
    settings = settings or ProbeSettings()
    # scikit-learn: the optional probe extra (rsb_mj[probe])
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return [probe_layer(data, layer, settings) for layer in data.layers]


__all__ = [
    "FOLDS",
    "PERMUTATIONS",
    "SEED",
    "C",
    "LayerResult",
    "ProbeSettings",
    "chance_of",
    "out_of_fold",
    "permute_groups",
    "prepare_folds",
    "probe_layer",
    "probe_set",
]
