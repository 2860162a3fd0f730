"""The Chinese edition (notebooks/zh/): the same lessons, code identical cell by cell, markdown translated.

Its notebooks are built from the executed English ones (tools/build_zh.py), so nbval runs the code once; these
tests make sure the two editions cannot drift apart."""

import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from conftest import load_tool

ROOT = Path(__file__).resolve().parents[1]
ENGLISH = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
CHINESE = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.py"))
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_lesson_has_a_chinese_edition():
    assert [p.name for p in CHINESE] == [p.name for p in ENGLISH]


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_code_cells_are_the_english_lessons_cell_by_cell(source):
    builder = load_tool("build_zh")
    problems = builder.differences(jupytext.read(source), jupytext.read(ROOT / "notebooks" / source.name))
    assert not problems, f"{source.name}: {problems}"


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_the_notebook_is_the_executed_english_one_with_chinese_markdown(source):
    """Code, outputs and cell metadata from the English notebook, markdown from the Chinese source."""
    zh = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    en = nbformat.read((ROOT / "notebooks" / source.name).with_suffix(".ipynb"), as_version=4)
    text = jupytext.read(source)
    assert len(zh.cells) == len(en.cells) == len(text.cells)
    for index, (a, b, t) in enumerate(zip(zh.cells, en.cells, text.cells)):
        if a.cell_type == "code":
            assert (a.source, a.outputs, a.metadata) == (b.source, b.outputs, b.metadata), \
                f"{source.stem} cell {index}: rebuild with `python tools/build_zh.py`"
        else:
            assert a.source == t.source, f"{source.stem} cell {index}: rebuild with `python tools/build_zh.py`"
    assert zh.metadata.get("widgets") == en.metadata.get("widgets")


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_markdown_is_translated_and_its_links_resolve(source):
    nb = jupytext.read(source)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"\$[^$]*\$|`[^`]*`|\([^)]*\)", "", cell.source)
        if len(prose.strip()) > 40:
            assert CJK.search(prose), f"{source.stem} cell {index} is not translated: {cell.source[:80]!r}"
        for target in re.findall(r"\]\(([^)\s]+)\)", cell.source):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path, _, anchor = target.partition("#")
            file = (source.parent / path).resolve()
            assert file.exists(), f"{source.stem} cell {index}: link to {target}, which does not exist"
            if anchor and file.name == "ERRATA.md":
                assert f'id="{anchor}"' in file.read_text(encoding="utf-8"), f"ERRATA.md has no anchor {anchor}"


def formulas(text: str) -> set[str]:
    """Display formulas $$...$$, then inline ones $...$ in what is left."""
    display = re.findall(r"\$\$.+?\$\$", text, re.S)
    rest = re.sub(r"\$\$.+?\$\$", " ", text, flags=re.S)
    return set(display) | set(re.findall(r"\$[^$]+\$", rest))


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_section_numbers_and_formulas_are_kept(source):
    """Readers of the textbook follow its section numbers; formulas are not translated."""
    en, zh = jupytext.read(ROOT / "notebooks" / source.name), jupytext.read(source)
    for index, (a, b) in enumerate(zip(en.cells, zh.cells)):
        if a.cell_type != "markdown":
            continue
        sections = lambda text: re.findall(r"^#+ .*?(\d+\.\d+(?:\.\d+)?)", text, re.M)
        assert sections(a.source) == sections(b.source), f"{source.stem} cell {index}: section numbers differ"
        missing = formulas(a.source) - formulas(b.source)
        assert not missing, f"{source.stem} cell {index}: formulas missing from the translation: {sorted(missing)[:3]}"
