"""Distributed fit and predict on Dask: accumulate per partition, merge in a tree, finalize once.

Naive Bayes learns additive statistics, so a distributed fit is a *map* of ``accumulate`` over
the partitions, a *tree* of ``merge`` calls and one ``finalize`` on the client. Every partition
is processed in parallel and only statistics (class x feature arrays) travel; the result equals
the single-machine ``fit`` on the same rows to floating-point rounding, whatever the
partitioning. (Chaining ``partial_fit`` block after block, as dask-ml's ``Incremental`` does,
would run one partition at a time.)

Labels need no separate pass: each partition counts the classes it sees and statistics are laid
out over the union of labels when they merge, so the classes come out sorted exactly as
``fit`` sorts them. What must be known before anything can be counted is found in a cheap
first pass: the column groups and category vocabularies of ``MixedNB`` (rows, and the distinct
values of the non-float columns), the vocabulary of a ``TextNB`` with a CountVectorizer
(word counts per partition, added up), and the category values and numeric bin edges of AODE,
TAN, KDB and JointBayes (a pass that sees the labels: the weight of every distinct value per
class, added up, from which the edges are cut exactly as ``fit`` cuts them). Prediction maps
the fitted model over the blocks and stays lazy.

Install with ``pip install "nbayes[dask]"``. Computations run on the current Dask scheduler:
a ``distributed.Client`` when one is active, else Dask's local threads.

Examples
--------
>>> import dask.array as da
>>> import numpy as np
>>> from nbayes import GaussianNB
>>> from nbayes import dask as nbdask
>>> rng = np.random.default_rng(0)
>>> X = da.from_array(rng.normal(size=(1000, 3)), chunks=250)
>>> y = da.from_array(rng.integers(0, 2, 1000), chunks=250)
>>> model = nbdask.fit(GaussianNB(), X, y)
>>> local = GaussianNB().fit(X.compute(), y.compute())
>>> bool(np.allclose(model.theta_, local.theta_, rtol=1e-12))
True
>>> nbdask.predict(model, X)  # lazy, one task per block
dask.array<..., shape=(1000,), dtype=int64, chunksize=(250,), chunktype=numpy.ndarray>
"""

from __future__ import annotations

try:  # the install hint, before any submodule needs Dask
    import dask
    import dask.array
    import dask.dataframe  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'nbayes.dask needs Dask; install it with: pip install "nbayes[dask]"'
    ) from exc

from .._rowhash import hash_folds
from ._em import fit_semisupervised
from ._fit import _set_up as _set_up  # the set-up of fit, for tests of the survey
from ._fit import fit
from ._folds import fold_statistics, grid_search
from ._predict import predict, predict_joint_log_proba, predict_log_proba, predict_proba

__all__ = [
    "fit",
    "fit_semisupervised",
    "fold_statistics",
    "grid_search",
    "hash_folds",
    "predict",
    "predict_joint_log_proba",
    "predict_log_proba",
    "predict_proba",
]
