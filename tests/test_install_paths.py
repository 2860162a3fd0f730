"""How learners get the course running: which Python `make` chooses, the Colab/Binder links and the lessons'
install cell (the first code cell, which installs the package on Colab and does nothing in the course).

Colab itself cannot be reached from here: these tests check the cell's logic (what it runs, and when) and that pip
can build the package from a git URL of this repository, as the cell asks Colab's pip to do.
Course-only (it reads tools/ and the git checkout): not in the student copy.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import jupytext
import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from conftest import load_tool

ROOT = Path(__file__).resolve().parents[1]
links = load_tool("install_links")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
FIND_PYTHON = ROOT / "tools" / "find_python.sh"


def _makefile_tested_pythons() -> list[str]:
    match = re.search(r"^TESTED_PYTHONS\s*:=\s*(.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert match, "Makefile must define TESTED_PYTHONS := 3.11 ..."
    return match.group(1).split()


def test_the_pythons_make_chooses_are_the_ones_pyproject_admits_and_names():
    tested = _makefile_tested_pythons()
    classifiers = [c.rsplit(" :: ", 1)[1] for c in PROJECT["classifiers"]
                   if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert tested == classifiers, f"Makefile TESTED_PYTHONS {tested} != pyproject classifiers {classifiers}"
    admitted = SpecifierSet(PROJECT["requires-python"])
    assert all(f"{v}.0" in admitted for v in tested), f"requires-python {admitted} excludes one of {tested}"
    assert "3.14.0" in admitted, f"requires-python {admitted} caps the version: a newer Python could not even try"
    assert "3.10.0" not in admitted, f"requires-python {admitted} admits 3.10, which the code does not support"


def _fake_pythons(tmp_path, versions: dict[str, str]) -> dict[str, str]:
    """Executables that answer the version probe with a fixed "X.Y" (and fail when it is None)."""
    paths = {}
    for name, version in versions.items():
        path = tmp_path / name
        path.write_text("#!/bin/sh\n" + (f"echo {version}\n" if version else "exit 127\n"))
        path.chmod(0o755)
        paths[name] = str(path)
    return paths


def _find_python(*args, tested="3.11 3.12 3.13"):
    return subprocess.run(["sh", str(FIND_PYTHON), *args], capture_output=True, text=True,
                          env=dict(os.environ, TESTED=tested))


def test_make_takes_the_first_interpreter_that_runs_and_is_tested(tmp_path):
    py = _fake_pythons(tmp_path, {"python3": "3.10", "python3.13": None, "python3.12": "3.12", "python3.11": "3.11"})
    found = _find_python(py["python3"], py["python3.13"], py["python3.12"], py["python3.11"])
    assert (found.returncode, found.stdout.strip()) == (0, py["python3.12"]), \
        f"expected {py['python3.12']} (python3 is 3.10, python3.13 does not run), got {found}"
    none = _find_python(py["python3"], py["python3.13"], str(tmp_path / "missing"))
    assert (none.returncode, none.stdout) == (1, ""), f"expected exit 1 and no output when none fits, got {none}"


@pytest.mark.parametrize("version, ok, says", [
    ("3.12", True, ""),
    ("3.14", True, "newer than the tested 3.11 3.12 3.13"),
    ("3.10", False, "is Python 3.10; the course needs 3.11 or newer (tested on 3.11 3.12 3.13)"),
    ("2.7", False, "needs 3.11 or newer"),
    (None, False, "does not run; the course is tested on Python 3.11 3.12 3.13"),
])
def test_make_says_which_pythons_work(tmp_path, version, ok, says):
    python = _fake_pythons(tmp_path, {"python": version})["python"]
    checked = _find_python("--check", python)
    assert (checked.returncode == 0) == ok and says in checked.stderr, \
        f"Python {version}: expected {'success' if ok else 'failure'} saying {says!r}, got {checked}"


def test_make_names_the_tested_versions_when_it_finds_no_python():
    checked = _find_python("--check", "")
    assert checked.returncode == 1 and "tested on 3.11 3.12 3.13" in checked.stderr \
        and "make PYTHON=" in checked.stderr, f"expected a message naming 3.11-3.13 and PYTHON=, got {checked}"


# ----------------------------------------------------------------------------- the links and the install cell

def test_every_link_and_install_cell_points_at_the_repository():
    stale = links.out_of_date(links.repository())
    assert not stale, f"out of date with pyproject.toml's Repository (run `make links`): {sorted(map(str, stale))}"


@pytest.mark.parametrize("lesson", links.LESSONS, ids=lambda p: p.relative_to(ROOT / "notebooks").as_posix())
def test_every_lesson_opens_with_its_links_and_the_install_cell(lesson):
    cells = jupytext.read(lesson).cells
    repo = links.repository()
    notebook = lesson.with_suffix(".ipynb").relative_to(ROOT).as_posix()
    first_code = next(c for c in cells if c.cell_type == "code")
    assert first_code.source == links.install_cell(repo), \
        f"{lesson.name}: the first code cell must be the install cell, found {first_code.source[:120]!r}"
    title = cells[0].source.splitlines()
    expected = (f"https://colab.research.google.com/github/{repo}/blob/main/{notebook}",
                f"https://mybinder.org/v2/gh/{repo}/HEAD?labpath={notebook.replace('/', '%2F')}")
    assert all(url in title[1] for url in expected), f"{lesson.name}: line 2 should link {expected}, is {title[1]!r}"
    assert (ROOT / notebook).exists(), f"the links of {lesson.name} name {notebook}, which does not exist"


def _run_install_cell(monkeypatch, missing: bool):
    """Execute the install cell as a kernel would; return the commands it handed to subprocess.run."""
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *args, **kw: calls.append((args, kw)))
    real_find_spec = importlib.util.find_spec
    if missing:
        monkeypatch.setattr(importlib.util, "find_spec",
                            lambda name, *a: None if name == "ntk_helpers" else real_find_spec(name, *a))
    exec(compile(links.install_cell(links.repository()), "<install cell>", "exec"), {})
    return calls


def test_the_install_cell_does_nothing_where_the_package_is_installed(monkeypatch):
    assert importlib.util.find_spec("ntk_helpers") is not None, "the tests run where ntk_helpers is installed"
    calls = _run_install_cell(monkeypatch, missing=False)
    assert calls == [], f"in the course the install cell must run nothing, it ran {calls}"


def test_the_install_cell_installs_this_package_from_the_repository_where_it_is_missing(monkeypatch):
    calls = _run_install_cell(monkeypatch, missing=True)
    assert len(calls) == 1, f"expected one pip call, got {calls}"
    (command,), options = calls[0]
    assert command[:5] == [sys.executable, "-m", "pip", "install", "--quiet"] and options == {"check": True}, \
        f"expected the kernel's own pip, stopping on failure; got {command} {options}"
    requirement = Requirement(command[5])
    assert requirement.name == PROJECT["name"], f"pip is asked for {requirement.name}, the package is {PROJECT['name']}"
    assert requirement.url == "git+" + PROJECT["urls"]["Repository"], \
        f"expected git+{PROJECT['urls']['Repository']}, got {requirement.url}"


@pytest.mark.slow
def test_pip_builds_the_package_from_a_git_url_of_this_repository(tmp_path):
    """What the install cell asks Colab's pip to do, with this checkout's committed tree as the git repository:
    clone, build (pyproject.toml, setuptools) and find a distribution of the requested name (pip stops if the
    name in the built metadata is not the one in the requirement). --dry-run: nothing is installed."""
    clone = tmp_path / "clone"          # a full clone: pip's partial clone of a shallow one can hang
    subprocess.run(["git", "clone", "--quiet", f"file://{ROOT}", str(clone)], check=True, timeout=120)
    requirement = f"{PROJECT['name']} @ git+file://localhost{clone}"   # older pip wants a host in a file URL
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-build-isolation",
                             "--quiet", "--report", str(tmp_path / "report.json"), requirement],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"pip could not build {requirement}: {result.stderr[-2000:]}"
    report = (tmp_path / "report.json").read_text()
    assert f'"name": "{PROJECT["name"]}"' in report, f"pip's report names no {PROJECT['name']}: {report[:500]}"


def test_the_readme_gives_the_colab_and_binder_paths():
    readme = (ROOT / "README.md").read_text()
    repo = links.repository()
    for url in (links.binder_url(repo, "notebooks/00_start_here.ipynb"),
                links.colab_url(repo, "notebooks/00_start_here.ipynb")):
        assert url in readme, f"README should link {url}"
    assert "OWNER" not in readme, "README still has an OWNER placeholder in a link"
