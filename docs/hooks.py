"""MkDocs hooks for the API reference.

The docstrings cross-reference in Sphinx's roles (``:class:`Game```); the rendered page
shows the name alone, as code (:func:`drop_roles`). mkdocstrings reads the package from
``src/`` (mkdocs.yml).
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|mod|data|exc|obj|const):<code>(~?)([^<]*)</code>")


def drop_roles(html: str) -> str:
    """``:class:<code>Game</code>`` -> ``<code>Game</code>``; ``~a.b.C`` shows as ``C``."""
    def name(match):
        tilde, target = match.groups()
        return f"<code>{target.rsplit('.', 1)[-1] if tilde else target}</code>"
    return ROLE.sub(name, html)


def on_page_content(html, page, config, files):
    return drop_roles(html)
