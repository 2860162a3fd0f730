"""Run-All time of every lesson, alone and with a background load (not a test; run on demand).

    python benchmarks/bench_lessons.py [--load] [NN_name ...]

Each lesson runs top to bottom in a fresh kernel of this environment (the one `make lab` uses, with
``OMP_WAIT_POLICY=PASSIVE``), as a learner's Run All does. ``--load`` first starts one process that keeps one
core busy (a pure-Python loop), as on a shared JupyterHub node or a laptop with other programs open, and stops
it at the end. The README's lesson times come from this script. Prints one line per lesson and a total.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def _burn() -> None:
    while True:
        pass


def run_all(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return time.perf_counter() - start


def main(argv: list[str]) -> None:
    load = "--load" in argv
    names = [a for a in argv if not a.startswith("--")]
    lessons = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    if names:
        lessons = [p for p in lessons if any(p.stem.startswith(n) for n in names)]
    burner = None
    if load:
        burner = multiprocessing.Process(target=_burn, daemon=True)
        burner.start()
    try:
        total = 0.0
        print(f"{'lesson':<40} Run All ({'one core busy' if load else 'machine otherwise idle'})")
        for path in lessons:
            seconds = run_all(path)
            total += seconds
            print(f"{path.stem:<40} {seconds:6.1f} s", flush=True)
        print(f"{'total':<40} {total:6.1f} s")
    finally:
        if burner is not None:
            burner.terminate()


if __name__ == "__main__":
    main(sys.argv[1:])
