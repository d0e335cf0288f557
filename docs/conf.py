"""Sphinx configuration of the nbayes documentation.

Build: ``pip install -e ".[docs]" && python -m sphinx -W -b html docs docs/_build/html``.
The API reference (``api.rst``) is written at build time from each public module's
``__all__`` (``_ext/nbayes_api.py``); the gallery runs ``examples/gallery/plot_*.py``.
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import nbayes  # noqa: E402

project = "nbayes"
author = "the nbayes developers"
copyright = "the nbayes developers"
version = release = nbayes.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "nbayes_api",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "generated/*.examples", "auto_examples/*.ipynb"]
html_theme = "pydata_sphinx_theme"
html_title = f"nbayes {release}"
html_static_path = ["_static"]
html_css_files = ["nbayes.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
# The theme's script reads the colour mode from the page; left empty it logs a console error.
html_context = {"default_mode": "light"}
html_sidebars = {"**": ["sidebar-nav-bs"]}
html_show_sourcelink = False

# The reference: one page per public name, members documented on the class page.
# api.rst is named, not found: it is written at builder-inited, after Sphinx listed the sources.
autosummary_generate = ["api.rst"]
autodoc_default_options = {"members": True}
autodoc_typehints = "none"  # the numpydoc sections give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples" / "gallery"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "show_memory": False,
    "show_signature": False,
    "abort_on_example_error": True,
}


def _skip(app, what, name, obj, skip, options):
    """Members that scikit-learn defines (its mixins' set_output, the generated
    metadata-routing methods) are documented by scikit-learn, not here."""
    if name == "get_metadata_routing" or (name.startswith("set_") and name.endswith("_request")):
        return True
    if (getattr(obj, "__module__", None) or "").startswith("sklearn."):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip)
