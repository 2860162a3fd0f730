"""One-line checks for the lessons: a claim, the number measured, the number expected, and the tolerance.

A lesson's check cell reads as one sentence per claim::

    nh.check_close("NTK at 60°, closed form vs quadrature", measured, expected, rtol=1e-10)
    nh.check_between("slope of the spread against width", slope, -0.6, -0.4)
    nh.check_that("the Gram matrix is singular", eigenvalues.min() < 1e-12 * eigenvalues.max(),
                  measured=eigenvalues.min(), expected="< 1e-12 × the largest eigenvalue")

Each prints one line starting with ✓ when the claim holds and raises ``AssertionError`` naming the claim, the
expected and the measured values otherwise (what nbval then reports). The claim is translated in a Chinese lesson
(``messages.gettext``); numbers never are. Tolerances are relative to the scale of the expected value unless
``atol`` is given, so they mean the same on every machine. Printed numbers have four significant digits, so
the line does not change with the last bits of rounding on another CPU.
"""

from __future__ import annotations

import math

import numpy as np

from .messages import gettext as _

PASS = "✓"


def _values(name: str, value) -> np.ndarray:
    try:
        array = np.asarray(value.detach().cpu() if hasattr(value, "detach") else value, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a number or an array of numbers, got {type(value).__name__}") from error
    return array


def _number(x: float) -> str:
    return f"{x:.4g}"


def check_close(what: str, measured, expected, *, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Claim that ``measured`` equals ``expected`` within ``atol + rtol * max|expected|`` (numbers or arrays of
    the same shape). Give ``rtol``, ``atol`` or both (a check with no tolerance is an error, not a pass)."""
    if not (rtol > 0 or atol > 0) or rtol < 0 or atol < 0:
        raise ValueError(f"check_close({what!r}): give rtol > 0 and/or atol > 0 (got rtol={rtol}, atol={atol})")
    m, e = _values("measured", measured), _values("expected", expected)
    if m.shape != e.shape:
        raise ValueError(f"check_close({what!r}): measured has shape {m.shape}, expected {e.shape}")
    claim = _(what)
    scale = float(np.max(np.abs(e))) if e.size else 0.0
    tolerance = atol + rtol * scale
    difference = float(np.max(np.abs(m - e))) if m.size else 0.0
    if m.ndim == 0:
        text = _("{claim}: {measured} (expected {expected} ± {tolerance})").format(
            claim=claim, measured=_number(float(m)), expected=_number(float(e)), tolerance=f"{tolerance:.1g}")
    else:
        text = _("{claim}: all {count} values within {tolerance} of the expected ones").format(
            claim=claim, count=m.size, tolerance=f"{tolerance:.1g}")
    if not np.all(np.isfinite(m)) or not difference <= tolerance:
        if m.ndim == 0:
            detail = _("expected {expected} ± {tolerance}, measured {measured}").format(
                expected=_number(float(e)), tolerance=f"{tolerance:.2g}", measured=_number(float(m)))
        else:
            worst = int(np.argmax(np.where(np.isfinite(m), np.abs(m - e), np.inf)))
            index = np.unravel_index(worst, m.shape)
            detail = _("expected {expected} ± {tolerance} at index {index}, measured {measured}").format(
                expected=_number(float(e[index])), tolerance=f"{tolerance:.2g}", index=tuple(map(int, index)),
                measured=_number(float(m[index])))
        raise AssertionError(f"{claim}: {detail}")
    print(f"{PASS} {text}")


def check_between(what: str, measured, low: float, high: float) -> None:
    """Claim that the number ``measured`` lies in ``[low, high]`` (either bound may be infinite: "at least low")."""
    if not low <= high:
        raise ValueError(f"check_between({what!r}): low must be <= high, got low={low}, high={high}")
    value = float(_values("measured", measured))
    claim = _(what)
    if math.isinf(high) and math.isinf(low):
        expected = _("any finite number")
    elif math.isinf(high):
        expected = _("at least {low}").format(low=_number(low))
    elif math.isinf(low):
        expected = _("at most {high}").format(high=_number(high))
    else:
        expected = _("between {low} and {high}").format(low=_number(low), high=_number(high))
    if not (math.isfinite(value) and low <= value <= high):
        raise AssertionError(_("{claim}: expected {expected}, measured {measured}").format(
            claim=claim, expected=expected, measured=_number(value)))
    print(f"{PASS} " + _("{claim}: {measured} (expected {expected})").format(
        claim=claim, measured=_number(value), expected=expected))


def check_that(what: str, condition, *, measured=None, expected=None) -> None:
    """Claim that ``condition`` is true; ``measured`` and ``expected`` (numbers or short texts) say what was
    compared, for the failure message (give both, or neither for a claim that is its own evidence)."""
    claim = _(what)
    if not bool(condition):
        detail = "" if measured is None and expected is None else ": " + _(
            "expected {expected}, measured {measured}").format(expected=_shown(expected), measured=_shown(measured))
        raise AssertionError(claim + detail)
    print(f"{PASS} {claim}")


def _shown(value) -> str:
    if isinstance(value, str):
        return _(value)
    try:
        return _number(float(value))
    except (TypeError, ValueError):
        return str(value)
