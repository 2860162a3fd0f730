"""Argument checks shared by the package: every bad input gets a clear, named error."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import torch

DTYPE = torch.float64


def check_int(name: str, value, *, minimum: int) -> int:
    """Return ``value`` as an int, or raise naming ``name`` and the allowed range."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_nonnegative(name: str, value) -> float:
    """Return ``value`` as a float, or raise if it is not a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number >= 0, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value}")
    return value


def check_choice(name: str, value, allowed) -> str:
    """Return ``value`` if it is one of ``allowed`` (strings), else raise listing them."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {sorted(allowed)}, got {value!r}")
    if value not in allowed:
        raise ValueError(f"unknown {name} {value!r}; allowed values: {', '.join(sorted(allowed))}")
    return value


def as_tensor(name: str, x, *, ndim: int | tuple[int, ...] | None = None) -> torch.Tensor:
    """Convert ``x`` (tensor, array or nested list) to a finite float64 tensor with checks. Complex values are an
    error (casting would silently drop the imaginary part)."""
    if isinstance(x, torch.Tensor):
        if x.is_complex():
            raise TypeError(_complex_message(name, x.dtype))
        t = x.detach().to(DTYPE)
    elif isinstance(x, (np.ndarray, list, tuple)):
        array = np.asarray(x) if not isinstance(x, np.ndarray) else x
        if np.iscomplexobj(array):
            raise TypeError(_complex_message(name, array.dtype))
        try:
            t = torch.as_tensor(np.asarray(array, dtype=np.float64))
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be numeric, got {type(x).__name__}") from err
    else:
        raise TypeError(f"{name} must be a torch.Tensor or numpy array, got {type(x).__name__}")
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if ndim is not None and t.ndim not in allowed:
        forms = {2: "2 dimensions (n, features)", 4: "4 dimensions (n, C, H, W)"}
        wanted = " or ".join(forms.get(a, f"{a} dimensions") for a in allowed)
        raise ValueError(f"{name} must have {wanted}, got shape {tuple(t.shape)}")
    if t.numel() == 0:
        raise ValueError(f"{name} is empty (shape {tuple(t.shape)})")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return t


def _complex_message(name: str, dtype) -> str:
    return (f"{name} must be real, got complex values (dtype {dtype}); kernels are defined for real inputs: "
            f"pass {name}.real, or stack real and imaginary parts as features")


def check_device(name: str, device) -> torch.device | None:
    """``device`` as a ``torch.device`` (None stays None), or a clear error where it is not available here."""
    if device is None:
        return None
    try:
        found = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"{name} must be a torch device such as 'cpu' or 'cuda', got {device!r}") from err
    if found.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{name}={device!r}: this machine has no CUDA device (torch.cuda.is_available() is False); "
                         "use device='cpu' or leave it out")
    if found.type == "cuda" and found.index is not None and found.index >= torch.cuda.device_count():
        raise ValueError(f"{name}={device!r}: there are {torch.cuda.device_count()} CUDA devices here "
                         f"(indices 0 to {torch.cuda.device_count() - 1})")
    if found.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"{name}={device!r}: this machine has no MPS device; use device='cpu' or leave it out")
    return found


def check_pair(x1, x2=None, *, ndim: int | tuple[int, ...] = 2) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Validate a pair of input batches; ``x2=None`` means "the same as x1"."""
    t1 = as_tensor("x1", x1, ndim=ndim)
    if x2 is None:
        return t1, None
    t2 = as_tensor("x2", x2, ndim=ndim)
    if t1.shape[1:] != t2.shape[1:]:
        raise ValueError(
            f"x1 and x2 must have the same feature shape, got {tuple(t1.shape[1:])} and {tuple(t2.shape[1:])}"
        )
    return t1, t2


def check_shape(name: str, value) -> tuple[int, ...]:
    """An input shape: an int d (vectors) or a tuple such as (d,) or (C, H, W), all >= 1."""
    shape = (value,) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(shape, tuple) or len(shape) not in (1, 3):
        raise ValueError(f"{name} must be an int d, a tuple (d,) or an image shape (C, H, W), got {value!r}")
    return tuple(check_int(name, s, minimum=1) for s in shape)


def check_pair_of_ints(name: str, value, *, minimum: int) -> tuple[int, int]:
    """An int or a (height, width) pair of ints, each >= minimum."""
    pair = (value, value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise TypeError(f"{name} must be an int or a pair (height, width) of ints, got {value!r}")
    return tuple(check_int(name, v, minimum=minimum) for v in pair)
