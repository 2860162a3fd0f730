"""Write a student copy of the course: lessons, released exercises and the package, without solutions.

    python tools/make_student_copy.py [folder, default build/student]      (or: make student [DEST=folder])

The copy has
- notebooks/: the executed lessons (.ipynb) and their jupytext sources (.py), and notebooks/zh/ in Chinese;
- exercises/: the released exercises 4.1-4.9 (nbgrader's student versions);
- ntk_helpers/, pyproject.toml, environment.yml, postBuild: install and Binder work as in the course repository;
- README.md, ERRATA.md;
- tests/: the package's unit tests (every test file that needs no solutions, grading set-up, browser or course
  tooling) and the nbval settings, so ``make test`` there re-runs them and every lesson against its saved outputs;
- a student Makefile: ``make lab``, ``make test``, ``make validate EX=ex4_1_sigma_dot`` (nbgrader validate),
  ``make dashboard LESSON=...``, ``make clean``; its set-up rules are copied from the course Makefile.

It has no solutions/, no hidden tests or rubrics, no grading harness or nbgrader course configuration, no
benchmarks or course tools (its tools/ holds only find_python.sh, with which its Makefile chooses a Python), and
no .git. The folder is replaced if it is an earlier student copy; any other
non-empty folder is refused.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = ".ntk-student-copy"            # written into every copy: lets a rerun replace it safely
TOP_FILES = ["README.md", "ERRATA.md", "pyproject.toml", "environment.yml", "postBuild", ".gitignore"]
# A test file that mentions any of these needs something a student copy does not have.
COURSE_ONLY = re.compile(r"solutions|grading|nbgrader|tools/|\.ci/|build_site|make_student_copy|playwright|"
                         r"chromium|pyproject2conda|\bp2c\b|benchmarks")
# Text that must never reach students (nbgrader markers in solution sources, mark schemes).
SOLUTION_MARKERS = ["BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "HIDDEN TESTS", "Model answer",
                    "Rubric"]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", ".pytest_cache")

STUDENT_MAKEFILE = """\
# ntk-notebooks, student copy (written by `make student` in the course repository; no solutions in it).
#   make lab                        set up .venv/ (needs only Python 3.11, 3.12 or 3.13 and pip) and open the lessons
#   make validate EX=ex4_1_sigma_dot  run an exercise top to bottom with its visible tests before you hand it in
#   make test                       the package's unit tests, then every lesson re-run against its saved outputs
#   make dashboard LESSON=04_resnet one lesson's sliders and plots without code (Voila, http://127.0.0.1:8866)

{variables}

.PHONY: setup lab test validate dashboard clean
LESSON ?= 02_mlp_recursion
EX ?= ex4_1_sigma_dot

{setup}

{stamp}

{lab}

test: setup                 ## the package's unit tests, then every lesson re-run and compared with its saved outputs
\t$(BIN)/python -m pytest tests notebooks --ignore=notebooks/zh $(NBVAL)

validate: setup             ## nbgrader validate: make validate EX=ex4_3_resnet_depth (file in exercises/chapter4/)
\tPATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader validate exercises/chapter4/$(EX).ipynb

{dashboard}

{clean}
"""


def makefile_rule(text: str, target: str) -> str:
    """One rule of a Makefile: the ``target:`` line and its tab-indented recipe lines."""
    match = re.search(rf"^{re.escape(target)}:[^\n]*\n(?:\t[^\n]*\n)*", text, flags=re.M)
    if not match:
        raise RuntimeError(f"the course Makefile has no rule `{target}:` (tools/make_student_copy.py copies it)")
    return match.group(0).rstrip("\n")


def makefile_variable(text: str, name: str) -> str:
    """One variable definition, with its backslash-continued lines."""
    match = re.search(rf"^{name}\s*[:?+]?=[^\n]*(?:\\\n[^\n]*)*", text, flags=re.M)
    if not match:
        raise RuntimeError(f"the course Makefile does not define {name}")
    return match.group(0)


def student_makefile(course_makefile: str) -> str:
    variables = "\n".join(makefile_variable(course_makefile, v)
                          for v in ("TESTED_PYTHONS", "PYTHON", "VENV", "BIN", "STAMP", "NBVAL"))
    rules = {name: makefile_rule(course_makefile, target) for name, target in
             [("setup", "setup"), ("stamp", "$(STAMP)"), ("lab", "lab"), ("dashboard", "dashboard"),
              ("clean", "clean")]}
    return STUDENT_MAKEFILE.format(variables=variables, **rules)


def student_tests() -> list[Path]:
    """The test files a student copy keeps: those that need nothing but the package, lessons and ERRATA.md."""
    tests = ROOT / "tests"
    keep = [tests / "conftest.py", tests / "oracles.py", tests / "nbval_sanitize.cfg"]
    keep += [p for p in sorted(tests.glob("test_*.py")) if not COURSE_ONLY.search(p.read_text(encoding="utf-8"))]
    return [p for p in keep if p.exists()]


def _source_version() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _prepare(dest: Path) -> None:
    if dest == ROOT or dest in ROOT.parents:
        raise SystemExit(f"refusing to write a student copy over the course itself: {dest}")
    if dest.exists():
        if not dest.is_dir():
            raise SystemExit(f"{dest} exists and is not a folder")
        if any(dest.iterdir()) and not (dest / MARKER).exists():
            raise SystemExit(f"{dest} is not empty and is not an earlier student copy: choose another folder")
        shutil.rmtree(dest)
    dest.mkdir(parents=True)


def make_student_copy(dest: Path) -> Path:
    dest = Path(dest).resolve()
    _prepare(dest)
    (dest / "notebooks").mkdir()
    for pattern in ("[0-9][0-9]*_*.ipynb", "[0-9][0-9]*_*.py", "jupytext.toml"):
        for path in sorted((ROOT / "notebooks").glob(pattern)):
            shutil.copy2(path, dest / "notebooks" / path.name)
    (dest / "notebooks" / "zh").mkdir()
    for pattern in ("[0-9][0-9]*_*.ipynb", "[0-9][0-9]*_*.py"):                 # the Chinese edition
        for path in sorted((ROOT / "notebooks" / "zh").glob(pattern)):
            shutil.copy2(path, dest / "notebooks" / "zh" / path.name)
    shutil.copytree(ROOT / "exercises", dest / "exercises", ignore=IGNORE)
    shutil.copytree(ROOT / "ntk_helpers", dest / "ntk_helpers", ignore=IGNORE)
    (dest / "tools").mkdir()
    shutil.copy2(ROOT / "tools" / "find_python.sh", dest / "tools")      # the Makefile's choice of Python
    for name in TOP_FILES:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dest / name)
    (dest / "tests").mkdir()
    for path in student_tests():
        shutil.copy2(path, dest / "tests" / path.name)
    (dest / "Makefile").write_text(student_makefile((ROOT / "Makefile").read_text(encoding="utf-8")),
                                   encoding="utf-8")
    (dest / MARKER).write_text(f"student copy of ntk-notebooks {_source_version()}\n", encoding="utf-8")
    leaks = solution_leaks(dest)
    if leaks:
        shutil.rmtree(dest)
        raise SystemExit(f"solution text would reach students, copy removed: {leaks}")
    return dest


def solution_leaks(folder: Path) -> list[str]:
    """'file: marker' for every solution marker found in any file under ``folder``."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="ignore")
        found += [f"{path.relative_to(folder)}: {m}" for m in SOLUTION_MARKERS if m in text]
    return found


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "student"
    copy = make_student_copy(target)
    n_lessons = len(list((copy / "notebooks").glob("*.ipynb")))
    n_exercises = len(list((copy / "exercises").rglob("*.ipynb")))
    print(f"{copy}: {n_lessons} lessons, {n_exercises} exercises, {len(list((copy / 'tests').glob('test_*.py')))} "
          "test files, no solutions. Hand out this folder; students run `make lab`.")
