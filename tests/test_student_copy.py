"""`make student` (tools/make_student_copy.py): a course copy for students with no solution text in it."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_tool

ROOT = Path(__file__).resolve().parents[1]
MARKERS = ["BEGIN SOLUTION", "HIDDEN TESTS", "Model answer", "Rubric"]


@pytest.fixture(scope="module")
def tool():
    return load_tool("make_student_copy")


@pytest.fixture(scope="module")
def copy(tool, tmp_path_factory):
    return tool.make_student_copy(tmp_path_factory.mktemp("course") / "student")


def test_the_markers_are_real():
    """The markers the copy is searched for do occur in the instructor's files (so the search means something)."""
    solutions = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "solutions").rglob("*.py"))
    assert all(m in solutions for m in MARKERS), [m for m in MARKERS if m not in solutions]


def test_no_solution_text_and_no_instructor_files(copy):
    for path in (p for p in copy.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="ignore")
        found = [m for m in MARKERS if m in text]
        assert not found, f"{path.relative_to(copy)} contains {found}"
    for absent in ["solutions", ".git", "nbgrader_config.py", "tests/test_grading.py", "tests/grading_harness.py",
                   "tests/grading_cases", "benchmarks", ".ci", ".venv", "build"]:
        assert not (copy / absent).exists(), f"{absent} is in the student copy"
    tools = sorted(p.name for p in (copy / "tools").iterdir())
    assert tools == ["find_python.sh"], f"tools/ of the copy should hold only the Makefile's find_python.sh: {tools}"
    assert not list(copy.rglob("__pycache__")) and not list(copy.rglob(".ipynb_checkpoints"))


def test_lessons_exercises_and_set_up_files_are_there(copy):
    for lesson in sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*")):
        assert (copy / "notebooks" / lesson.name).read_bytes() == lesson.read_bytes(), lesson.name
    exercises = sorted(p.relative_to(ROOT) for p in (ROOT / "exercises").rglob("*.ipynb"))
    assert exercises and sorted(p.relative_to(copy) for p in (copy / "exercises").rglob("*.ipynb")) == exercises
    for name in ["README.md", "ERRATA.md", "pyproject.toml", "environment.yml", "postBuild", "Makefile",
                 "ntk_helpers/__init__.py", "tests/nbval_sanitize.cfg", "tests/conftest.py"]:
        assert (copy / name).is_file(), name
    assert os.access(copy / "postBuild", os.X_OK)


def test_package_imports_from_the_copy_without_installing(copy, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(copy))
    out = subprocess.run([sys.executable, "-c", "import ntk_helpers as nh; print(nh.__file__)"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).is_relative_to(copy), out.stdout


def test_student_makefile_targets(copy):
    """lab, test, validate, dashboard and clean parse, and every file their recipes name is in the copy."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    dry = subprocess.run(["make", "-n", "lab", "test", "validate", "dashboard", "clean"], cwd=copy,
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    named = set(re.findall(r"(?<![\w./$-])((?:notebooks|exercises|tests)/[\w./-]+\.(?:ipynb|cfg|py))", dry.stdout))
    assert {"notebooks/00_start_here.ipynb", "tests/nbval_sanitize.cfg",
            "exercises/chapter4/ex4_1_sigma_dot.ipynb"} <= named, named
    assert all((copy / path).is_file() for path in named), [p for p in named if not (copy / p).is_file()]
    for target in ["exercises", "autograde", "notebooks", "site", "student", "benchmark"]:
        assert not re.search(rf"^{target}:", (copy / "Makefile").read_text(), flags=re.M), target


def test_copied_tests_need_nothing_the_copy_lacks(copy):
    """The copy's tests are collected there (imports, fixtures) without the course's other files."""
    env = dict(os.environ, PYTHONPATH=str(copy), OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", "tests"],
                         cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert re.search(r"\b\d{2,} tests? collected", out.stdout), out.stdout[-500:]


def test_rerun_replaces_a_copy_but_never_another_folder(tool, tmp_path):
    first = tool.make_student_copy(tmp_path / "student")
    (first / "notebooks" / "my_notes.ipynb").write_text("{}")
    again = tool.make_student_copy(tmp_path / "student")
    assert not (again / "notebooks" / "my_notes.ipynb").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):
        tool.make_student_copy(other)
    assert (other / "keep.txt").read_text() == "mine"
    with pytest.raises(SystemExit):
        tool.make_student_copy(ROOT)
