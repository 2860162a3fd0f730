"""Activations' scalar duals as compiled row functions, which the fused loops call as first-class functions.

A layer declares its dual on floats, ``scalar(cov, var1, var2) -> (E, Edot)`` (:class:`~ntk_helpers.engine.rules.Dual`).
:func:`row_function` compiles it into a loop over one row of a kernel,

    row(cov, theta, var1, var2):   cov[q], theta[q] = E(cov[q]; var1, var2[q]), Edot(...) * theta[q]   (in place)

with the scalar inlined (so the loop vectorizes when the dual is branch-free), and gives it the fixed numba type
:data:`ROW`. The fused functions (:mod:`.vectors`, :mod:`.images`) take a typed list of such functions
(:func:`row_functions`) and call the one of each layer through its address, once per row of a pair's kernel: one
compiled fused function serves every activation, it stays in numba's disk cache, and an activation registered later
is compiled on its own (a fraction of a second, cached on disk too) without any change here. (A typed list rather
than a tuple: numba types a tuple of functions anew at every call and warns each time that first-class functions
are "experimental"; a typed list carries its type. The first list in a process costs about 0.3 s.)

numba's disk cache keys a closure by its captured values, and a module-level function is captured by name; so the
captured ``fingerprint`` (the bytecode and constants of the scalar and of the helpers it calls) makes an edited
dual compile afresh instead of loading stale machine code.
"""

from __future__ import annotations

import functools
import hashlib
import marshal

from .. import rules
from ._numba import njit, numba

if numba is not None:
    from numba import types
    from numba.extending import register_jitable

    #: The numba type of a row function: (cov, theta, var1, var2) -> None, contiguous float64 rows.
    ROW = types.void(types.float64[::1], types.float64[::1], types.float64, types.float64[::1])
else:                                                    # pragma: no cover - numba is a dependency
    ROW = None

_REGISTERED: set = set()


def _register(function) -> None:
    """Make a plain-Python function callable (inlined) from compiled code, once."""
    if function not in _REGISTERED:
        register_jitable(inline="always")(function)
        _REGISTERED.add(function)


def _fingerprint(scalar) -> int:
    """A hash of the code a scalar dual runs: its bytecode and constants, its closure's values, and the same for
    every function its globals name (helpers such as :func:`~ntk_helpers.engine.rules.angle`), one level deep."""
    digest = hashlib.sha256()

    def add(function):
        code = getattr(function, "__code__", None)
        if code is None:
            digest.update(repr(function).encode())
            return
        digest.update(marshal.dumps(code))
        for cell in function.__closure__ or ():
            digest.update(repr(cell.cell_contents).encode())

    add(scalar)
    names = getattr(getattr(scalar, "__code__", None), "co_names", ())
    for name in sorted(set(names)):
        value = getattr(scalar, "__globals__", {}).get(name)
        if callable(value) and hasattr(value, "__code__"):
            add(value)
    return int.from_bytes(digest.digest()[:7], "little")


@functools.lru_cache(maxsize=None)
def row_function(scalar):
    """The compiled row function of a scalar dual (one per dual and process; numba caches it on disk)."""
    for helper in rules.jitable_helpers():
        _register(helper)
    _register(scalar)
    fingerprint = _fingerprint(scalar)

    def row(cov, theta, var1, var2):
        if fingerprint < 0:                              # never: the fingerprint is in numba's cache key
            return
        for q in range(cov.shape[0]):
            e, e_dot = scalar(cov[q], var1, var2[q])
            cov[q] = e
            theta[q] = e_dot * theta[q]

    return njit(ROW, nogil=True, error_model="numpy")(row)


_NO_DUALS = []
_FAILED: dict = {}


class DualDoesNotCompile(Exception):
    """A scalar dual that numba cannot compile (the kernel then takes the eager path, with the torch closed form)."""


def row_functions(scalars):
    """A numba typed list of the row functions of ``scalars`` (the one empty list is made once per process).

    Raises :class:`DualDoesNotCompile` naming the first scalar dual that numba cannot compile (remembered, so that
    it is tried once per process)."""
    from numba.typed import List
    if not scalars:
        if not _NO_DUALS:
            _NO_DUALS.append(List.empty_list(types.FunctionType(ROW)))
        return _NO_DUALS[0]
    functions = List.empty_list(types.FunctionType(ROW))
    for scalar in scalars:
        if scalar not in _FAILED:
            try:
                functions.append(row_function(scalar))
                continue
            except Exception as err:                     # numba's typing and lowering errors
                first = next((line for line in str(err).splitlines() if line.strip()), type(err).__name__)
                name = getattr(scalar, "__qualname__", repr(scalar))
                _FAILED[scalar] = f"the scalar_dual {name} does not compile with numba ({first.strip()})"
        raise DualDoesNotCompile(_FAILED[scalar])
    return functions


__all__ = ["ROW", "row_function", "row_functions", "DualDoesNotCompile"]
