"""The few markup helpers the Python-built parts of the site use (the replay and the move
lists); the pages themselves are Jinja2 templates (``templates/``).

``Html`` is ``markupsafe.Markup``: markup that Jinja2's autoescaping inserts as it is.
``h(template, ...)`` fills a trusted template (a constant in this package) with values, each
escaped unless it is already ``Html``; so text from users and bots can only reach a page
escaped, and markup is only what this package writes on purpose.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote

from markupsafe import Markup, escape

Html = Markup


def esc(value: object) -> Html:
    """``value`` as markup: escaped text, or itself if it is already ``Html``."""
    return escape(value)


def h(template: str, *args: object, **kwargs: object) -> Html:
    """Fill a trusted ``str.format`` template, escaping every value that is not ``Html``
    (each value escaped first, then the C ``str.format``: ``Markup.format`` goes through
    the slower ``string.Formatter``, a third of a replay's time)."""
    return Markup(template.format(*(escape(a) for a in args),
                                  **{key: escape(value) for key, value in kwargs.items()}))


def join(parts: Iterable[object], sep: str = "") -> Html:
    """Markup of the parts one after the other (text parts escaped)."""
    return Markup(escape(sep).join(escape(part) for part in parts))


def href(path: str) -> str:
    """A relative file path as a URL path (each segment percent-encoded)."""
    return quote(path, safe="/")
