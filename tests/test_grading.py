"""Exercises 4.1-4.9 through the real nbgrader pipeline: generate, autograde, export, feedback.

Sample submissions, generated once and graded by one ``nbgrader autograde`` call (or NTK_GRADING_WORKERS calls
at once, default: 2 on a machine with 2 cores; see ``tests/grading_harness.py``):
the solutions (full marks); the blank release (0, every cell executed); tampering (raising, an infinite loop,
deleted or edited test cells), graded without crashing and without reward; and every case of
``tests/grading_cases/<exercise>.py``: answers written differently from the solution get full marks, typical
wrong answers and answers tuned to the visible test get exactly the points their case states.
"""

import csv
import os
import re

import nbformat
import pytest

import grading_harness as harness

ROOT = harness.ROOT
NOTEBOOKS = harness.EXERCISES
AUTO_POINTS = 4            # per notebook: 1 visible + 3 hidden
MANUAL_POINTS = 2
SAMPLE_STUDENTS = ("perfect", "blank", "tamper")
# parallel `nbgrader autograde` calls (each on a share of the students): the run is CPU-bound, one core each
WORKERS = int(os.environ.get("NTK_GRADING_WORKERS", min(2, os.cpu_count() or 1)))
# tampering on top of a wrong answer: (a case of tests/grading_cases/<exercise>.py, what is done to the tests)
TAMPER_ON_WRONG = {"ex4_3_resnet_depth": ("alpha_ignored", "delete"),
                   "ex4_4_relu_vs_erf": ("no_normalization", "edit")}

pytestmark = pytest.mark.grading


def _load_all_cases():
    """(exercise, case) for every case file; a file that does not load becomes one failing entry."""
    params, loaded = [], {}
    for exercise in harness.case_exercises():
        try:
            cases = harness.load_cases(exercise)
        except Exception as err:  # noqa: BLE001  (reported by the test, not at collection)
            params.append(pytest.param(exercise, err, id=f"{exercise}-does-not-load"))
            continue
        loaded[exercise] = cases
        params += [pytest.param(exercise, case, id=f"{exercise}-{case['name']}") for case in cases]
    return params, loaded


CASE_PARAMS, LOADED_CASES = _load_all_cases()


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


def _tampered(course, name):
    if name == "ex4_1_sigma_dot":                      # raises
        cells = ["raise RuntimeError('I give up')"] * len(course.solution_cells(name))
        return course.fill(name, cells)
    if name == "ex4_2_cnn_symmetry":                   # loops forever (asleep: costs the timeout, not CPU)
        cells = ["import time\nwhile True:\n    time.sleep(1)"] * len(course.solution_cells(name))
        return course.fill(name, cells)
    case_name, action = TAMPER_ON_WRONG[name]          # a wrong answer, test cells deleted / edited to pass
    case = next(c for c in LOADED_CASES[name] if c["name"] == case_name)
    nb = course.fill(name, case["cells"])
    graded = harness.graded_code_cells(nb)
    if action == "delete":
        nb.cells = [c for c in nb.cells if c not in graded]
    else:
        for cell in graded:
            cell.source = "pass  # tests? what tests?"
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A copy of the course: assignment generated once, every sample submission autograded in one call."""
    course = harness.Course(NOTEBOOKS, root=tmp_path_factory.mktemp("course"))
    # the release as committed, read at the same time as the solutions it must match
    course.committed_release = {name: (ROOT / "exercises" / "chapter4" / f"{name}.ipynb").read_text()
                                for name in NOTEBOOKS}
    for name in NOTEBOOKS:
        course.submit("perfect", name, course.source(name))
        course.submit("blank", name, course.release(name))
    for name in ("ex4_1_sigma_dot", "ex4_2_cnn_symmetry", *TAMPER_ON_WRONG):
        course.submit("tamper", name, _tampered(course, name))
    for exercise, cases in LOADED_CASES.items():
        for case in cases:
            student = harness.student_id(exercise, case["name"])
            course.submit(student, exercise, course.fill(exercise, case["cells"]))
    course.autograde_seconds = course.autograde(timeout=harness.TIMEOUT, workers=WORKERS, main=SAMPLE_STUDENTS)
    harness.nbgrader("export", cwd=course.root)
    harness.nbgrader("generate_feedback", "chapter4", "--force", "--student=tamper", cwd=course.root)
    return course


def _scores(course, student, names=NOTEBOOKS):
    return {name: course.result(student, name).score for name in names}


def test_exercises_are_in_sync_with_solutions(course):
    for name in NOTEBOOKS:
        fresh = (course.root / "exercises" / "chapter4" / f"{name}.ipynb").read_text()
        assert fresh == course.committed_release[name], f"{name}: run `make exercises` and commit exercises/"


def test_solutions_score_full_marks(course):
    for name in NOTEBOOKS:
        assert harness.auto_points(course.source(name)) == AUTO_POINTS, name
    results = {name: course.result("perfect", name) for name in NOTEBOOKS}
    assert {n: r.score for n, r in results.items()} == {name: AUTO_POINTS for name in NOTEBOOKS}, \
        {n: r.summary() for n, r in results.items() if r.score != AUTO_POINTS}


def test_blank_notebooks_are_graded_zero_without_crashing(course):
    assert _scores(course, "blank") == {name: 0 for name in NOTEBOOKS}
    for name in NOTEBOOKS:                    # every cell ran: the grader went top to bottom
        nb = course.autograded("blank", name)
        assert all(c.execution_count for c in nb.cells if c.cell_type == "code"), name


def test_tampering_is_graded_without_crash_or_reward(course):
    scores = _scores(course, "tamper", ["ex4_1_sigma_dot", "ex4_2_cnn_symmetry", *TAMPER_ON_WRONG])
    assert scores["ex4_1_sigma_dot"] == 0                        # raised
    assert scores["ex4_2_cnn_symmetry"] == 0                     # timed out
    wrong = {name: next(c["points"] for c in LOADED_CASES[name] if c["name"] == case)
             for name, (case, _) in TAMPER_ON_WRONG.items()}
    # deleted test cells earn nothing (nbgrader scores missing graded cells as 0) ...
    assert scores["ex4_3_resnet_depth"] <= wrong["ex4_3_resnet_depth"]
    # ... and edited ones are overwritten from the gradebook before running, hidden tests included
    assert scores["ex4_4_relu_vs_erf"] == wrong["ex4_4_relu_vs_erf"]


@pytest.mark.parametrize("exercise, case", CASE_PARAMS)
def test_grading_case(course, exercise, case):
    """A case of tests/grading_cases/<exercise>.py gets exactly the autograded points it states."""
    if isinstance(case, Exception):
        raise case
    result = course.result(harness.student_id(exercise, case["name"]), exercise)
    assert result.score == case["points"], (
        f"{exercise} case {case['name']} ({case['kind']}: {case['why']}): expected {case['points']:g} points, "
        f"got {result.score:g} ({result.summary()})")


def test_grades_export_and_feedback(course):
    rows = {row["student_id"]: row for row in csv.DictReader(open(course.root / "grades.csv"))}
    assert float(rows["perfect"]["score"]) == len(NOTEBOOKS) * AUTO_POINTS
    assert float(rows["perfect"]["max_score"]) == len(NOTEBOOKS) * (AUTO_POINTS + MANUAL_POINTS)
    assert float(rows["blank"]["score"]) == 0
    feedback = course.root / "grading" / "feedback" / "tamper" / "chapter4" / "ex4_1_sigma_dot.html"
    assert feedback.exists() and "I give up" in feedback.read_text()


@pytest.mark.parametrize("exercise", NOTEBOOKS)
def test_every_exercise_has_fair_grading_cases(exercise):
    """At least 2 correct answers written differently from the solution, 3 typical wrong ones, 1 gaming one;
    correct ones state full marks, the others fewer points."""
    assert exercise in LOADED_CASES, f"tests/grading_cases/{exercise}.py is missing or does not load"
    cases = LOADED_CASES[exercise]
    kinds = [c["kind"] for c in cases]
    assert kinds.count("correct") >= 2 and kinds.count("wrong") >= 3 and kinds.count("gaming") >= 1, kinds
    for case in cases:
        if case["kind"] == "correct":
            assert case["points"] == AUTO_POINTS, case["name"]
        else:
            assert 0 <= case["points"] < AUTO_POINTS, case["name"]
