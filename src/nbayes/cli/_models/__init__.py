"""Which estimator a command uses for which columns, and how a model file remembers it.

The models of ``--model`` and their estimators are in :mod:`._estimators`, the
:class:`~._plan.Plan` and its loading from a model file in :mod:`._plan`, the choice of a plan
for the columns of DATA in :mod:`._choice`, the hints on columns in :mod:`._hints` and the
class labels in :mod:`._classes`.
"""

from __future__ import annotations

from ...columns import string_profile as string_profile
from ._choice import choose_plan as choose_plan
from ._classes import class_labels as class_labels
from ._classes import inner as inner
from ._estimators import CONTINUOUS as CONTINUOUS
from ._estimators import GRID_BINS as GRID_BINS
from ._estimators import PRESETS as PRESETS
from ._estimators import SEMINAIVE as SEMINAIVE
from ._estimators import TEXT_MODELS as TEXT_MODELS
from ._estimators import Settings as Settings
from ._estimators import mixed_nb as mixed_nb
from ._estimators import model_names as model_names
from ._estimators import preset_estimator as preset_estimator
from ._estimators import seminaive_estimator as seminaive_estimator
from ._estimators import text_estimator as text_estimator
from ._estimators import text_family as text_family
from ._hints import NEAR_UNIQUE as NEAR_UNIQUE
from ._hints import has_units as has_units
from ._hints import looks_like_text as looks_like_text
from ._hints import marker_note as marker_note
from ._hints import number_markers as number_markers
from ._hints import number_style as number_style
from ._plan import Plan as Plan
from ._plan import _stored_threshold as _stored_threshold
from ._plan import load_plan as load_plan
