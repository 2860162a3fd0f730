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
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def build(source: Path) -> float:
    nb = jupytext.read(source)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["jupytext"] = {"formats": "ipynb,py:percent"}
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(source.parent)}}).execute()
    elapsed = time.perf_counter() - start
    nbformat.write(nb, source.with_suffix(".ipynb"))
    return elapsed


def build_exercise(source: Path) -> None:
    nb = jupytext.read(source)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["jupytext"] = {"formats": "ipynb,py:percent"}
    nbformat.write(nb, source.with_suffix(".ipynb"))


def main(argv: list[str]) -> None:
    sources = [Path(a).resolve() for a in argv] or (
        sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")) + sorted((ROOT / "solutions").glob("*/ex*.py")))
    for source in sources:
        if source.parent.parent.name == "solutions":
            build_exercise(source)
            print(f"{source.name}: nbgrader source written", flush=True)
        else:
            print(f"{source.name}: Run All in {build(source):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
