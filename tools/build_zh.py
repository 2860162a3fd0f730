"""Build and execute the Chinese lessons ``notebooks/zh/NN_name.ipynb`` from the English ones and their catalogs.

    python tools/build_zh.py [notebooks/zh/02_mlp_recursion.py ...]
    (``make notebooks`` runs it after building the English lessons)

A Chinese lesson's source ``notebooks/zh/NN_name.py`` is first generated (``tools/zh_catalog.py``) from
``notebooks/NN_name.py`` and the catalog ``notebooks/locale/zh/NN_name.po``: the same cells, the same code byte
for byte, each markdown cell translated. The build stops, naming the English text, where a translation is
missing or fuzzy (the English changed after it was translated). The lesson is then executed like an English
lesson (``build_notebooks.build``: the same kernel, environment, slide metadata and saved widget state), in its
own folder ``notebooks/zh``, so that
``ntk_helpers`` draws its plots and sliders in Chinese (``ntk_helpers/course/language.py``). The code is the
same, so every printed number is the English lesson's (``tests/test_zh_edition.py`` checks both).

The build fails when a lesson draws a label that holds English words (one not marked ``nh._()``, or marked but
not translated in the code catalog), or when it could not run in Chinese at all (the font package ``mplfonts``
missing): the kernel, watched (``ntk_helpers/course/language.py``), lists such labels in the file named by
``NTK_LABELS_REPORT``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parents[1]
ZH = ROOT / "notebooks" / "zh"


def _english_builder():
    """``tools/build_notebooks.py`` as a module: one way to execute a lesson, for both languages."""
    spec = importlib.util.spec_from_file_location("build_notebooks", Path(__file__).with_name("build_notebooks.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def read_report(path: Path) -> tuple[bool, list[str]]:
    """(whether the kernel drew in Chinese, the labels it could not translate) from an ``NTK_LABELS_REPORT``."""
    if not path.exists():
        return False, []
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    chinese = any(record.get("language") == "zh" for record in records)
    return chinese, sorted({record["untranslated"] for record in records if "untranslated" in record})


def _catalogs():
    spec = importlib.util.spec_from_file_location("zh_catalog", Path(__file__).with_name("zh_catalog.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def generate(source: Path, root: Path = ROOT) -> None:
    """Write the Chinese source from the English lesson and its catalog, or stop naming what lacks a translation."""
    catalogs = _catalogs()
    try:
        catalogs.generate(source.stem, root)
    except catalogs.MissingTranslation as gap:
        raise SystemExit(f"notebooks/zh/{source.name}: English text without a current translation in "
                         f"notebooks/locale/zh/{source.stem}.po (translate it, clear 'fuzzy'):\n"
                         + "\n".join(gap.problems)) from None


def build(source: Path) -> float:
    """Generate and execute one Chinese lesson and write its notebook; returns its Run-All time in seconds."""
    generate(source)
    english = ROOT / "notebooks" / source.name
    problems = differences(jupytext.read(source), jupytext.read(english))
    if problems:
        raise SystemExit(f"{source.relative_to(ROOT)} is not a translation of {english.name}: " + "; ".join(problems))
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "labels.jsonl"
        saved = {key: os.environ.get(key) for key in ("NTK_LESSON_LANGUAGE", "NTK_LABELS_REPORT")}
        os.environ.update(NTK_LESSON_LANGUAGE="zh", NTK_LABELS_REPORT=str(report))   # the kernel inherits them
        try:
            elapsed = _english_builder().build(source)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        chinese, untranslated = read_report(report)
    name = source.relative_to(ROOT)
    if not chinese:
        raise SystemExit(f"{name}: the lesson ran without Chinese labels (is the font package mplfonts installed? "
                         "`make setup` installs it)")
    if untranslated:
        raise SystemExit(f"{name}: text drawn in English; mark it nh._(\"...\") where the code draws it, then "
                         "`make zh-catalog` and translate it in ntk_helpers/course/locale/zh/ntk_helpers.po:\n"
                         + "\n".join(map(repr, untranslated)))
    target = source.with_suffix(".ipynb")
    nb = nbformat.read(target, as_version=4)
    nb.metadata["language"] = "zh"
    nbformat.write(nb, target)
    return elapsed


def main(argv: list[str]) -> None:
    sources = [Path(a).resolve() for a in argv] or [ZH / f"{name}.py" for name in _catalogs().lessons()]
    for source in sources:
        print(f"zh/{source.name}: Run All in {build(source):.1f} s, every label in Chinese", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
