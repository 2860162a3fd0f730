"""Checks for the autograded exercises (``solutions/chapter4``): accept any reasonable answer format.

A student may return a torch tensor of any float dtype, a numpy array, a (nested) list or tuple of numbers, a
0-d tensor or a plain number wherever an exercise asks for numbers. The tests convert the answer with these
functions and compare it with a reference; a wrong type or shape raises an error that names the function's
return value and what was expected, so the feedback says what to fix. Every message is bilingual,
"English / 中文", for the students of the Chinese edition.

    from ntk_helpers.course.grading import as_float64, as_scalar, unpack, check_close

    nngp, ntk = unpack(mlp_kernels(x1, x2, 3, "relu", 2.0, 0.0), 2, name="mlp_kernels(...)")
    ntk = as_float64(ntk, name="the ntk of mlp_kernels(...)", shape=(4, 5))
    check_close(ntk, reference, rtol=1e-8, name="the ntk of mlp_kernels(x1, x2, 3, 'relu', 2.0, 0.0)")

``forbid`` makes "do not call X in your answer" checkable: run the student's function inside
``with forbid((nh.Layer, "kernel"), ...):`` after computing the references.

The interface (names, arguments, exceptions) is stable: exercises 4.1-4.9 and ``tests/grading_cases`` use it.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from numbers import Number

import numpy as np
import torch

__all__ = ["as_float64", "as_scalar", "unpack", "check_close", "forbid"]

_ACCEPTED = "a torch tensor (any float dtype), a numpy array or a list of numbers"
_ACCEPTED_ZH = "torch 张量（任意浮点类型）、numpy 数组或数字列表"


def _shape_text(shape) -> str:
    items = ", ".join("any" if s is None else str(s) for s in shape)
    return f"({items},)" if len(shape) == 1 else f"({items})"


def _to_tensor(value, name: str) -> torch.Tensor:
    if value is None:
        raise TypeError(f"{name} is None: did the function forget to `return` its result? "
                        f"Expected {_ACCEPTED}. / {name} 为 None：函数是否忘了用 `return` 返回结果？"
                        f"应为 {_ACCEPTED_ZH}。")
    if isinstance(value, torch.Tensor):
        t = value.detach()
        if t.is_complex():
            raise TypeError(f"{name} is a complex tensor ({t.dtype}); expected real numbers (take .real?) / "
                            f"{name} 是复数张量（{t.dtype}）；应为实数（取 .real？）")
        if t.dtype == torch.bool:
            raise TypeError(f"{name} is a boolean tensor; expected {_ACCEPTED} / "
                            f"{name} 是布尔张量；应为 {_ACCEPTED_ZH}")
        return t.to(device="cpu", dtype=torch.float64)
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        if np.iscomplexobj(array):
            raise TypeError(f"{name} is a complex array ({array.dtype}); expected real numbers "
                            f"(take .real?) / {name} 是复数数组（{array.dtype}）；应为实数（取 .real？）")
        if array.dtype == bool or array.dtype.kind not in "iuf":
            raise TypeError(f"{name} is a numpy array of dtype {array.dtype}; expected {_ACCEPTED} / "
                            f"{name} 是 dtype 为 {array.dtype} 的 numpy 数组；应为 {_ACCEPTED_ZH}")
        return torch.from_numpy(np.array(array, dtype=np.float64))
    if isinstance(value, (list, tuple)):
        if len(value) == 0:
            return torch.zeros(0, dtype=torch.float64)
        parts = [_to_tensor(item, f"{name}[{i}]") for i, item in enumerate(value)]
        shapes = {tuple(p.shape) for p in parts}
        if len(shapes) != 1:
            raise TypeError(f"{name} is a ragged list (items of shapes {sorted(shapes)}); "
                            f"expected {_ACCEPTED} / "
                            f"{name} 是参差不齐的列表（各项的形状为 {sorted(shapes)}）；应为 {_ACCEPTED_ZH}")
        return torch.stack(parts)
    if isinstance(value, bool) or not isinstance(value, Number):
        raise TypeError(f"{name} is a {type(value).__name__}; expected {_ACCEPTED} / "
                        f"{name} 的类型是 {type(value).__name__}；应为 {_ACCEPTED_ZH}")
    if isinstance(value, complex):
        raise TypeError(f"{name} is a complex number; expected a real number / {name} 是复数；应为实数")
    return torch.tensor(float(value), dtype=torch.float64)


def as_float64(value, name: str = "the returned value", shape=None, *, finite: bool = True) -> torch.Tensor:
    """``value`` as a float64 CPU torch tensor (detached), with its shape checked.

    Accepts torch tensors of any real dtype (float32 included), numpy arrays, numpy scalars, Python numbers
    and (nested) lists or tuples of these. ``shape`` is a tuple whose entries are ints or ``None`` (any
    size); a mismatch raises ``AssertionError`` naming ``name`` and both shapes. Other types raise
    ``TypeError``.
    With ``finite=True`` (the default) NaN or infinite entries raise ``AssertionError``.
    """
    t = _to_tensor(value, name)
    if shape is not None:
        shape = tuple(shape)
        ok = t.ndim == len(shape) and all(s is None or s == n for s, n in zip(shape, t.shape))
        if not ok:
            raise AssertionError(f"{name} has shape {_shape_text(tuple(t.shape))}; expected shape "
                                 f"{_shape_text(shape)} / {name} 的形状是 {_shape_text(tuple(t.shape))}；"
                                 f"应为 {_shape_text(shape)}")
    if finite and t.numel() and not bool(torch.isfinite(t).all()):
        bad = int((~torch.isfinite(t)).sum())
        raise AssertionError(f"{name} contains {bad} NaN or infinite entries (of {t.numel()}) / "
                             f"{name} 含有 {bad} 个 NaN 或无穷大的元素（共 {t.numel()} 个）")
    return t


def as_scalar(value, name: str = "the returned value", *, finite: bool = True) -> float:
    """``value`` as a Python float: a number, a numpy scalar, a 0-d or one-element tensor/array/list."""
    t = as_float64(value, name, finite=finite)
    if t.numel() != 1:
        raise AssertionError(f"{name} has shape {_shape_text(tuple(t.shape))}; expected a single number / "
                             f"{name} 的形状是 {_shape_text(tuple(t.shape))}；应为单个数")
    return float(t.reshape(()))


def unpack(value, count: int, name: str = "the returned value") -> tuple:
    """``value`` as a tuple of ``count`` items: accepts a tuple or a list of that length (not a tensor)."""
    if isinstance(value, (tuple, list)) and len(value) == count:
        return tuple(value)
    what = (f"a {type(value).__name__} of length {len(value)}" if isinstance(value, (tuple, list))
            else "None (a missing `return`?)" if value is None else f"a {type(value).__name__}")
    what_zh = (f"长度为 {len(value)} 的 {type(value).__name__}" if isinstance(value, (tuple, list))
               else " None（漏了 `return`？）" if value is None else f" {type(value).__name__} 类型")
    raise TypeError(f"{name} is {what}; expected a tuple of {count} results / "
                    f"{name} 是{what_zh}；应为含 {count} 个结果的元组")


def check_close(actual, expected, *, rtol: float, atol: float = 0.0,
                name: str = "the returned value") -> torch.Tensor:
    """Assert ``|actual - expected| <= atol + rtol * |expected|`` entrywise; return ``actual`` as float64.

    ``actual`` may have any accepted format (see ``as_float64``) and must have the shape of ``expected``. The
    ``AssertionError`` names ``name``, counts the entries out of tolerance and shows the worst one.
    """
    reference = as_float64(expected, "the reference", finite=False)
    got = as_float64(actual, name, shape=tuple(reference.shape))
    error = (got - reference).abs()
    allowed = atol + rtol * reference.abs()
    bad = ~(error <= allowed)
    if bool(bad.any()):
        excess = torch.where(bad, error - allowed, torch.zeros_like(error)).flatten()
        worst = int(torch.argmax(excess))
        index = tuple(int(i) for i in np.unravel_index(worst, tuple(reference.shape)))
        g, r = float(got.flatten()[worst]), float(reference.flatten()[worst])
        relative = abs(g - r) / abs(r) if r else math.inf
        where = f" at index {index}" if index else ""
        where_zh = f"（位置 {index}）" if index else ""
        raise AssertionError(f"{name}: {int(bad.sum())} of {bad.numel()} entries differ from the reference "
                             f"(tolerance rtol={rtol:g}, atol={atol:g}); worst{where}: got {g:.10g}, "
                             f"expected {r:.10g} (relative error {relative:.2e}) / "
                             f"{name}：{bad.numel()} 个元素中有 {int(bad.sum())} 个与参考值不符"
                             f"（容差 rtol={rtol:g}，atol={atol:g}）；偏差最大的元素{where_zh}："
                             f"得到 {g:.10g}，应为 {r:.10g}（相对误差 {relative:.2e}）")
    return got


def check_kernel(actual, expected, name: str = "the returned value", *, rtol: float = 1e-6,
                 floor: float = 1e-7) -> torch.Tensor:
    """Exercises 4.1-4.3's comparison of kernel values: entrywise ``|actual - expected| <= rtol |expected| +
    floor max|expected|`` (``check_close`` with ``atol = floor * max|expected|``). The floor is there because
    arccos is ill-conditioned at correlation +-1: correct float64 formulas differ there by a few 1e-9 of the scale
    (measured in the exercises' tests)."""
    reference = as_float64(expected, "the reference", finite=False)
    return check_close(actual, reference, rtol=rtol, atol=floor * float(reference.abs().max()), name=name)


@contextmanager
def forbid(*targets, why: str = "this exercise asks you to compute it yourself / 本题要求你自己计算它"):
    """Inside the block, calling any of ``targets`` raises ``AssertionError``; restored afterwards.

    ``why`` is given as "English / 中文" (split at the first " / "); a reason in one language only is
    used in both halves of the message.

    ``targets`` are ``(owner, "attribute")`` pairs: a class and a method name (``(nh.Layer, "kernel")``,
    inherited methods included) or a module and a function name (``(nh, "mlp_kernels_by_depth")``).
    Compute the references before entering the block.
    """
    why_en, _, why_zh = why.partition(" / ")
    why_zh = why_zh or why_en
    saved = []
    for owner, attribute in targets:
        label = f"{getattr(owner, '__name__', owner)}.{attribute}"

        def refuse(*args, _label=label, **kwargs):
            raise AssertionError(f"your answer calls {_label}: {why_en} / 你的答案调用了 {_label}：{why_zh}")

        own = attribute in vars(owner)
        saved.append((owner, attribute, own, vars(owner).get(attribute)))
        setattr(owner, attribute, refuse)
    try:
        yield
    finally:
        for owner, attribute, own, original in reversed(saved):
            if own:
                setattr(owner, attribute, original)
            else:
                delattr(owner, attribute)
