"""How sure the model is: credible intervals of P(y | x) from the posterior over parameters.

:class:`IntervalMixin` gives the naive Bayes estimators ``predict_proba_interval``. It draws
whole models from the posterior over every parameter (each family's draws live in
``nbayes.distributions._posterior``), scores each row under every drawn model in the same
products a prediction makes, and reads the interval off the quantiles of the drawn P(y | x).
"""

from __future__ import annotations

import numbers
import weakref

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from .._validation import rows_from
from ..distributions._posterior import POSTERIOR, draw_class_prior, tile_classes
from ..exceptions import ParameterError

#: Drawn scores held at once, in cells of (rows x draws x classes): about 32 MB.
CHUNK_CELLS = 1 << 22

#: Fitted model -> (params_, (n_draws, seed), draws): the last draws from an int seed.
_DRAWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def interval_refusal(model) -> str | None:
    """Why ``model.predict_proba_interval`` is refused (no conjugate posterior), or None."""
    families = list(getattr(model, "families_", ()))
    missing = sorted({f.name for f in families if f.name not in POSTERIOR})
    if families and not missing:
        return None
    what = f"its {', '.join(missing)} columns have" if missing else "its model has"
    return (
        f"{type(model).__name__} cannot give predict_proba_interval: {what} no conjugate "
        "posterior (supported: Gaussian, Bernoulli, categorical, multinomial, Poisson and "
        "text families; not kernel or binned densities, ComplementNB, or the semi-naive "
        f"AODE, TAN, KDB and JointBayes). {_interval_fix(missing)}"
    )


def _interval_fix(missing: list[str]) -> str:
    """What to fit instead, for the families in ``missing`` (none: a model without
    per-column families, such as the semi-naive ones)."""
    fixes = []
    if not missing:
        fixes.append(
            "Fit a naive model over the same columns to get intervals (nbayes train "
            "--model auto; in Python MixedNB)."
        )
    if "complement" in missing:
        fixes.append(
            "Fit MultinomialNB on the same counts to get intervals (nbayes train "
            "--model multinomial)."
        )
    if set(missing) - {"complement"}:
        fixes.append(
            "Read the numeric columns with the 'gaussian' family to get intervals (nbayes "
            "train --continuous gaussian; in Python GaussianNB or a ('gaussian', COLS) group "
            "of MixedNB(columns=...))."
        )
    return " ".join(fixes)


class IntervalMixin:
    """``predict_proba_interval`` for estimators over column groups of conjugate families."""

    def predict_proba_interval(self, X, level=0.9, n_samples=1000, random_state=None):
        """Credible interval of each class probability P(y | x), from the posterior over the
        model's parameters.

        The fitted tables are estimates from finite counts; on few rows, or a rare category,
        other tables are nearly as plausible, and P(y | x) with them differs. This draws
        ``n_samples`` whole models from the posterior over every parameter and returns, for
        each row and class, the central ``level`` interval of the drawn P(y | x) (Monte
        Carlo: the bounds are quantiles of the draws, and move by about
        ``sqrt(level (1 - level) / n_samples)`` in probability between seeds).

        The posterior is the one the smoothing stands for: with ``alpha`` the prior's
        hallucinated count, Bernoulli features draw from Beta(n1 + a, n0 + a), categorical and
        multinomial ones from Dirichlet(n + a), Poisson rates from Gamma(s + a, n + beta) and
        the class prior from Dirichlet(N_k + prior_alpha); under ``estimate="posterior_mean"``
        the mean of each is the fitted table, under ``"map"`` its mode (``"mle"``: a flat
        prior, whose mode it is). Gaussian features draw from the Normal-Inverse-Gamma
        posterior of ``estimate="posterior_predictive"``, or, under ``"mle"``, from the
        posterior of the class weight's observations of the fitted mean and variance plus
        one prior observation of the feature's pooled within-class variance (so a class of
        one row, or of equal values, stays uncertain). A class prior fixed by
        ``class_prior`` (GaussianNB: ``priors``) or ``fit_prior=False`` is not drawn. Sample
        weights count as observations.

        Supported: GaussianNB, BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB and
        MixedNB over those families (text columns included). Not supported, with a
        ParameterError: kernel and binned densities (DensityNB, MixedNB's kde / binned /
        density columns), ComplementNB and the semi-naive models (AODE, TAN, KDB,
        JointBayes), whose parameters have no conjugate posterior here.

        Cost: drawing is O(S K D) for S draws, K classes and D parameters per class (memory
        S K D floats for the drawn tables), once per call; scoring is O(S K D) per row, the
        work of a prediction with S K classes, in row chunks of bounded memory.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, as for :meth:`predict_proba`.
        level : float, default=0.9
            Posterior probability inside each interval, in (0, 1).
        n_samples : int, default=1000
            Models drawn from the posterior; at least 2.
        random_state : int, numpy Generator or None, default=None
            Seed of the draws; an int gives the same bounds on every call.

        Returns
        -------
        lower, upper : ndarray of shape (n_samples, n_classes)
            Bounds of P(y | x) per row and class, columns in ``classes_`` order; the
            ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the drawn probabilities.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> lower, upper = model.predict_proba_interval([[3, 0]], random_state=0)
        >>> bool(lower[0, 0] < model.predict_proba([[3, 0]])[0, 0] < upper[0, 0])
        True
        """
        check_is_fitted(self, "stats_")
        level, n_draws = _check_level(level), _check_draws(n_samples)
        refusal = interval_refusal(self)
        if refusal is not None:
            raise ParameterError(refusal)
        drawn, log_prior = _posterior_draws(self, n_draws, random_state)
        blocks = self._blocks(self._validate_X(X, reset=False), "score")
        return _bounds(
            self.families_,
            drawn,
            log_prior,
            blocks,
            self._feature_names_per_block(),
            level,
            n_draws,
        )


def _posterior_draws(model, n_draws: int, random_state) -> tuple[list, np.ndarray]:
    """Scoring-ready drawn parameters of every group of ``model`` and the drawn log class
    priors. Draws from an int seed are kept per fitted state: a caller scoring a table in
    chunks (``nbayes predict --interval``) draws once, and every chunk sees the same models."""
    model._scoring_params()  # names a model installed without parameters
    params = model.params_  # as finalize made them: the draws replace the scoring tables
    key = (n_draws, random_state) if isinstance(random_state, numbers.Integral) else None
    kept = _DRAWS.get(model)
    if key is not None and kept is not None and kept[0] is params and kept[1] == key:
        return kept[2]
    rng = np.random.default_rng(random_state)
    drawn = [
        fam.ready(POSTERIOR[fam.name](fam, s, p, n_draws, rng))
        for fam, s, p in zip(model.families_, model.stats_["groups"], params)
    ]
    out = (drawn, _drawn_class_prior(model, n_draws, rng))
    if key is not None:
        _DRAWS[model] = (params, key, out)
    return out


def _drawn_class_prior(model, n_draws: int, rng) -> np.ndarray:
    """Log class priors of every draw, (n_draws * n_classes,); a prior that was not fitted
    (fixed, or uniform) is the same in every draw."""
    fixed = (
        getattr(model, "class_prior", None) is not None
        or getattr(model, "priors", None) is not None  # GaussianNB's and DensityNB's name
        or not getattr(model, "fit_prior", True)
    )
    if fixed:
        return tile_classes(model.class_log_prior_, n_draws)
    alpha = getattr(model, "prior_alpha", 0.0) or 0.0
    return draw_class_prior(model.stats_["class_count"], alpha, n_draws, rng)


def _check_level(level) -> float:
    if not (isinstance(level, numbers.Real) and 0 < float(level) < 1):
        raise ParameterError(
            f"Parameter 'level' must be a probability strictly between 0 and 1 (0.9 for a "
            f"90 % interval); got {level!r}."
        )
    return float(level)


def _check_draws(n_samples) -> int:
    if not (isinstance(n_samples, numbers.Integral) and int(n_samples) >= 2):
        raise ParameterError(
            f"Parameter 'n_samples' must be an integer >= 2 (draws from the posterior); got "
            f"{n_samples!r}."
        )
    return int(n_samples)


def _bounds(families, drawn, log_prior, blocks, names, level: float, n_draws: int):
    """Lower and upper quantiles of the drawn P(y | x), each (n_rows, n_classes)."""
    n_rows, n_classes = blocks[0].shape[0], log_prior.shape[0] // n_draws
    lower, upper = np.empty((n_rows, n_classes)), np.empty((n_rows, n_classes))
    q = [(1 - level) / 2, (1 + level) / 2]
    step = max(1, CHUNK_CELLS // log_prior.shape[0])
    for start in range(0, n_rows, step):  # chunks of rows, bounded by memory
        rows = slice(start, min(start + step, n_rows))
        with rows_from(start):
            jll = engine.joint_log_likelihood(
                families, drawn, log_prior, [X[rows] for X in blocks], names, normalised=False
            )
        proba = _normalise(jll.reshape(-1, n_draws, n_classes))
        lower[rows], upper[rows] = np.quantile(proba, q, axis=1)
    return lower, upper


def _normalise(jll: np.ndarray) -> np.ndarray:
    """P(y | x) over the last axis; a draw under which every class rules the row out gives
    the uniform posterior, as predict_proba does."""
    top = jll.max(axis=-1, keepdims=True)
    impossible = np.isneginf(top)
    with np.errstate(invalid="ignore"):
        p = np.exp(jll - np.where(impossible, 0.0, top))
    p = np.where(impossible, 1.0, p)
    p /= p.sum(axis=-1, keepdims=True)
    return p
