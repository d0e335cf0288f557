"""Feature families and their registry.

Each family is one module; adding a family means one module plus one entry in ``REGISTRY``.
"""

from ._base import Family, Params, Stats
from ._labels import Labels, SoftLabels, accumulate_by_class
from .bernoulli import Bernoulli
from .categorical import Categorical
from .density import Binned, Density, Kernel
from .gaussian import Gaussian
from .multinomial import Complement, Multinomial
from .poisson import Poisson
from .statistics import CategoryCounts, ClassSums, Moments, Slot, Statistic, ValueRange
from .text import Text

#: Family name -> class. Model files and MixedNB build families only from this table.
REGISTRY: dict[str, type[Family]] = {
    cls.name: cls
    for cls in (
        Bernoulli,
        Binned,
        Categorical,
        Complement,
        Density,
        Gaussian,
        Kernel,
        Multinomial,
        Poisson,
        Text,
    )
}


def make_family(name: str, **params) -> Family:
    """Build a registered family by name, e.g. ``make_family("gaussian", var_smoothing=1e-9)``."""
    from ..exceptions import ParameterError

    try:
        cls = REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"Unknown family {name!r}; choose one of {sorted(REGISTRY)}."
        ) from None
    return cls(**params)


__all__ = [
    "REGISTRY",
    "Bernoulli",
    "Binned",
    "Categorical",
    "CategoryCounts",
    "ClassSums",
    "Complement",
    "Density",
    "Family",
    "Gaussian",
    "Kernel",
    "Labels",
    "Moments",
    "Multinomial",
    "Params",
    "Poisson",
    "Slot",
    "SoftLabels",
    "Statistic",
    "Stats",
    "Text",
    "ValueRange",
    "accumulate_by_class",
    "make_family",
]
