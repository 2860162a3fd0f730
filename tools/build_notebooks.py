"""Build the lesson and exercise notebooks from their jupytext sources.

    python tools/build_notebooks.py [notebooks/01_ntk_basics.py ...]

Each ``notebooks/NN_name.py`` (percent format, the file to edit and review) becomes
``notebooks/NN_name.ipynb`` with fresh outputs; nbval later re-runs the notebook and compares
against those outputs. Prints the Run-All time of each notebook.

Each ``solutions/chapter4/ex*.py`` becomes ``solutions/chapter4/ex*.ipynb`` WITHOUT outputs (the
nbgrader source: cell metadata carry the grading marks); then run
``nbgrader generate_assignment chapter4 --force`` to refresh ``exercises/``.
"""

from __future__ import annotations

import sys
import time
import tomllib
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))     # its sibling tools, also when loaded by file path
from install_links import INSTALL_CHECK  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
#: The lessons' pairing settings, as JupyterLab reads them (notebooks/jupytext.toml): stored in each lesson too, so
#: that opening and saving a lesson in JupyterLab rewrites neither file.
JUPYTEXT = tomllib.loads((ROOT / "notebooks" / "jupytext.toml").read_text())


#: The tag of a lesson's verification cells (one-line checks, asserts): JupyterLab shows them collapsed, nbval runs
#: them, the slides skip them and the site leaves them out (CONTRIBUTING.md, "A lesson").
CHECK_TAG = "check"


def is_check(cell) -> bool:
    return CHECK_TAG in cell.metadata.get("tags", [])


def collapse_checks(nb) -> None:
    """A check cell starts collapsed in JupyterLab, its code and its output (``jupyter.source_hidden`` and
    ``outputs_hidden``; one click shows each): a check's ✓ line states the measured result, so an open output would
    answer the question the learner is asked just above it. ``collapsed`` is nbformat's older name for a hidden
    output; JupyterLab writes it beside ``outputs_hidden`` when it saves, so it is written here too and saving a
    lesson in JupyterLab changes no byte."""
    for cell in nb.cells:
        if cell.cell_type == "code" and is_check(cell):
            cell.metadata["collapsed"] = True
            cell.metadata.setdefault("jupyter", {}).update(source_hidden=True, outputs_hidden=True)


def add_slide_metadata(nb) -> None:
    """RISE slides: the title and every "##" section start a slide, "###" a sub-slide, plots appear as
    fragments (one step each), the install cell for Colab and the check cells are skipped, everything else joins
    the current slide."""
    for index, cell in enumerate(nb.cells):
        text = cell.source.lstrip()
        if cell.cell_type == "code" and (INSTALL_CHECK in text or is_check(cell)):
            kind = "skip"
        elif cell.cell_type == "markdown" and (index == 0 or text.startswith("## ")):
            kind = "slide"
        elif cell.cell_type == "markdown" and text.startswith("### "):
            kind = "subslide"
        elif cell.cell_type == "code" and ("plt.show()" in text or "live_figure(" in text):
            kind = "fragment"
        else:
            kind = "-"
        cell.metadata["slideshow"] = {"slide_type": kind}


def stable_ids(nb) -> None:
    """Cell ids from the nbgrader grade_id or the position, so that rebuilding changes nothing."""
    for index, cell in enumerate(nb.cells):
        cell.id = cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell-{index:03d}"


def widget_numbers_as_javascript_writes_them(nb) -> None:
    """Saved widget state holds Python floats such as 3.0 (a progress bar's max); JupyterLab writes whole
    numbers as 3 when it saves the notebook. Store them its way, so that saving a lesson rewrites nothing."""

    def normalize(value):
        if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
            return int(value)
        if isinstance(value, dict):
            return {key: normalize(item) for key, item in value.items()}
        if isinstance(value, list):
            return [normalize(item) for item in value]
        return value

    if "widgets" in nb.metadata:
        nb.metadata["widgets"] = nbformat.from_dict(normalize(nb.metadata["widgets"]))


def build(source: Path) -> float:
    nb = jupytext.read(source)
    stable_ids(nb)
    add_slide_metadata(nb)
    collapse_checks(nb)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["jupytext"] = dict(JUPYTEXT)
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(source.parent)}}).execute()
    elapsed = time.perf_counter() - start
    widget_numbers_as_javascript_writes_them(nb)
    nbformat.write(nb, source.with_suffix(".ipynb"))
    return elapsed


def build_exercise(source: Path) -> None:
    nb = jupytext.read(source)
    stable_ids(nb)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata.pop("jupytext", None)   # no pairing: the released copy must not write a .py next to a student's work
    nbformat.write(nb, source.with_suffix(".ipynb"))


def main(argv: list[str]) -> None:
    sources = [Path(a).resolve() for a in argv] or (
        sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.py")) + sorted((ROOT / "solutions").glob("*/ex*.py")))
    for source in sources:
        if source.parent.parent.name == "solutions":
            build_exercise(source)
            print(f"{source.name}: nbgrader source written", flush=True)
        else:
            print(f"{source.name}: Run All in {build(source):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
