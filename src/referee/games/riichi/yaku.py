"""Yaku named as each writer names them, and the value of a win as Tenhou's JSON shows it.

The yaku of a win are compared by identity, whatever a log calls them: Tenhou's yaku ids
(mjlog ``AGARI yaku``, :data:`YAKU_NAMES` names them), the ``mahjong`` package's names
(our engine's ``hora`` events), Tenhou JSON's Japanese names (``"立直(1飜)"``) and the
original mjai's names (``reach``, ``menzenchin_tsumoho``). Each name stands for a Tenhou
id (:func:`yaku_key`), or for a group the original mjai does not split: ``sangenpai`` (the
three dragons), ``bakaze`` and ``jikaze`` (the round and seat winds), and its yakuman names
that stand for both forms (``suanko``: four concealed triplets, with or without the single
wait; ``kokushimuso``, ``churenpoton`` likewise). :func:`same_yaku` compares two lists at
the finer of the two namings; dora, ura dora and red fives (counts, not yaku) are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

__all__ = ["DORA_IDS", "YAKU_NAMES", "same_yaku", "tenhou_detail", "yaku_key"]

YAKU_NAMES: Final[dict[int, str]] = dict(enumerate((
    "menzen tsumo", "riichi", "ippatsu", "chankan", "rinshan kaihou", "haitei", "houtei",
    "pinfu", "tanyao", "iipeikou", "seat wind east", "seat wind south", "seat wind west",
    "seat wind north", "round wind east", "round wind south", "round wind west",
    "round wind north", "haku", "hatsu", "chun", "double riichi", "chiitoitsu", "chanta",
    "ittsu", "sanshoku doujun", "sanshoku doukou", "sankantsu", "toitoi", "sanankou",
    "shousangen", "honroutou", "ryanpeikou", "junchan", "honitsu", "chinitsu", "renhou",
    "tenhou", "chiihou", "daisangen", "suuankou", "suuankou tanki", "tsuuiisou", "ryuuiisou",
    "chinroutou", "chuuren poutou", "junsei chuuren poutou", "kokushi musou",
    "kokushi musou 13-wait", "daisuushii", "shousuushii", "suukantsu", "dora", "uradora",
    "akadora",
)))
"""Tenhou's yaku ids (the ``yaku`` and ``yakuman`` attributes of AGARI) and our names."""

DORA_IDS: Final = frozenset({52, 53, 54})
"""Dora, ura dora and red fives: counted, not compared as yaku."""

_JAPANESE: Final = (
    "門前清自摸和", "立直", "一発", "槍槓", "嶺上開花", "海底摸月", "河底撈魚", "平和",
    "断幺九", "一盃口", "自風 東", "自風 南", "自風 西", "自風 北", "場風 東", "場風 南",
    "場風 西", "場風 北", "役牌 白", "役牌 發", "役牌 中", "両立直", "七対子", "混全帯幺九",
    "一気通貫", "三色同順", "三色同刻", "三槓子", "対々和", "三暗刻", "小三元", "混老頭",
    "二盃口", "純全帯幺九", "混一色", "清一色", "人和", "天和", "地和", "大三元", "四暗刻",
    "四暗刻単騎", "字一色", "緑一色", "清老頭", "九蓮宝燈", "純正九蓮宝燈", "国士無双",
    "国士無双１３面", "大四喜", "小四喜", "四槓子", "ドラ", "裏ドラ", "赤ドラ",
)
"""Tenhou JSON's names, by Tenhou id."""

_PACKAGE: Final = (
    "Menzen Tsumo", "Riichi", "Ippatsu", "Chankan", "Rinshan Kaihou", "Haitei Raoyue",
    "Houtei Raoyui", "Pinfu", "Tanyao", "Iipeiko", "Yakuhai (seat wind east)",
    "Yakuhai (seat wind south)", "Yakuhai (seat wind west)", "Yakuhai (seat wind north)",
    "Yakuhai (round wind east)", "Yakuhai (round wind south)", "Yakuhai (round wind west)",
    "Yakuhai (round wind north)", "Yakuhai (haku)", "Yakuhai (hatsu)", "Yakuhai (chun)",
    "Double Riichi", "Chiitoitsu", "Chantai", "Ittsu", "Sanshoku Doujun", "Sanshoku Doukou",
    "San Kantsu", "Toitoi", "San Ankou", "Shou Sangen", "Honroutou", "Ryanpeikou", "Junchan",
    "Honitsu", "Chinitsu", "Renhou", "Tenhou", "Chiihou", "Daisangen", "Suu Ankou",
    "Suu Ankou Tanki", "Tsuu Iisou", "Ryuuiisou", "Chinroutou", "Chuuren Poutou",
    "Daburu Chuuren Poutou", "Kokushi Musou", "Kokushi Musou Juusanmen Matchi",
    "Dai Suushii", "Shousuushii", "Suu Kantsu", "Dora", "Ura Dora", "Aka Dora",
)
"""The ``mahjong`` package's names, by Tenhou id."""

_MJAI: Final[dict[str, int | str]] = {
    "menzenchin_tsumoho": 0, "reach": 1, "ippatsu": 2, "chankan": 3, "rinshankaiho": 4,
    "haiteiraoyue": 5, "hoteiraoyui": 6, "pinfu": 7, "tanyaochu": 8, "ipeko": 9,
    "jikaze": "jikaze", "bakaze": "bakaze", "sangenpai": "sangenpai", "double_reach": 21,
    "chitoitsu": 22, "honchantaiyao": 23, "ikkitsukan": 24, "sanshokudojun": 25,
    "sanshokudoko": 26, "sankantsu": 27, "toitoiho": 28, "sananko": 29, "shosangen": 30,
    "honroto": 31, "ryanpeko": 32, "junchantaiyao": 33, "honiso": 34, "chiniso": 35,
    "tenho": 37, "chiho": 38, "daisangen": 39, "suanko": "suanko", "tsuiso": 42,
    "ryuiso": 43, "chinroto": 44, "churenpoton": "churenpoton", "kokushimuso": "kokushimuso",
    "daisushi": 49, "shosushi": 50, "sukantsu": 51, "dora": 52, "uradora": 53, "akadora": 54,
}
"""The original mjai's names (gimite/mjai): a Tenhou id, or a group it does not split."""

_GROUPS: Final[dict[str, frozenset[int]]] = {
    "jikaze": frozenset(range(10, 14)), "bakaze": frozenset(range(14, 18)),
    "sangenpai": frozenset({18, 19, 20}), "suanko": frozenset({40, 41}),
    "churenpoton": frozenset({45, 46}), "kokushimuso": frozenset({47, 48}),
}

_EXTRA: Final[dict[str, int]] = {
    "国士無双十三面": 48, "国士無双十三面待ち": 48, "ダブル立直": 21, "Renhou (yakuman)": 36,
    "Iipeikou": 9,
}
"""Other spellings met in logs."""


def _keys() -> dict[str, int | str]:
    """Every known name (lower case) to its key; the namings never disagree."""
    out: dict[str, int | str] = {}
    pairs: list[tuple[str, int | str]] = [(n, i) for i, n in YAKU_NAMES.items()]
    pairs += [(n, i) for i, n in enumerate(_JAPANESE)]
    pairs += [(n, i) for i, n in enumerate(_PACKAGE)]
    pairs += list(_MJAI.items()) + list(_EXTRA.items())
    for name, key in pairs:
        folded = name.lower()
        if out.setdefault(folded, key) != key:  # pragma: no cover - checked at import
            raise AssertionError(f"yaku name {name!r} means two yaku")
    return out


_KEYS: Final = _keys()


def yaku_key(name: str) -> int | str | None:
    """The Tenhou id a yaku name stands for, a group's name (``sangenpai``, ``jikaze``,
    ``bakaze``, ``suanko``, ``churenpoton``, ``kokushimuso``), or None if unknown."""
    return _KEYS.get(name.strip().lower())


def _identities(names: Iterable[str], groups: set[str]) -> list[int | str]:
    """The keys of ``names`` (dora counts left out), grouped as ``groups`` say; an unknown
    name stays as it is, so that it never matches."""
    out: list[int | str] = []
    for name in names:
        key = yaku_key(name)
        if key is None:
            out.append(f"?{name}")
            continue
        if isinstance(key, int):
            if key in DORA_IDS:
                continue
            key = next((g for g in groups if key in _GROUPS[g]), key)
        out.append(key)
    return sorted(out, key=str)


def same_yaku(logged: Sequence[Sequence[Any]], engine: Sequence[Sequence[Any]]) -> bool:
    """Whether two ``yakus`` lists ([name, han] pairs) name the same yaku, at the finer
    of their two namings (see the module notes)."""
    groups = {k for k in (yaku_key(str(y[0])) for y in [*logged, *engine])
              if isinstance(k, str)}
    return _identities((str(y[0]) for y in logged), groups) \
        == _identities((str(y[0]) for y in engine), groups)


_FU: Final = re.compile(r"(\d+)符")
_HAN: Final = re.compile(r"\((\d+)飜\)")
_POINTS: Final = re.compile(r"(\d+)(?:-(\d+))?点(∀?)")


def tenhou_detail(texts: Sequence[Any]) -> tuple[int | None, int | None, int | None,
                                                 list[tuple[str, int]] | None]:
    """(fu, fan, points, yaku) of a Tenhou JSON win's detail texts: the value
    (``"30符2飜2000点"``, ``"満貫2000-4000点"`` for a non-dealer's tsumo, ``"30符4飜3900点∀"``
    for the dealer's) then the yaku (``"立直(1飜)"``, ``"四槓子(役満)"``: 13 han a yakuman);
    the points are the hand's whole value (a tsumo's payments added up); None where not
    shown."""
    strings = [t for t in texts if isinstance(t, str)]
    if not strings:
        return None, None, None, None
    fu_match = _FU.search(strings[0])
    fu = int(fu_match.group(1)) if fu_match else None
    points = None
    if m := _POINTS.search(strings[0]):
        first, second, dealer = int(m.group(1)), m.group(2), m.group(3)
        points = 2 * first + int(second) if second else 3 * first if dealer else first
    if len(strings) < 2:
        return fu, None, points, None
    fan = 0
    yaku = []
    for text in strings[1:]:
        name = text.split("(", 1)[0]
        if m := _HAN.search(text):
            han = int(m.group(1))
        elif "役満" in text or "yakuman" in text.lower():
            han = 13
        else:
            han = 0
        fan += han
        yaku.append((name, han))
    return fu, fan, points, yaku
