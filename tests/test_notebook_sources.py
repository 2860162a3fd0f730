"""Each lesson exists twice: ``NN_name.py`` (jupytext percent, edited and reviewed) and ``NN_name.ipynb``
(executed, what learners open and nbval checks). They must hold the same cells."""

from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
EXERCISE_SOURCES = sorted((ROOT / "solutions").glob("*/ex*.py"))


def test_every_lesson_has_both_files():
    assert SOURCES, "no lesson sources found"
    assert {p.stem for p in SOURCES} == {p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}


@pytest.mark.parametrize("source", SOURCES + EXERCISE_SOURCES, ids=lambda p: p.stem)
def test_notebook_cells_match_their_source(source):
    expected = jupytext.read(source)
    actual = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    cells = lambda nb: [(c.cell_type, c.source.strip(), c.metadata.get("nbgrader")) for c in nb.cells]
    assert cells(actual) == cells(expected), f"run `python tools/build_notebooks.py {source.name}`"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_notebooks_were_executed_in_order_without_errors(source):
    nb = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert not any(o.output_type == "error" for c in code for o in c.outputs)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_lessons_are_slideshows(source):
    """RISE needs slide metadata: the title opens a slide, every section starts one, plots are steps."""
    nb = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    kinds = [c.metadata.get("slideshow", {}).get("slide_type") for c in nb.cells]
    assert None not in kinds and kinds[0] == "slide"
    assert sum(k == "slide" for k in kinds) >= 3
    for cell, kind in zip(nb.cells, kinds):
        if cell.cell_type == "code" and "plt.show()" in cell.source:
            assert kind == "fragment"


def test_binder_files():
    post_build = ROOT / "postBuild"
    assert post_build.stat().st_mode & 0o111, "postBuild must be executable"
    assert "pip install --no-deps -e ." in post_build.read_text()
    assert (ROOT / "environment.yml").exists()
