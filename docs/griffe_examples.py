"""A griffe extension for the docs site: read a docstring's `Example:` section as examples.

fungrad's docstrings put their doctests under `Example:` or `Examples:`. Griffe's Google
parser knows only `Examples:` as the examples section and reads `Example:` as an
admonition of Markdown, where `x[0](y)` would become a link. This extension renames the
section before parsing, so both render as code (mkdocs.yml loads it).
"""
from __future__ import annotations

import re

import griffe

SECTION = re.compile(r"^(\s*)Example:[ \t]*$", re.M)


class ExampleSections(griffe.Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None and not obj.is_alias:
            obj.docstring.value = SECTION.sub(r"\1Examples:", obj.docstring.value)
