"""HTML building with escaping by default: ``Html`` is markup, anything else is text.

``h(template, ...)`` fills a trusted template (a constant in this package) with values;
each value is escaped unless it is already ``Html``. So text from users and bots (player
names, reasons, bot messages) can only reach a page escaped, and markup is only what this
package writes on purpose.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from urllib.parse import quote

from referee import __version__


class Html(str):
    """A string of markup, safe to insert as it is."""

    __slots__ = ()


def esc(value: object) -> Html:
    """``value`` as markup: escaped text, or itself if it is already ``Html``."""
    if isinstance(value, Html):
        return value
    if type(value) is int:
        return Html(value)
    return Html(html.escape(str(value), quote=True))


def h(template: str, *args: object, **kwargs: object) -> Html:
    """Fill a trusted ``str.format`` template, escaping every value that is not ``Html``."""
    return Html(template.format(*(esc(a) for a in args),
                                **{key: esc(value) for key, value in kwargs.items()}))


def join(parts: Iterable[object], sep: str = "") -> Html:
    """Markup of the parts one after the other (text parts escaped)."""
    return Html(esc(sep).join(esc(part) for part in parts))


def href(path: str) -> str:
    """A relative file path as a URL path (each segment percent-encoded)."""
    return quote(path, safe="/")


def link(path: str, text: object, css: str = "") -> Html:
    """``<a href=path>text</a>`` (``path`` relative to the page)."""
    if css:
        return h('<a class="{}" href="{}">{}</a>', css, href(path), text)
    return h('<a href="{}">{}</a>', href(path), text)


Cell = object
"""A table cell: text (escaped) or ``Html``."""


def table(head: Sequence[str], rows: Iterable[Sequence[Cell]], *, table_id: str = "",
          right: Iterable[int] = (), css: str = "") -> Html:
    """A table with a header row; columns listed in ``right`` are right-aligned numbers."""
    numeric = set(right)
    parts = [h('<table{}{}>', h(' id="{}"', table_id) if table_id else "",
               h(' class="{}"', css) if css else ""), "<thead><tr>"]
    parts.extend(h('<th scope="col"{}>{}</th>', Html(' class="n"') if i in numeric else "",
                   label) for i, label in enumerate(head))
    parts.append("</tr></thead><tbody>")
    for row in rows:
        cells = "".join(f'<td class="n">{esc(cell)}</td>' if i in numeric
                        else f"<td>{esc(cell)}</td>" for i, cell in enumerate(row))
        parts.append(f"<tr>{cells}</tr>")
    parts.append("</tbody></table>")
    return Html("".join(parts))


def facts(items: Iterable[tuple[str, Cell]]) -> Html:
    """A definition list of ``(label, value)`` pairs."""
    body = join(h("<dt>{}</dt><dd>{}</dd>", label, value) for label, value in items)
    return h('<dl class="facts">{}</dl>', body)


def page(title: str, body: Html, *, root: str, site_name: str, generated: str,
         scripts: Sequence[str] = ()) -> str:
    """A whole HTML document; ``root`` is the relative path from the page to the site root."""
    script_tags = join(h('<script src="{}"></script>', href(root + s)) for s in scripts)
    return h(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>{title}</title>"
        '<link rel="stylesheet" href="{css}"></head>\n<body>'
        '<header class="top"><nav><a class="home" href="{index}">{site}</a>'
        '<a href="{index}#standings">Standings</a><a href="{index}#ratings-plot">Rating plot'
        '</a><a href="{games}">Games</a></nav></header>\n'
        "<main>\n{body}\n</main>\n"
        '<footer>Made by referee {version} on {generated}.</footer>{scripts}</body></html>\n',
        title=title, css=href(root + "static/site.css"), index=href(root + "index.html"),
        games=href(root + "games.html"), site=site_name, body=body, version=__version__,
        generated=generated, scripts=script_tags,
    )
