"""Each lesson exists twice: ``NN_name.py`` (jupytext percent, edited and reviewed) and ``NN_name.ipynb``
(executed, what learners open and nbval checks). They must hold the same cells."""

import ast
import json
import re
import subprocess
from pathlib import Path

import jupytext
import nbformat
import pytest
from conftest import load_tool

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]*_*.py"))
EXERCISE_SOURCES = sorted((ROOT / "solutions").glob("*/ex*.py"))


def test_every_lesson_has_both_files():
    assert SOURCES, "no lesson sources found"
    assert {p.stem for p in SOURCES} == {p.stem for p in NOTEBOOKS.glob("[0-9][0-9]*_*.ipynb")}


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


@pytest.mark.parametrize("source", SOURCES + sorted((NOTEBOOKS / "zh").glob("[0-9][0-9]*_*.py")),
                         ids=lambda p: p.parent.name + "/" + p.stem)
def test_lessons_print_no_warning(source):
    """Nothing on stderr in a saved lesson: a warning is noise for the learner, and its file path (this machine's)
    makes nbval fail on every other machine."""
    nb = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    noisy = [(index, o.text[:120]) for index, c in enumerate(nb.cells) if c.cell_type == "code"
             for o in c.outputs if o.get("name") == "stderr"]
    assert not noisy, f"{source.name}: cells that print to stderr (index, text): {noisy}"


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


def _code_cells(path):
    return [c.source for c in jupytext.read(path).cells if c.cell_type == "code"]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_lesson_assert_says_what_failed(source):
    """A failing claim must tell the learner what was expected and what was measured, not a bare AssertionError."""
    bare = [ast.unparse(node.test)[:90] for code in _code_cells(source) for node in ast.walk(ast.parse(code))
            if isinstance(node, ast.Assert) and node.msg is None]
    assert not bare, f"{source.name}: asserts without a message (give expected and measured values): {bare}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_lesson_code_fits_the_cell(source):
    """Lines longer than 110 characters run past the cell edge in JupyterLab and on slides."""
    long = [line for code in _code_cells(source) for line in code.splitlines() if len(line) > 110]
    assert not long, f"{source.name}: {len(long)} code lines over 110 characters, e.g. {long[0]!r}"


def test_no_reference_to_documents_users_do_not_have():
    """Lessons, exercises, the package and the tests cite papers or ERRATA.md, never the internal review."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    cited = [name for name in tracked if Path(name).suffix in {".py", ".ipynb", ".md", ".cfg", ".toml", ".yml"}
             and re.search(r"\bAUDIT\b", (ROOT / name).read_text(encoding="utf-8"))]
    assert not cited, f"files citing the internal audit (cite a paper or ERRATA.md instead): {cited}"


def test_errata_links_point_to_entries():
    """Every ``ERRATA.md#id`` link in a lesson, exercise or README names an entry that exists on the page."""
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', (ROOT / "ERRATA.md").read_text(encoding="utf-8")))
    files = SOURCES + EXERCISE_SOURCES + [ROOT / "README.md"]
    links = {(path.name, anchor) for path in files
             for anchor in re.findall(r"ERRATA\.md#([A-Za-z0-9-]+)", path.read_text(encoding="utf-8"))}
    broken = sorted(link for link in links if link[1] not in anchors)
    assert not broken, f"links to missing errata entries: {broken}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_saved_widget_state_is_written_as_jupyterlab_writes_it(source):
    """JupyterLab saves whole numbers as 3, not 3.0: a lesson whose widget state (a progress bar's max, a slider's
    value) holds 3.0 is rewritten by the first Ctrl+S (tools/build_notebooks.py stores them JupyterLab's way)."""
    state = json.loads(source.with_suffix(".ipynb").read_text(encoding="utf-8"))["metadata"].get("widgets", {})

    def floats(value, path=""):
        if isinstance(value, float) and value.is_integer():
            yield path
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from floats(item, f"{path}/{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield from floats(item, f"{path}/{index}")

    whole = list(floats(state))
    assert not whole, f"{source.stem}: whole numbers stored as floats at {whole[:3]}: rebuild with build_notebooks.py"


def test_check_cells_start_collapsed_and_are_skipped_by_the_slides():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"),
                                         nbformat.v4.new_code_cell("nh.check_that('x', True)",
                                                                   metadata={"tags": ["check"]}),
                                         nbformat.v4.new_code_cell("plt.show()")])
    load_tool("build_notebooks").add_slide_metadata(nb)
    load_tool("build_notebooks").collapse_checks(nb)
    assert nb.cells[1].metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}, \
        f"a check cell's code and output start collapsed; its metadata: {nb.cells[1].metadata.get('jupyter')}"
    assert nb.cells[1].metadata["collapsed"] is True, "nbformat's name for a hidden output, as JupyterLab saves it"
    assert nb.cells[1].metadata["slideshow"]["slide_type"] == "skip"
    assert "jupyter" not in nb.cells[2].metadata, "a cell not tagged check stays open"


@pytest.mark.parametrize("source", SOURCES + sorted((NOTEBOOKS / "zh").glob("[0-9][0-9]*_*.py")), ids=lambda p: p.parent.name + "/" + p.stem)
def test_every_executed_check_cell_starts_collapsed(source):
    """The executed lesson a learner opens (not only the build function): every check cell hides code and output."""
    nb = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    open_checks = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
                   and "check" in cell.metadata.get("tags", [])
                   and (cell.metadata.get("jupyter", {}) != {"source_hidden": True, "outputs_hidden": True}
                        or cell.metadata.get("collapsed") is not True)]
    assert not open_checks, f"{source.stem}: check cells {open_checks} open in JupyterLab; rebuild the lesson " \
                            f"(tools/build_notebooks.py) so that code and output start collapsed"
