"""The tournament results site: static HTML built from a tournament's store.

``build_site(store_folder, out_dir) -> Path`` (the index.html written); see ``site``.
"""

from __future__ import annotations

from referee.tournament.report.site import build_site

__all__ = ["build_site"]
