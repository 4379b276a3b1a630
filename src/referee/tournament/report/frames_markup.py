"""The board of a replay that has frames (:mod:`referee.core.replay`): the frames as JSON
data in the page and the viewer that draws them (static/tiles.js for ``renderer =
"tiles"``), in place of the SVG board of the steps' fragments.

The JSON goes in a ``<script type="application/json">`` element, which HTML ends at the
first ``</script``: every ``<``, ``>`` and ``&`` in it is written as a JSON escape
(``\\u003c``...), so no text from a bot (a player's name) can end the element or open a
comment, and ``JSON.parse`` still reads the text as it was. The viewer puts texts in the
page as text nodes. Without JavaScript the final position of the fragments shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from referee.core.replay import ReplayView
from referee.tournament.report.markup import Html, h, href

__all__ = ["RENDERERS", "frames_board", "frames_json"]

RENDERERS = {"tiles": ("tiles.js", "tiles.css")}
"""The viewers the site has, by renderer name: their script and stylesheet in static/."""

_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                               "\u2028": "\\u2028", "\u2029": "\\u2029"})


def frames_json(view: ReplayView) -> str:
    """The frames of ``view`` as compact JSON safe inside a ``<script>`` element."""
    data = {"renderer": view.renderer, "info": view.frame_info, "frames": view.frames}
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=_plain)
    return text.translate(_JSON_ESCAPES)


def _plain(value: object) -> object:
    """A mapping as a dict, any other collection as a list (for JSON)."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Iterable):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def frames_board(view: ReplayView, root: str) -> Html | None:
    """The board markup of a replay with frames, ``None`` if it has none or no viewer
    here; ``root`` is the relative path from the page to the site's root."""
    files = RENDERERS.get(view.renderer)
    if not view.frames or files is None:
        return None
    script, style = files
    fallback = Html(view.svg().replace("<svg ", '<svg class="board" ', 1))
    return h('<link rel="stylesheet" href="{css}"><div class="tiles-board" hidden>'
             '<svg class="tiles" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 480 40" '
             'role="img" aria-label="table"></svg></div>'
             '<script type="application/json" class="replay-frames">{data}</script>'
             '<script src="{js}"></script><noscript>{fallback}</noscript>',
             css=href(root + "static/" + style), js=href(root + "static/" + script),
             data=Html(frames_json(view)), fallback=fallback)
