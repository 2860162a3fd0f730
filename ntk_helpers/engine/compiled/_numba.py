"""numba, when it is installed (a dependency; without it every kernel takes the eager path)."""

try:
    import numba
except ImportError:                                      # pragma: no cover - numba is a dependency
    numba = None
