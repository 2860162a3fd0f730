"""The lessons' one-line checks (ntk_helpers.course.checks) and the printed text's catalog (course.messages)."""

import math
from pathlib import Path

import numpy as np
import pytest

import ntk_helpers as nh
from ntk_helpers.course import language, messages



def test_a_close_value_passes_with_one_line_naming_the_claim(capsys):
    nh.check_close("kernel at 60 degrees", 0.28615, 0.2861, rtol=1e-3)
    assert capsys.readouterr().out == "✓ kernel at 60 degrees: 0.2862 (expected 0.2861 ± 0.0003)\n"


def test_a_value_off_by_more_than_the_tolerance_fails_naming_expected_and_measured():
    with pytest.raises(AssertionError, match=r"kernel: expected 0\.2861 ± 2\.9e-05, measured 0\.29"):
        nh.check_close("kernel", 0.29, 0.2861, rtol=1e-4)


def test_the_tolerance_is_relative_to_the_scale_of_the_expected_values():
    big = np.array([1e6, 2e6])
    nh.check_close("large values", big * (1 + 1e-9), big, rtol=1e-8)
    with pytest.raises(AssertionError, match=r"at index \(1,\)"):
        nh.check_close("large values", big + [0, 100], big, rtol=1e-8)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_measurement_never_passes(bad):
    with pytest.raises(AssertionError):
        nh.check_close("kernel", bad, 1.0, atol=1e300)
    with pytest.raises(AssertionError):
        nh.check_between("slope", bad, -math.inf, math.inf)


def test_a_check_without_a_tolerance_or_with_mismatched_shapes_is_an_error_not_a_pass():
    with pytest.raises(ValueError, match="rtol"):
        nh.check_close("kernel", 1.0, 1.0)
    with pytest.raises(ValueError, match="shape"):
        nh.check_close("kernel", [1.0, 2.0], [1.0], rtol=1e-3)
    with pytest.raises(ValueError, match="low must be <= high"):
        nh.check_between("slope", 0.0, 1.0, -1.0)


def test_between_and_that(capsys):
    nh.check_between("slope", -0.52, -0.6, -0.4)
    nh.check_that("the Gram matrix is singular", True)
    assert capsys.readouterr().out.splitlines() == ["✓ slope: -0.52 (expected between -0.6 and -0.4)",
                                                     "✓ the Gram matrix is singular"]
    with pytest.raises(AssertionError, match="slope: expected between -0.6 and -0.4, measured -0.3"):
        nh.check_between("slope", -0.3, -0.6, -0.4)
    nh.check_between("gain in standard errors", 10.75, 5, math.inf)
    nh.check_between("slope", -0.7, -math.inf, -0.55)
    assert capsys.readouterr().out.splitlines() == ["✓ gain in standard errors: 10.75 (expected at least 5)",
                                                     "✓ slope: -0.7 (expected at most -0.55)"]
    with pytest.raises(AssertionError, match="slope: expected at most -0.55, measured -0.5"):
        nh.check_between("slope", -0.5, -math.inf, -0.55)
    with pytest.raises(AssertionError, match="singular: expected < 1e-12, measured 0.5"):
        nh.check_that("singular", False, measured=0.5, expected="< 1e-12")


@pytest.fixture
def chinese(monkeypatch, tmp_path):
    catalog = tmp_path / "ntk_helpers.po"
    catalog.write_text('msgid ""\nmsgstr ""\n"Language: zh_CN\\n"\n\n'
                       'msgid "slope"\nmsgstr "斜率"\n\n'
                       '#, fuzzy\nmsgid "kernel"\nmsgstr "旧的译文"\n\n'
                       'msgid "{claim}: {measured} (expected {expected})"\n'
                       'msgstr ""\n"{claim}：{measured}"\n"（预期{expected}）"\n\n'
                       'msgid "between {low} and {high}"\nmsgstr "在 {low} 与 {high} 之间"\n', encoding="utf-8")
    monkeypatch.setattr(messages, "CATALOG", catalog)
    monkeypatch.setitem(language._state, "requested", "zh")
    monkeypatch.setattr(language, "_untranslated", set())
    return catalog


def test_printed_text_follows_the_catalog_in_chinese_and_numbers_stay(chinese, capsys):
    nh.check_between("slope", -0.52, -0.6, -0.4)
    assert capsys.readouterr().out == "✓ 斜率：-0.52（预期在 -0.6 与 -0.4 之间）\n"


def test_a_fuzzy_or_missing_translation_prints_english_and_is_recorded(chinese):
    assert nh._("kernel") == "kernel" and nh._("no such text") == "no such text"
    assert language.untranslated() == {"kernel", "no such text"}


def test_english_reads_no_catalog(monkeypatch):
    monkeypatch.setattr(messages, "CATALOG", Path("/nonexistent/catalog.po"))
    monkeypatch.setitem(language._state, "requested", "en")
    assert nh._("slope") == "slope"


def test_the_shipped_catalog_parses_as_babel_reads_it():
    from babel.messages.pofile import read_po

    with messages.CATALOG.open("rb") as handle:
        babel = {m.id: m.string for m in read_po(handle) if m.id and m.string and not m.fuzzy}
    assert messages.read_catalog(messages.CATALOG) == babel, "the stdlib reader and Babel disagree on the catalog"
