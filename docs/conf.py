"""Sphinx configuration of the acpc-arena documentation (`make docs`).

Pages are MyST Markdown; the API reference is generated from the docstrings by autodoc
(the installed package, `acpc_arena`, is imported). `make docs` builds in strict mode:
every warning, a broken cross-reference or a missing page included, fails the build.
"""

from __future__ import annotations

project = "acpc-arena"
author = "the acpc-arena authors"
copyright = "2026, the acpc-arena authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "results/regenerate.py"]

# MyST: `(label)=` targets, ::: fences, definition lists (the glossary), heading anchors for
# `page.md#section` links.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# autodoc: members in source order, type hints in the signature, no private names.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_mock_imports: list[str] = []

html_theme = "furo"
html_title = "acpc-arena"
html_static_path: list[str] = []
