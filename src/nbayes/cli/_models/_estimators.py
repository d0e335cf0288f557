"""The models of ``--model`` and their estimators, built from the command line's options."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from ... import _registry as registry
from ... import base, estimators
from ..._registry import Registration
from ...distributions import Binned
from ...estimators import TextNB
from .._common import UsageError

#: --continuous choices: how the numeric columns of the mixed model (--model auto / mixed)
#: are read (a family of MixedNB), and the reading of --model density.
CONTINUOUS = ("gaussian", "kde", "binned", "density")


class _Registered(Mapping):
    """``--model`` name -> class of the registered models (:func:`nbayes.base.register`) that
    ``takes`` accepts, read from the registry on each use: a model registered after the
    command line was imported is there."""

    def __init__(self, takes: Callable[[Registration], bool]):
        self._takes = takes

    def _table(self) -> dict[str, type]:
        return {
            r.cli_name: r.cls
            for r in registry.registrations().values()
            if r.cli_name is not None and self._takes(r)
        }

    def __getitem__(self, name: str) -> type:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


#: --model choices for a numeric table, each one preset over every feature column.
PRESETS: Mapping[str, type] = _Registered(lambda r: base.NUMERIC_INPUT in r.capabilities)
#: --model choices beyond the naive assumption: categories as they are, numbers cut into bins.
SEMINAIVE: Mapping[str, type] = _Registered(lambda r: r.layout == "seminaive")
#: --model choices for a text column (the count model behind the vectoriser).
TEXT_MODELS: Mapping[str, type] = _Registered(
    lambda r: {base.NUMERIC_INPUT, base.WORD_COUNTS} <= r.capabilities
)


def model_names() -> tuple[str, ...]:
    """The choices of ``--model``: "auto", then the registered models' names, with
    "categorical" (MixedNB reading every column as a category) before MixedNB's "mixed"."""
    names = [r.cli_name for r in registry.registrations().values() if r.cli_name is not None]
    at = names.index("mixed") if "mixed" in names else len(names)
    return ("auto", *names[:at], "categorical", *names[at:])


def mixed_nb():
    """The MixedNB class, or a clear error when this nbayes does not have it."""
    cls = getattr(estimators, "MixedNB", None)
    if cls is None:
        raise UsageError(
            "--model mixed / categorical needs MixedNB, which this nbayes lacks; "
            "use a numeric model (--model gaussian) or a text column."
        )
    return cls


@dataclass
class Settings:
    """Model options from the command line (None: the estimator's default)."""

    alpha: float | str | None = None
    estimate: str | None = None
    var_smoothing: float | str | None = None
    #: Family of the numeric columns in the mixed model, or the reading of --model density.
    continuous: str | None = None
    hashing: int | None = None
    min_df: float = 1
    max_features: int | None = None
    ngrams: int = 1
    lowercase: bool = True
    #: Semi-naive models: AODE's super-parents (1 or 2), KDB's k, how numbers are binned.
    parents: int | None = None
    k: int | None = None
    binning: str | None = None
    n_bins: int | None = None


def text_family(settings: Settings, columns: list[str] | None = None):
    """The text family of words columns (``columns``, named in errors) inside MixedNB, from
    the text options."""
    from ...distributions import Text

    if settings.max_features is not None:
        raise UsageError(
            "--max-features applies to a text model over one column (TextNB); a text column "
            "inside the mixed model hashes its words instead (size it with --hashing N)."
        )
    if settings.ngrams != 1:
        raise UsageError(
            "--ngrams applies to a text model over one column (TextNB); a text column "
            "inside the mixed model uses single words."
        )
    min_df = settings.min_df
    if not float(min_df).is_integer() or min_df < 1:
        raise UsageError(
            "--min-df as a fraction applies to a text model over one column (TextNB); inside "
            "the mixed model give a number of occurrences (e.g. --min-df 2)."
        )
    if settings.alpha == "cv":
        # The family carries its own alpha, which the cross-validation (of MixedNB's alpha)
        # would not reach: refused before the first pass rather than failing after it.
        named = f" ({', '.join(map(repr, columns))})" if columns else ""
        raise UsageError(
            f"--alpha cv applies to a text model over one column (TextNB) and to models "
            f"without words; the words of a column read beside the others{named} keep "
            f"their own smoothing, which it would not reach: give a number, or --alpha auto "
            f"(each column's alpha chosen by the evidence)."
        )
    params: dict = {"min_count": int(min_df), "lowercase": settings.lowercase}
    if settings.hashing:
        params["n_buckets"] = int(settings.hashing)
    for key in ("alpha", "estimate"):
        if getattr(settings, key) is not None:
            params[key] = getattr(settings, key)
    return Text(**params)


def _check_seminaive_options(model: str, settings: Settings) -> None:
    """The semi-naive options belong to their models: a usage error elsewhere."""
    given = {
        "--parents": (settings.parents, ("aode",)),
        "--k": (settings.k, ("kdb",)),
        "--binning": (settings.binning, tuple(SEMINAIVE)),
        "--n-bins": (settings.n_bins, tuple(SEMINAIVE)),
    }
    for flag, (value, models) in given.items():  # four options
        if value is not None and model not in models:
            raise UsageError(
                f"{flag} applies to --model {' / '.join(models)}; got --model {model}."
            )
    if model in SEMINAIVE and settings.continuous is not None:
        raise UsageError(
            f"--continuous applies to --model density, mixed or auto; --model {model} bins its "
            "numeric columns (--binning, --n-bins)."
        )
    if model in SEMINAIVE and settings.var_smoothing is not None:
        raise UsageError(f"--var-smoothing does not apply to --model {model}; use --alpha.")
    if settings.n_bins is not None and settings.binning not in ("quantile", "binned"):
        raise UsageError(
            "--n-bins sets the number of quantile bins (or grid bins); pass --binning quantile "
            "(or binned) too."
        )
    if settings.binning == "binned" and settings.n_bins is not None and settings.n_bins < 2:
        raise UsageError(
            f"--n-bins must be at least 2 with --binning binned; got {settings.n_bins}."
        )


#: Grid bins of ``--binning binned`` by default: on Adult and Spambase 1024 bins cut within
#: 0.1 point of accuracy of the exact MDL cuts, 256 bins up to 1.3 points below.
GRID_BINS = 1024


def _binning_words(settings: Settings) -> str:
    if settings.binning == "quantile":
        return f"{settings.n_bins or 5} equal-frequency bins"
    if settings.binning == "binned":
        return f"supervised MDL cuts on a grid of {settings.n_bins or GRID_BINS} bins"
    return "supervised MDL cuts"


def seminaive_estimator(name: str, settings: Settings, categorical=()):
    """AODE / TAN / KDB / JointBayes with the command line's options (``categorical``: the
    columns of --categorical)."""
    params: dict = {}
    if categorical:
        params["categorical"] = list(categorical)
    for key in ("alpha", "estimate", "binning", "n_bins"):
        if getattr(settings, key) is not None:
            params[key] = getattr(settings, key)
    if settings.binning == "binned":  # the binned family's cuts, on its grid
        params["binning"] = Binned(bins=params.pop("n_bins", GRID_BINS))
    if settings.alpha in ("auto", "cv"):
        raise UsageError(
            f"--alpha {settings.alpha} does not apply to --model {name}; give a number."
        )
    if settings.parents is not None:
        params["n"] = settings.parents
    if settings.k is not None:
        params["k"] = settings.k
    return SEMINAIVE[name](**params)


def preset_estimator(name: str, settings: Settings):
    cls = PRESETS[name]
    params: dict = {}
    if name == "density":
        if settings.estimate is not None:
            raise UsageError("--estimate does not apply to --model density.")
        if settings.continuous is not None:
            params["density"] = "auto" if settings.continuous == "density" else settings.continuous
        for key in ("alpha", "var_smoothing"):
            if getattr(settings, key) is not None:
                params[key] = getattr(settings, key)
        return cls(**params)
    if settings.continuous is not None:
        raise UsageError(
            f"--continuous applies to --model density, mixed or auto; --model {name} reads "
            "every column one way."
        )
    if name == "gaussian":
        if settings.var_smoothing is not None:
            params["var_smoothing"] = settings.var_smoothing
        if settings.estimate not in (None, "mle"):
            raise UsageError("--model gaussian supports --estimate mle only.")
    else:
        if settings.alpha is not None:
            params["alpha"] = settings.alpha
        if settings.estimate is not None:
            params["estimate"] = settings.estimate
    return cls(**params)


def text_estimator(name: str, settings: Settings) -> TextNB:
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

    common = {"ngram_range": (1, settings.ngrams), "lowercase": settings.lowercase}
    if settings.hashing:
        vectorizer = HashingVectorizer(
            n_features=settings.hashing, alternate_sign=False, norm=None, **common
        )
    else:
        min_df = settings.min_df
        min_df = int(min_df) if float(min_df).is_integer() and min_df >= 1 else float(min_df)
        vectorizer = CountVectorizer(min_df=min_df, max_features=settings.max_features, **common)
    params = {}
    if settings.alpha is not None:
        params["alpha"] = settings.alpha
    if settings.estimate is not None:
        params["estimate"] = settings.estimate
    return TextNB(TEXT_MODELS[name](**params), vectorizer)
