"""Exercises 4.1-4.8 through the real nbgrader pipeline: generate, autograde, export, feedback.

Sample submissions: the solutions (full marks), the blank release (0), typical wrong answers (lose the
points they should), and tampering (raising, an infinite loop, deleted or edited test cells), which
must be graded without crashing the grader and without points for the tampering.
"""

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "solutions" / "chapter4").glob("ex*.ipynb"))
AUTO_POINTS = 4            # per notebook: 1 visible + 3 hidden
MANUAL_POINTS = 2

pytestmark = pytest.mark.grading

# Typical wrong answers: (notebook, text in the solution, replacement, autograded points it should keep).
WRONG = {
    "ex4_1_sigma_dot": ("ntk = cross + sigma_w2 * e_dot * ntk", "ntk = cross + e_dot * ntk", 0),      # forgot sigma_w^2
    "ex4_2_cnn_symmetry": ('if padding == "circular":', "if True:", 1),                               # always wraps
    "ex4_3_resnet_depth": ("alpha ** 2 * w2", "w2", 1),                                                # alpha = 1 always
    "ex4_4_relu_vs_erf": ("/ n).numpy()", ").numpy()", 0),                                             # no 1/N
    "ex4_5_mup": ('"output": (1 / m, float(m))', '"output": (1 / math.sqrt(m), float(m))', 1),         # muP = NTK output
    "ex4_6_pooling": ("= 1 / window", "= 1.0", 0),                                                      # sums, not averages
    "ex4_7_collapse_rank": ("return H @ K @ H", "return K - K.mean()", 1),                             # not HKH
    "ex4_8_double_descent": ("torch.linalg.pinv(features(x_train)) @ y_train",
                             "torch.linalg.solve(features(x_train).T @ features(x_train) + 1.0 * torch.eye(N, dtype=torch.float64), features(x_train).T @ y_train)", 1),
}


def nbgrader(*args, cwd):
    # nbgrader runs `alembic` (database migrations) by name: put this environment's scripts on PATH
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def solution_cells(nb):
    return [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution") and c.cell_type == "code"]


def test_release_contains_no_solution_or_hidden_test_text():
    for name in NOTEBOOKS:
        released = (ROOT / "exercises" / "chapter4" / f"{name}.ipynb").read_text()
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "Rubric", "Model answer"):
            assert marker not in released, (name, marker)
        source = nbformat.read(ROOT / "solutions" / "chapter4" / f"{name}.ipynb", as_version=4)
        pattern = r"### BEGIN (?:SOLUTION|HIDDEN TESTS)\n(.*?)### END[^\n]*"
        public = "\n".join(re.sub(pattern, "", c.source, flags=re.S) for c in source.cells
                           if not (c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")))
        for cell in source.cells:
            for region in re.findall(pattern, cell.source, re.S):
                for line in region.splitlines():
                    if len(line.strip()) > 25 and line.strip() not in public:
                        assert line.strip() not in released, (name, line)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A copy of the course, with the assignment regenerated and four students' submissions autograded."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "solutions", root / "solutions", ignore=shutil.ignore_patterns("*.py", ".ipynb_checkpoints"))
    nbgrader("generate_assignment", "chapter4", "--force", cwd=root)
    release = root / "exercises" / "chapter4"
    submitted = root / "grading" / "submitted"
    for student in ("perfect", "blank", "wrong", "tamper"):
        (submitted / student / "chapter4").mkdir(parents=True)
    for name in NOTEBOOKS:
        source = nbformat.read(root / "solutions" / "chapter4" / f"{name}.ipynb", as_version=4)
        blank = nbformat.read(release / f"{name}.ipynb", as_version=4)
        nbformat.write(source, submitted / "perfect" / "chapter4" / f"{name}.ipynb")
        nbformat.write(blank, submitted / "blank" / "chapter4" / f"{name}.ipynb")
        nbformat.write(_wrong(source, blank, name), submitted / "wrong" / "chapter4" / f"{name}.ipynb")
        nbformat.write(_tampered(source, blank, name), submitted / "tamper" / "chapter4" / f"{name}.ipynb")
    nbgrader("autograde", "chapter4", "--force", "--ExecutePreprocessor.timeout=20", cwd=root)
    nbgrader("export", cwd=root)
    nbgrader("generate_feedback", "chapter4", "--force", cwd=root)
    return root


def _fill(blank, source, transform=lambda text: text):
    """The blank notebook with every solution cell replaced by the (transformed) solution code."""
    filled = nbformat.from_dict(blank)
    answers = iter(solution_cells(source))
    for cell in solution_cells(filled):
        code = next(answers).source
        code = re.sub(r"\s*### (BEGIN|END) SOLUTION", "", code)
        cell.source = transform(code)
    return filled


def _wrong(source, blank, name):
    old, new, _ = WRONG[name]
    assert any(old in c.source for c in solution_cells(source)), f"{name}: wrong-answer pattern not found"
    return _fill(blank, source, lambda code: code.replace(old, new))


def _tampered(source, blank, name):
    if name == "ex4_1_sigma_dot":                      # raises
        return _fill(blank, source, lambda code: "raise RuntimeError('I give up')")
    if name == "ex4_2_cnn_symmetry":                   # loops forever
        return _fill(blank, source, lambda code: "while True:\n    pass")
    if name in ("ex4_3_resnet_depth", "ex4_4_relu_vs_erf"):   # wrong answer + tests deleted / edited to pass
        nb = _wrong(source, blank, name)
        graded = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade") and c.cell_type == "code"]
        if name == "ex4_3_resnet_depth":
            nb.cells = [c for c in nb.cells if c not in graded]
        else:
            for cell in graded:
                cell.source = "pass  # tests? what tests?"
        return nb
    return _fill(blank, source)


def _scores(course):
    """{student: {notebook: autograded score}} from the gradebook."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {student: {name: gb.find_submission_notebook(name, "chapter4", student).code_score for name in NOTEBOOKS}
                for student in ("perfect", "blank", "wrong", "tamper")}


def test_exercises_are_in_sync_with_solutions(course):
    for name in NOTEBOOKS:
        fresh = (course / "exercises" / "chapter4" / f"{name}.ipynb").read_text()
        committed = (ROOT / "exercises" / "chapter4" / f"{name}.ipynb").read_text()
        assert fresh == committed, f"{name}: run `nbgrader generate_assignment chapter4 --force` and commit exercises/"


def test_solutions_score_full_marks(course):
    assert _scores(course)["perfect"] == {name: AUTO_POINTS for name in NOTEBOOKS}


def test_blank_notebooks_are_graded_zero_without_crashing(course):
    assert _scores(course)["blank"] == {name: 0 for name in NOTEBOOKS}
    for name in NOTEBOOKS:                    # every cell ran: the grader went top to bottom
        nb = nbformat.read(course / "grading" / "autograded" / "blank" / "chapter4" / f"{name}.ipynb", as_version=4)
        assert all(c.execution_count for c in nb.cells if c.cell_type == "code")


def test_typical_wrong_answers_lose_points(course):
    scores = _scores(course)["wrong"]
    assert scores == {name: float(WRONG[name][2]) for name in NOTEBOOKS}


def test_tampering_is_graded_without_crash_or_reward(course):
    scores = _scores(course)["tamper"]
    assert scores["ex4_1_sigma_dot"] == 0                        # raised
    assert scores["ex4_2_cnn_symmetry"] == 0                     # timed out
    # deleted test cells earn nothing (nbgrader scores missing graded cells as 0) ...
    assert scores["ex4_3_resnet_depth"] <= WRONG["ex4_3_resnet_depth"][2]
    # ... and edited ones are overwritten from the gradebook before running, hidden tests included
    assert scores["ex4_4_relu_vs_erf"] == WRONG["ex4_4_relu_vs_erf"][2]
    for name in NOTEBOOKS[4:]:
        assert scores[name] == AUTO_POINTS


def test_grades_export_and_feedback(course):
    rows = {row["student_id"]: row for row in csv.DictReader(open(course / "grades.csv"))}
    assert float(rows["perfect"]["score"]) == len(NOTEBOOKS) * AUTO_POINTS
    assert float(rows["perfect"]["max_score"]) == len(NOTEBOOKS) * (AUTO_POINTS + MANUAL_POINTS)
    assert float(rows["blank"]["score"]) == 0
    feedback = course / "grading" / "feedback" / "wrong" / "chapter4" / "ex4_1_sigma_dot.html"
    assert feedback.exists() and "ex4_1_sigma_dot" in feedback.read_text()
