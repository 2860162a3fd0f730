"""Build the Chinese lessons ``notebooks/zh/NN_name.ipynb`` from their sources and the executed English lessons.

    python tools/build_zh.py            (``make notebooks`` runs it after building the English lessons)

A Chinese lesson ``notebooks/zh/NN_name.py`` has exactly the cells of ``notebooks/NN_name.py``: the same code,
byte for byte, and translated markdown. So its notebook needs no run of its own: it is the executed English
notebook (code, outputs, widget state, slide metadata) with the markdown cells taken from the Chinese source.
The code is run once, nbval checks it once, and the two editions cannot drift (``tests/test_zh_edition.py``).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parents[1]
ZH = ROOT / "notebooks" / "zh"


def differences(zh, en) -> list[str]:
    """Why a Chinese source is not the English lesson's twin (empty when it is)."""
    if len(zh.cells) != len(en.cells):
        return [f"{len(zh.cells)} cells, the English lesson has {len(en.cells)}"]
    problems = []
    for index, (a, b) in enumerate(zip(zh.cells, en.cells)):
        if a.cell_type != b.cell_type:
            problems.append(f"cell {index}: {a.cell_type}, in English {b.cell_type}")
        elif a.cell_type == "code" and (a.source != b.source or a.metadata != b.metadata):
            problems.append(f"cell {index}: the code differs from the English lesson's")
    return problems


def build(source: Path) -> Path:
    english = ROOT / "notebooks" / source.name
    zh = jupytext.read(source)
    problems = differences(zh, jupytext.read(english))
    if problems:
        raise SystemExit(f"{source.relative_to(ROOT)} is not a translation of {english.name}: " + "; ".join(problems))
    nb = copy.deepcopy(nbformat.read(english.with_suffix(".ipynb"), as_version=4))
    for cell, translated in zip(nb.cells, zh.cells):
        if cell.cell_type == "markdown":
            cell.source = translated.source
    nb.metadata["language"] = "zh"
    target = source.with_suffix(".ipynb")
    nbformat.write(nb, target)
    return target


def main(argv: list[str]) -> None:
    sources = [Path(a).resolve() for a in argv] or sorted(ZH.glob("[0-9][0-9]_*.py"))
    for source in sources:
        print(f"{build(source).relative_to(ROOT)}: built from {source.name} and ../{source.stem}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1:])
