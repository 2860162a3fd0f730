"""Grade sample submissions of exercises 4.1-4.9 through the real nbgrader pipeline.

Each ``tests/grading_cases/<exercise>.py`` defines the answers one exercise must grade fairly::

    CASES = [
        dict(name="numpy_loops", kind="correct", cells=["def f(x):\\n    ...", ...], points=4.0,
             why="numpy and Python loops instead of torch"),
        dict(name="no_sigma_w", kind="wrong", cells=[...], points=1.0, why="forgets sigma_w^2"),
        ...
    ]

``cells`` replaces, in order, the student's solution code cells (the cells that read ``raise
NotImplementedError()`` in ``exercises/``); the written-answer cells stay blank. ``points`` is the exact
autograded score the case must get: the full autograded score (4) for ``kind="correct"``, less for ``"wrong"``
and ``"gaming"`` (an answer tuned to pass the visible test). ``name`` is a lower-case identifier.

How grading runs (as an instructor would, in a temporary copy of the course): ``nbgrader generate_assignment``
once; one nbgrader student per case, who submits only that exercise's notebook; one ``nbgrader autograde`` for
all students, with a per-cell timeout (or ``workers`` such calls at once, each on its share of the students:
``--workers 2`` halves the time on two free cores); the scores are read from the gradebook.

    python tests/grading_harness.py ex4_5_mup [ex4_6_pooling ...]   # table: case -> expected / actual points

The command line grades the notebooks built from ``solutions/chapter4/*.py`` as they are now (no need to run
``make exercises`` first); ``--committed`` grades the committed ``solutions/chapter4/*.ipynb`` instead.
In Python: ``grade("ex4_5_mup", CASES) -> [score, ...]``; ``Course`` gives the steps one by one.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "chapter4"
SOURCES = ROOT / "solutions" / ASSIGNMENT
CASES_DIR = Path(__file__).resolve().parent / "grading_cases"
EXERCISES = sorted(p.stem for p in SOURCES.glob("ex*.py"))
KINDS = ("correct", "wrong", "gaming")
CASE_KEYS = {"name", "kind", "cells", "points", "why"}
TIMEOUT = 60                 # seconds per cell, as in nbgrader_config.py


def _start_nbgrader(*args, cwd, log: Path):
    """Start one nbgrader command in ``cwd``, its output going to ``log``; return ``wait() -> output``."""
    # nbgrader runs `alembic` (database migrations) by name: put this environment's scripts on PATH
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    with open(log, "w") as out:             # a file, not a pipe: parallel commands never block on a full pipe
        process = subprocess.Popen([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)

    def wait() -> str:
        process.wait()
        text = Path(log).read_text(errors="replace")
        if process.returncode != 0:
            raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{text}")
        return text
    return wait


def nbgrader(*args, cwd) -> str:
    """Run one nbgrader command in ``cwd``; fail with its output if it fails."""
    return _start_nbgrader(*args, cwd=cwd, log=Path(cwd) / f".harness-{args[0]}.log")()


def _marked(nb, mark) -> list:
    return [c for c in nb.cells if c.cell_type == "code" and c.get("metadata", {}).get("nbgrader", {}).get(mark)]


def solution_code_cells(nb) -> list:
    """The cells a student fills in: nbgrader solution cells with code."""
    return _marked(nb, "solution")


def graded_code_cells(nb) -> list:
    """The test cells: graded code cells."""
    return _marked(nb, "grade")


def auto_points(nb) -> float:
    """The autograded points of a notebook: the points of its graded code cells."""
    return float(sum(c.metadata["nbgrader"].get("points", 0) for c in graded_code_cells(nb)))


# ---------------------------------------------------------------------------------------------------- cases

def check_cases(exercise: str, cases) -> list[dict]:
    """Validate the case format; return the cases as a list."""
    cases = list(cases)
    names = set()
    for index, case in enumerate(cases):
        where = f"{exercise} case {index} ({case.get('name', '?') if isinstance(case, dict) else case!r})"
        if not isinstance(case, dict) or set(case) != CASE_KEYS:
            raise ValueError(f"{where}: a case is dict(name=..., kind=..., cells=[...], points=..., why=...), "
                             f"got keys {sorted(case) if isinstance(case, dict) else type(case).__name__}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", case["name"]) or case["name"] in names:
            raise ValueError(f"{where}: name must be a unique lower-case identifier")
        names.add(case["name"])
        if case["kind"] not in KINDS:
            raise ValueError(f"{where}: kind must be one of {KINDS}, got {case['kind']!r}")
        if not isinstance(case["cells"], (list, tuple)) or not all(isinstance(c, str) for c in case["cells"]):
            raise ValueError(f"{where}: cells must be a list of code strings")
        if not isinstance(case["points"], (int, float)) or isinstance(case["points"], bool):
            raise ValueError(f"{where}: points must be a number")
        if not isinstance(case["why"], str) or not case["why"].strip():
            raise ValueError(f"{where}: why must say in one line what the case is")
    return cases


def load_cases(exercise: str) -> list[dict]:
    """``CASES`` of ``tests/grading_cases/<exercise>.py``, validated."""
    path = CASES_DIR / f"{exercise}.py"
    spec = importlib.util.spec_from_file_location(f"grading_cases_{exercise}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return check_cases(exercise, module.CASES)


def case_exercises() -> list[str]:
    """The exercises that have a case file."""
    return sorted(p.stem for p in CASES_DIR.glob("ex*.py"))


def student_id(exercise: str, case_name: str) -> str:
    return f"{exercise}__{case_name}"


# ---------------------------------------------------------------------------------------------------- course

@dataclass
class Result:
    """One graded notebook: total autograded score, score of each graded cell, first error line of each."""
    score: float
    cells: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{k}={v:g}" for k, v in self.cells.items()]
        parts += [f"{k}: {v}" for k, v in self.errors.items()]
        return "; ".join(parts)


def build_source(py: Path, target: Path) -> None:
    """The nbgrader source notebook of ``py``, written to ``target`` by ``tools/build_notebooks.py``."""
    spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / "tools" / "build_notebooks.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    copy = target.with_suffix(".py")
    shutil.copy(py, copy)
    build.build_exercise(copy)                 # writes copy.with_suffix(".ipynb") == target
    copy.unlink()


class Course:
    """A temporary copy of the course, the assignment generated: submit notebooks, autograde, read scores."""

    def __init__(self, exercises=None, *, root: Path | None = None, from_sources: bool = False):
        self.exercises = list(exercises or EXERCISES)
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="ntk-grading-"))
        source_dir = self.root / "solutions" / ASSIGNMENT
        source_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "nbgrader_config.py", self.root)
        for name in self.exercises:
            if from_sources:
                build_source(SOURCES / f"{name}.py", source_dir / f"{name}.ipynb")
            else:
                shutil.copy(SOURCES / f"{name}.ipynb", source_dir)
        nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=self.root)
        self.students: dict[str, set] = {}
        self.databases: dict[str, Path] = {}       # students graded outside gradebook.db (workers > 1)

    def source(self, exercise: str):
        return nbformat.read(self.root / "solutions" / ASSIGNMENT / f"{exercise}.ipynb", as_version=4)

    def release(self, exercise: str):
        return nbformat.read(self.root / "exercises" / ASSIGNMENT / f"{exercise}.ipynb", as_version=4)

    def fill(self, exercise: str, cells) -> nbformat.NotebookNode:
        """The released notebook with its solution code cells replaced, in order, by ``cells``."""
        nb = self.release(exercise)
        targets = solution_code_cells(nb)
        if len(cells) != len(targets):
            raise ValueError(f"{exercise}: {len(targets)} solution code cells to fill, got {len(cells)} cells")
        for cell, code in zip(targets, cells):
            cell.source = code
        return nb

    def solution_cells(self, exercise: str) -> list[str]:
        """The instructor's solution code, without the BEGIN/END SOLUTION markers."""
        return [re.sub(r"[ \t]*### (BEGIN|END) SOLUTION[^\n]*\n?", "", c.source)
                for c in solution_code_cells(self.source(exercise))]

    def submit(self, student: str, exercise: str, nb) -> None:
        folder = self.root / "grading" / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / f"{exercise}.ipynb")
        self.students.setdefault(student, set()).add(exercise)

    def autograde(self, timeout: float = TIMEOUT, *, workers: int = 1, main=()) -> float:
        """Autograde every submission; return the wall time in seconds.

        ``workers=1``: one ``nbgrader autograde`` call for all students. ``workers=k``: k calls at once, each
        on its share of the students (its own submitted folder and a copy of the freshly generated gradebook),
        which divides the wall time on a machine with k free cores; the students in ``main`` (those that ``nbgrader
        export`` and ``generate_feedback`` must see) are graded by the call that uses ``gradebook.db``.
        """
        start = time.perf_counter()
        flags = ["autograde", ASSIGNMENT, "--force", f"--ExecutePreprocessor.timeout={timeout}"]
        groups = self._partition(max(1, int(workers)), set(main))
        processes = []
        for k, group in enumerate(groups):
            if k == 0:
                extra = []
            else:
                submitted = f"grading/submitted-w{k}"
                for student in group:
                    target = self.root / submitted / student
                    target.parent.mkdir(parents=True, exist_ok=True)
                    (self.root / "grading" / "submitted" / student).rename(target)
                shutil.copy(self.root / "gradebook.db", self.root / f"gradebook-w{k}.db")
                extra = [f"--CourseDirectory.submitted_directory={submitted}",
                         f"--CourseDirectory.db_url=sqlite:///gradebook-w{k}.db"]
                for student in group:
                    self.databases[student] = self.root / f"gradebook-w{k}.db"
            log = self.root / f".autograde-w{k}.log"
            processes.append(_start_nbgrader(*flags, *extra, cwd=self.root, log=log))
        for wait in processes:
            wait()
        return time.perf_counter() - start

    def _partition(self, workers: int, main: set) -> list[list[str]]:
        """Students in ``workers`` groups of about equal numbers of notebooks; ``main`` in group 0."""
        groups, load = [[] for _ in range(workers)], [0] * workers
        for student in sorted(self.students, key=lambda s: (s not in main, -len(self.students[s]), s)):
            k = 0 if student in main else min(range(workers), key=lambda i: (load[i], i))
            groups[k].append(student)
            load[k] += len(self.students[student])
        return [g for k, g in enumerate(groups) if g or k == 0]

    def autograded(self, student: str, exercise: str):
        return nbformat.read(self.root / "grading" / "autograded" / student / ASSIGNMENT / f"{exercise}.ipynb",
                             as_version=4)

    def result(self, student: str, exercise: str) -> Result:
        from nbgrader.api import Gradebook
        with Gradebook(f"sqlite:///{self.databases.get(student, self.root / 'gradebook.db')}") as gb:
            notebook = gb.find_submission_notebook(exercise, ASSIGNMENT, student)
            cells = {g.name: float(g.auto_score or 0) for g in notebook.grades if g.cell.cell_type == "code"}
            score = float(notebook.code_score)
        errors = {}
        path = self.root / "grading" / "autograded" / student / ASSIGNMENT / f"{exercise}.ipynb"
        if path.exists():
            for cell in graded_code_cells(self.autograded(student, exercise)):
                for output in cell.get("outputs", []):
                    if output.output_type == "error":
                        line = f"{output.ename}: {output.evalue}".splitlines()[0]
                        errors[cell.metadata["nbgrader"]["grade_id"]] = line[:160]
                        break
        else:
            errors["notebook"] = "not autograded"
        return Result(score, cells, errors)


# ---------------------------------------------------------------------------------------------------- grading

def grade_cases(cases_by_exercise: dict, *, timeout: float = TIMEOUT, from_sources: bool = False,
                root: Path | None = None, workers: int = 1) -> dict:
    """``{exercise: [Result per case]}`` for ``{exercise: cases}``, in one generate and one autograde."""
    cases_by_exercise = {ex: check_cases(ex, cases) for ex, cases in cases_by_exercise.items()}
    course = Course(cases_by_exercise, root=root, from_sources=from_sources)
    for exercise, cases in cases_by_exercise.items():
        for case in cases:
            course.submit(student_id(exercise, case["name"]), exercise, course.fill(exercise, case["cells"]))
    course.autograde(timeout, workers=workers)
    return {ex: [course.result(student_id(ex, c["name"]), ex) for c in cases]
            for ex, cases in cases_by_exercise.items()}


def grade(exercise: str, cases, *, timeout: float = TIMEOUT, from_sources: bool = False,
          workers: int = 1) -> list[float]:
    """The autograded score of each case of one exercise (see the module docstring for the case format)."""
    results = grade_cases({exercise: cases}, timeout=timeout, from_sources=from_sources, workers=workers)
    return [r.score for r in results[exercise]]


def table(exercise: str, cases, results) -> tuple[str, bool]:
    """A printable table case -> expected / actual; and whether every case got its expected score."""
    lines = [f"{exercise}", f"  {'case':<26} {'kind':<8} {'expected':>8} {'actual':>7}  cells / first error"]
    ok = True
    for case, result in zip(cases, results):
        good = abs(result.score - case["points"]) < 1e-9
        ok &= good
        lines.append(f"  {case['name']:<26} {case['kind']:<8} {case['points']:>8g} {result.score:>7g}  "
                     f"{'' if good else 'MISMATCH  '}{result.summary()}")
    return "\n".join(lines), ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exercises", nargs="*", help="default: every exercise with a case file")
    parser.add_argument("--committed", action="store_true",
                        help="grade the committed solutions/chapter4/*.ipynb, not notebooks built from the .py")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per cell (default %(default)s)")
    parser.add_argument("--workers", type=int, default=1,
                        help="parallel nbgrader autograde calls (default 1: one call for all students)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary course and print its path")
    args = parser.parse_args(argv)
    exercises = args.exercises or case_exercises()
    unknown = [e for e in exercises if e not in EXERCISES]
    if unknown:
        parser.error(f"unknown exercise(s) {unknown}; known: {EXERCISES}")
    cases = {ex: load_cases(ex) for ex in exercises}
    root = Path(tempfile.mkdtemp(prefix="ntk-grading-"))
    start = time.perf_counter()
    try:
        results = grade_cases(cases, timeout=args.timeout, from_sources=not args.committed, root=root,
                              workers=args.workers)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    all_ok = True
    for exercise in exercises:
        text, ok = table(exercise, cases[exercise], results[exercise])
        all_ok &= ok
        print(text)
    print(f"{'all cases got their expected score' if all_ok else 'SOME CASES DID NOT'}; "
          f"{time.perf_counter() - start:.0f} s" + (f"; course kept in {root}" if args.keep else ""))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
