"""numba, when it is installed (a dependency; without it every kernel takes the eager path), and :func:`njit`.

numba keeps compiled machine code on disk so that a later process loads it in under a second instead of compiling
for seconds. It looks for a writable place in order: ``NUMBA_CACHE_DIR`` if set, the ``__pycache__`` folder next
to the package's sources (the checkout, or a writable site-packages), then the user's cache folder
(``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``; how a read-only site-packages is handled). Where none is
writable, ``numba.njit(cache=True)`` raises at decoration time; :func:`njit` then compiles without a disk cache,
so the compiled path still works, it only compiles again in every process (tests/test_installed.py runs a kernel
so, as an unprivileged user with a read-only installation and no writable home).
"""

from __future__ import annotations

try:
    import numba
except ImportError:                                      # pragma: no cover - numba is a dependency
    numba = None


def njit(*signature, **options):
    """``numba.njit(*signature, cache=True, **options)`` where numba finds a writable cache folder, else without
    the cache."""

    def decorate(function):
        try:
            return numba.njit(*signature, cache=True, **options)(function)
        except RuntimeError as err:                      # "cannot cache function ...: no locator available"
            if "cannot cache" not in str(err):
                raise
            return numba.njit(*signature, cache=False, **options)(function)

    return decorate
