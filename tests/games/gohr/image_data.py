"""Test data for image-and-property-based objects, written by the tests themselves: tiny PNG
images with a ``properties.csv``, rules on their properties, predefined image boards, a
condition file and a trial list using them all."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

PROPERTIES = """\
#image,name,species,color,color_indices
cat.png,cat,cat,red,1
dog.png,dog,dog,blue,2
owl.png,owl,owl,,3
"""
"""Three animals; the owl has no color."""

RULES = ("(color_indices:1, bucket:[0]) (species:dog, bucket:[1]) "
         "(color_indices:[3..3], bucket:[2])\n")
"""A cat goes to bucket 0, a dog to 1, an owl to 2."""

COMPOSITE_RULES = "(d_order:1, bucket:[1]) (d_order:[0,-1,2], bucket:[3])\n"
"""Growing composite objects go to bucket 1, the others to bucket 3."""

BOARD = ('{"id":"zoo-1","value":[{"id":0,"image":"animals/cat.png","x":1,"y":1},'
         '{"id":1,"image":"animals/owl.png","x":6,"y":6}]}')
"""A predefined board of image pieces."""

TOP_LEFT_QUARTER = ("(pos:[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,22,23,24,28,29,30,"
                    "34,35,36])\n")
"""A position-only condition: every cell outside the top-left quarter (a training board
has all its pieces in that quarter, a test board one piece or more outside it)."""

TRIAL_LIST = """\
rule_id,min_objects,max_objects,min_shapes,max_shapes,min_colors,max_colors,images,initial_boards,initial_boards_order,condTrain,condTest
animals,3,3,,,,,animals/*.png,,,,
animals,,,,,,,animals/*,zoo,alpha,,
composite,4,4,,,,,/composite/h/d=???/gq/rq/bq,,,,
animals,4,4,1,2,1,2,,,random,,
animals,9,9,4,4,4,4,,,,top-left-quarter,
animals,5,5,1,1,1,1,,,,,no-such-condition
"""
"""Row 1: random image boards; 2: predefined image boards; 3: composite objects; 4: an
``initial_boards_order`` without ``initial_boards``; 5: a ``condTrain`` column; 6: a
``condTest`` naming a missing file."""


def png(width: int = 1, height: int = 1) -> bytes:
    """A valid grey PNG image."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def make_image_data(root: Path) -> Path:
    """Write the data folder under ``root`` (rules/, shapes/, boards/, cond/,
    trial-lists/); returns ``root``."""
    animals = root / "shapes" / "animals"
    animals.mkdir(parents=True)
    for name in ("cat", "dog", "owl"):
        (animals / f"{name}.png").write_bytes(png())
    (animals / "properties.csv").write_text(PROPERTIES, encoding="utf-8")
    (root / "rules").mkdir()
    (root / "rules" / "animals.txt").write_text(RULES, encoding="utf-8")
    (root / "rules" / "composite.txt").write_text(COMPOSITE_RULES, encoding="utf-8")
    (root / "boards" / "zoo").mkdir(parents=True)
    (root / "boards" / "zoo" / "one.json").write_text(BOARD, encoding="utf-8")
    (root / "cond").mkdir()
    (root / "cond" / "top-left-quarter.txt").write_text(TOP_LEFT_QUARTER, encoding="utf-8")
    (root / "trial-lists").mkdir()
    (root / "trial-lists" / "zoo.csv").write_text(TRIAL_LIST, encoding="utf-8")
    return root
