"""The lesson template (CONTRIBUTING.md, "A lesson"), measured on the lessons that follow it.

A learner's lesson leads with the idea and asks questions; its checks run (nbval) but stay out of the way:
they sit in cells tagged ``check``, which JupyterLab shows collapsed, the slides skip and the site leaves out.
The rules, per lesson:

- ``assert`` lines are at most 5 % of the code a learner sees (code cells not tagged ``check``, the install
  cell aside; blank and comment lines do not count);
- at least ``MIN_ANSWERS`` collapsible answers (``<details>``): the predict-then-check questions at each explorer
  and the check-your-understanding questions at the end;
- every explorer (a cell that builds sliders) is followed, before the next code cell, by a markdown cell with a
  question and its collapsed answer;
- no correction of the textbook in the open: every "The text says" sits inside a ``<details>`` block;
- the sections in order: what you will learn, ..., check your understanding, summary, for readers of chapter 4.
"""

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Every lesson follows the template.
TEMPLATE_LESSONS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.py"))
MAX_ASSERT_SHARE = 0.05
#: Collapsible answers a lesson needs; the orientation lesson 00 has fewer sections, so fewer questions.
MIN_ANSWERS = {"00_start_here": 4}
DEFAULT_MIN_ANSWERS = 6
SECTIONS = ["You will learn", "Check your understanding", "Summary", "For readers of chapter 4"]
EXPLORER = re.compile(r"nh\.widgets\.|interactive\(|live_figure\(")
DETAILS = re.compile(r"<details>.*?</details>", re.S)


def cells(name: str):
    return jupytext.read(ROOT / "notebooks" / f"{name}.py").cells


def is_check(cell) -> bool:
    return "check" in cell.metadata.get("tags", [])


def is_install(cell) -> bool:
    return 'find_spec("ntk_helpers") is None' in cell.source


def visible_code(name: str) -> list[str]:
    return [c.source for c in cells(name) if c.cell_type == "code" and not is_check(c) and not is_install(c)]


def counted_lines(code: str) -> int:
    return sum(1 for line in code.splitlines() if line.strip() and not line.strip().startswith("#"))


def assert_lines(code: str) -> int:
    return sum(node.end_lineno - node.lineno + 1 for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Assert))


@pytest.mark.parametrize("name", TEMPLATE_LESSONS)
def test_asserts_are_at_most_five_percent_of_the_code_a_learner_sees(name):
    code = visible_code(name)
    total, asserts = sum(map(counted_lines, code)), sum(map(assert_lines, code))
    assert total, f"{name}: no visible code"
    assert asserts <= MAX_ASSERT_SHARE * total, \
        f"{name}: {asserts} assert lines in {total} visible code lines ({asserts / total:.1%}); expected at most " \
        f"{MAX_ASSERT_SHARE:.0%}: move checks into cells tagged check, or use nh.check_close / check_that"


@pytest.mark.parametrize("name", TEMPLATE_LESSONS)
def test_questions_have_collapsible_answers(name):
    markdown = "\n".join(c.source for c in cells(name) if c.cell_type == "markdown")
    answers = len(DETAILS.findall(markdown))
    needed = MIN_ANSWERS.get(name, DEFAULT_MIN_ANSWERS)
    assert answers >= needed, f"{name}: {answers} collapsible answers (<details>); expected at least {needed}"


@pytest.mark.parametrize("name", TEMPLATE_LESSONS)
def test_every_explorer_is_followed_by_a_question_with_a_collapsed_answer(name):
    found = cells(name)
    missing = []
    for index, cell in enumerate(found):
        if cell.cell_type != "code" or is_check(cell) or not EXPLORER.search(cell.source):
            continue
        after = []
        for later in found[index + 1:]:
            if later.cell_type == "code" and not is_check(later):
                break
            after.append(later)
        if not any(c.cell_type == "markdown" and DETAILS.search(c.source) for c in after):
            missing.append(f"cell {index + 1}: {cell.source.splitlines()[0][:60]!r}")
    assert not missing, f"{name}: explorers with no predict-then-check question (markdown with <details>) " \
                        f"before the next code cell: {missing}"


@pytest.mark.parametrize("name", TEMPLATE_LESSONS)
def test_corrections_of_the_textbook_are_collapsed(name):
    open_boxes = [c.source.split("\n")[0][:60] for c in cells(name) if c.cell_type == "markdown"
                  and "The text says" in DETAILS.sub("", c.source)]
    assert not open_boxes, f"{name}: 'The text says' outside a <details> block in cells starting {open_boxes}"


@pytest.mark.parametrize("name", TEMPLATE_LESSONS)
def test_the_sections_of_the_template_come_in_order(name):
    markdown = "\n".join(c.source for c in cells(name) if c.cell_type == "markdown")
    where = [markdown.find(section) for section in SECTIONS]
    missing = [section for section, at in zip(SECTIONS, where) if at < 0]
    assert not missing, f"{name}: the template's sections {missing} are missing (CONTRIBUTING.md, 'A lesson')"
    assert where == sorted(where), f"{name}: sections out of order: expected {SECTIONS}, found them at {where}"


@pytest.mark.parametrize("name", TEMPLATE_LESSONS)
def test_a_check_cell_holds_checks(name):
    """Cells tagged check hide code: they may hold only verification (asserts, nh.check_*), never a plot or a
    definition the lesson goes on to use."""
    hidden_plots = [index + 1 for index, c in enumerate(cells(name))
                    if c.cell_type == "code" and is_check(c) and ("plt." in c.source or "nh.widgets" in c.source)]
    assert not hidden_plots, f"{name}: check cells {hidden_plots} draw plots or sliders; a learner must see them"
