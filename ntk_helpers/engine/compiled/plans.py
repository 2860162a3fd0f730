"""What the compiled paths cover, read from the layers' pair rules (:mod:`~ntk_helpers.engine.rules`): from an
architecture and its inputs, a :class:`VectorPlan` (an MLP), a :class:`Plan` (a pooled CNN of one fast layout:
convolutions of one filter size, stride 1, zero "same" padding, each with at most one activation), a
:class:`Program` (any other pooled CNN of closed-form layers), or the reason why not.

Nothing here knows a layer class: a plan is assembled from each layer's ``pair_rule()`` (weight layers as
:class:`~ntk_helpers.engine.rules.Affine`, activations as :class:`~ntk_helpers.engine.rules.Dual`, pooling,
normalization, residual blocks and the readout as the other records), the layers themselves only named in
messages."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .. import planning, rules
from ..spatial import conv_output_size, conv_padding
from ._numba import numba

#: ``kind`` of a step: the dual after its weight layer (none, the arc-cosine kernel of a piecewise-linear
#: activation, or a compiled scalar dual).
LINEAR, PIECEWISE, SCALAR = 0, 1, 2


@dataclass(frozen=True)
class Steps:
    """The weight layers (each followed by at most one activation) as arrays for the compiled functions.

    ``sigma_w2``, ``sigma_b2``: (L,) per weight layer; ``kind``: (L,) what follows it (:data:`LINEAR`,
    :data:`PIECEWISE`, :data:`SCALAR`). For a piecewise-linear phi = a min(x, 0) + b max(x, 0) the dual is
    E = jump * r + Edot * Sigma with Edot = mean_slope_sq - jump * angle, jump = (a - b)^2 / (2 pi),
    mean_slope_sq = (a^2 + b^2) / 2 (``jump``, ``mean_slope_sq``: (L,); a = b = 1 for the other kinds). For a
    scalar dual ``duals[dual_index[l]]`` is its compiled row function (:mod:`.duals`: a numba typed list).
    ``weights``: (index in the sequence, layer) of each weight layer, for error messages; ``stop``: the
    index of the first layer the compiled function does not compute (the eager rules take over there)."""

    sigma_w2: np.ndarray
    sigma_b2: np.ndarray
    kind: np.ndarray
    jump: np.ndarray
    mean_slope_sq: np.ndarray
    dual_index: np.ndarray
    duals: object
    weights: tuple
    stop: int


@dataclass(frozen=True)
class Plan(Steps):
    """A pooled CNN: convolutions of one filter size, stride 1 and zero "same" padding ``pads`` = (top, left),
    then ``global_avg_pool()`` at index ``stop - 1``."""

    kernel_size: tuple[int, int] = (1, 1)
    pads: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class VectorPlan(Steps):
    """An MLP: dense layers (NTK parameterization) on vectors, every layer of the sequence."""


#: Operations of a :class:`Program` (``code[k, 0]``).
SHARED, POOL, AFFINE, DUAL_PIECEWISE, DUAL_SCALAR, NORMALIZE, SCALE, PUSH, POP_ADD, DIAGONAL = range(10)
#: ``Program.shift`` of a tap whose reads are not one contiguous shift.
GATHER = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Program:
    """Any pooled CNN of closed-form layers before ``global_avg_pool()``, as a program that :mod:`.programs` runs
    on the pixel pairs of one pair of images: one row ``code[k]`` (ints) and ``values[k]`` (floats) per operation.

    A convolution is two :data:`SHARED` passes (along x, then along y: ``out[o, o'] = sum_t valid[t, o] valid[t, o']
    in[src[t, o], src[t, o']]``, the offsets t shared by both positions, with the conv's stride, dilation and zero
    or circular padding in the tables ``src``, ``valid``), the second followed by the affine map (``code[k, 7] = 1``,
    ``values[k]`` = (sigma_w^2 / |S|, sigma_b^2), as :data:`AFFINE` does) on each row as it is done; average
    pooling is two :data:`POOL` passes (the window's taps independent on the two sides); activations are
    :data:`DUAL_PIECEWISE` (jump, mean_slope_sq) or :data:`DUAL_SCALAR` (``duals[code[k, 3]]``), layer norm
    :data:`NORMALIZE` (eps), frozen batch norm :data:`SCALE` (divisor), a residual block :data:`PUSH` ... its
    branch ... :data:`POP_ADD` (alpha^2). Duals and layer norm read the variances of variance slot ``code[k, 2]``
    (``slots`` of them, of at most ``positions`` pixels), which the pairs (i, i) record first. ``code[k, 1]`` is
    the number of pixel positions before the operation (and ``code[k, 2]`` after it for passes); ``size`` the most
    entries of a buffer, ``levels`` the deepest nesting of residual blocks. ``slot_layers``: (index, layer) of the
    weight layer before each slot (error messages); ``last_weight``: of the last weight layer.

    ``shift[code[k, 5] + t]`` is, for a pass whose tap t reads ``src[t, o] = o + shift`` wherever it is valid (stride
    1), that shift (the pass then reads contiguous memory instead of gathering), else :data:`GATHER`; the buffers
    have ``pad`` zero entries before and after, so that such shifted reads stay inside them.

    Before a ``flatten()`` readout only the pairs p = p' count (:mod:`~ntk_helpers.engine.planning`): from the
    operation :data:`DIAGONAL` on (or from the inputs when ``start_diagonal``) the buffers hold the P same-position
    pairs only, and the operations marked ``code[k, 6] = 1`` act on those (a conv pass reads ``in[src[t, o]]``); the
    readout is then the mean over them (``flatten_readout``) instead of over all P^2 pairs."""

    code: np.ndarray
    values: np.ndarray
    src: np.ndarray
    valid: np.ndarray
    shift: np.ndarray
    pad: int
    duals: object
    slots: int
    positions: int
    size: int
    levels: int
    slot_layers: tuple
    last_weight: tuple
    stop: int
    start_diagonal: bool = False
    flatten_readout: bool = False
    end_diagonal: bool = False


def plan(layer, x1: torch.Tensor, x2: torch.Tensor | None) -> tuple[Plan | Program | VectorPlan | None, str]:
    """A plan when the compiled path computes ``layer.kernel(x1, x2)`` (for the layers of ``layer.sequence()``),
    else ``(None, why not)``."""
    if numba is None:
        return None, "numba is not installed"
    if x1.device.type != "cpu" or (x2 is not None and x2.device.type != "cpu"):
        return None, "the inputs are not on the CPU"
    if x1.dtype != torch.float64:
        return None, "pair_dtype is not float64"
    sequence = layer.sequence()
    steps = [l.pair_rule() for l in sequence]
    if x1.ndim == 2:
        return _vector_plan(sequence, steps)
    readout = next((i for i, r in enumerate(steps) if isinstance(r, rules.Readout)), None)
    if readout is None:
        return None, "the architecture has no global_avg_pool() or flatten() readout at its top level"
    if steps[readout].kind == "flatten":
        return _program(sequence, steps, readout, tuple(x1.shape[2:]))
    found = _steps(sequence[:readout], steps[:readout], _conv_ok, "before the readout: only conv(...) layers")
    if not isinstance(found, str) and found["weights"]:
        kh, kw = steps[found["weights"][0][0]].kernel_size
        found["kind"] = np.where(found["kind"] == LINEAR, PIECEWISE, found["kind"])   # no activation: a = b = 1
        return Plan(**found, stop=readout + 1, kernel_size=(kh, kw), pads=((kh - 1) // 2, (kw - 1) // 2)), ""
    return _program(sequence, steps, readout, tuple(x1.shape[2:]))


def _vector_plan(sequence, steps) -> tuple[VectorPlan | None, str]:
    found = _steps(sequence, steps, _dense_ok, "on vectors: only dense(..., parameterization='ntk') layers")
    if isinstance(found, str):
        return None, found
    return VectorPlan(**found, stop=len(sequence)), ""


def _compiled_duals(scalars):
    """The typed list of row functions of ``scalars``, or why not (a dual numba cannot compile)."""
    from .duals import DualDoesNotCompile, row_functions
    try:
        return row_functions(scalars)
    except DualDoesNotCompile as why:
        return str(why)


def _conv_ok(rule: rules.Affine, first: rules.Affine | None) -> str | None:
    if not rule.kernel_size:
        return "a dense layer before the readout"
    if rule.stride != (1, 1) or rule.dilation != (1, 1) or rule.padding != "same":
        return "only stride 1, dilation 1 and padding 'same'"
    if first is not None and rule.kernel_size != first.kernel_size:
        return "the convolutions have different kernel sizes"
    return None


def _dense_ok(rule: rules.Affine, first: rules.Affine | None) -> str | None:
    return "a convolution on vectors" if rule.kernel_size else None


def _steps(layers, steps, weight_ok, what: str):
    """The arrays of :class:`Steps` (a dict), or why the layers do not fit."""
    weights, duals = [], []                      # (index, layer, Affine); the Dual after each, or None
    for index, (layer, rule) in enumerate(zip(layers, steps)):
        if isinstance(rule, rules.Affine):
            problem = weight_ok(rule, weights[0][2] if weights else None)
            if problem is not None:
                return f"{layer!r}: {problem}"
            weights.append((index, layer, rule))
            duals.append(None)
        elif isinstance(rule, rules.Dual) and duals and duals[-1] is None:
            duals[-1] = rule
        elif isinstance(rule, rules.Unsupported):
            return rule.reason
        else:
            return f"{layer!r} {what}, each followed by at most one activation with a closed-form dual"
    return _arrays(weights, duals)


def _arrays(weights, duals) -> dict | str:
    kind, ab, dual_index, functions = [], [], [], []
    for dual in duals:
        if dual is None:
            kind.append(LINEAR)
            ab.append((1.0, 1.0))
            dual_index.append(0)
        elif dual.piecewise_linear is not None:
            kind.append(PIECEWISE)
            ab.append(dual.piecewise_linear)
            dual_index.append(0)
        else:
            kind.append(SCALAR)
            ab.append((1.0, 1.0))
            if dual.scalar not in functions:
                functions.append(dual.scalar)
            dual_index.append(functions.index(dual.scalar))
    a, b = (np.array(v, dtype=np.float64) for v in zip(*ab)) if ab else (np.zeros(0), np.zeros(0))
    compiled_duals = _compiled_duals(functions)
    if isinstance(compiled_duals, str):
        return compiled_duals
    return dict(sigma_w2=np.array([rule.sigma_w2 for _, _, rule in weights], dtype=np.float64),
                sigma_b2=np.array([rule.sigma_b2 for _, _, rule in weights], dtype=np.float64),
                kind=np.array(kind, dtype=np.int64), jump=(a - b) ** 2 / (2 * math.pi),
                mean_slope_sq=(a * a + b * b) / 2,
                dual_index=np.array(dual_index, dtype=np.int64),
                duals=compiled_duals,
                weights=tuple((index, layer) for index, layer, _ in weights))


# -- any pooled CNN of closed-form layers: a Program -------------------------------------------------------------

class _NoProgram(Exception):
    """Why a layer cannot be part of a :class:`Program`."""


class _Builder:
    def __init__(self):
        self.code, self.values, self.src, self.valid, self.shift = [], [], [], [], []
        self.pad = 0
        self.scalars, self.slot_layers, self.last_weight = [], [], None
        self.size, self.depth, self.levels = 1, 0, 0
        self.diagonal, self.switch = False, None

    def op(self, kind, positions, a=0, b=0, c=0, values=(0.0, 0.0), d=0, then_affine=False):
        self.code.append([kind, positions, a, b, c, d, int(self.diagonal), int(then_affine)])
        self.values.append(list(values))
        if not self.diagonal:
            self.size = max(self.size, positions * positions, a * a if kind in (SHARED, POOL) else 0)

    def table(self, src, valid) -> tuple[int, int]:
        """Append (taps, positions) tables; returns their offset and that of their taps' shifts."""
        offset, shifts = sum(t.size for t in self.src), len(self.shift)
        src = np.array(src, dtype=np.int64).reshape(len(src), -1)
        valid = np.ascontiguousarray(valid, dtype=np.float64).reshape(len(src), -1)
        for t in range(len(src)):
            moved = (src[t] - np.arange(src.shape[1]))[valid[t] > 0]
            uniform = moved.size > 0 and (moved == moved[0]).all()
            self.shift.append(int(moved[0]) if uniform else GATHER)
            if uniform:
                self.pad = max(self.pad, abs(int(moved[0])))
        self.src.append(src.reshape(-1))
        self.valid.append(valid.reshape(-1))
        return offset, shifts

    def slot(self) -> int:
        if self.last_weight is None:
            raise _NoProgram("an activation or normalization before the first convolution")
        self.slot_layers.append(self.last_weight)
        return len(self.slot_layers) - 1

    def layers(self, layers, steps, space, top):
        for index, (layer, rule) in enumerate(zip(layers, steps)):
            if top is None and index == self.switch and index > 0:    # same-position pairs from here on
                self.op(DIAGONAL, space[0] * space[1])
                self.diagonal = True
            space = self.layer(top if top is not None else index, layer, rule, space)
        return space

    def layer(self, index, layer, rule, space):
        (height, width), positions = space, space[0] * space[1]
        if isinstance(rule, rules.Unsupported):
            raise _NoProgram(rule.reason)
        if isinstance(rule, rules.Affine):
            if not rule.kernel_size:
                raise _NoProgram(f"{layer!r}: a dense layer before the readout")
            out = self.conv(rule, height, width,
                            (rule.sigma_w2 / (rule.kernel_size[0] * rule.kernel_size[1]), rule.sigma_b2))
            self.last_weight = (index, layer)
            return out
        if isinstance(rule, rules.Dual):
            if rule.piecewise_linear is not None:
                a, b = rule.piecewise_linear
                self.op(DUAL_PIECEWISE, positions, self.slot(),
                        values=((a - b) ** 2 / (2 * math.pi), (a * a + b * b) / 2))
            else:
                if rule.scalar not in self.scalars:
                    self.scalars.append(rule.scalar)
                self.op(DUAL_SCALAR, positions, self.slot(), self.scalars.index(rule.scalar))
            return space
        if isinstance(rule, rules.Pool):
            if self.diagonal:
                raise _NoProgram(f"{layer!r} mixes positions, after the same-position pairs began")
            return self.pool(layer, rule, height, width)
        if isinstance(rule, rules.Normalize):
            self.op(NORMALIZE, positions, self.slot(), values=(rule.eps, 0.0))
            return space
        if isinstance(rule, rules.Scale):
            self.op(SCALE, positions, values=(rule.divisor, 0.0))
            return space
        if isinstance(rule, rules.Residual):
            level = self.depth
            self.depth += 1
            self.levels = max(self.levels, self.depth)
            self.op(PUSH, positions, level)
            out = self.layers([layer] * len(rule.branch), rule.branch, space, index)   # (named as the block)
            if out != space:
                raise _NoProgram(f"{layer!r}: the branch maps the image size {space} to {out}")
            self.op(POP_ADD, positions, level, values=(rule.alpha2, 0.0))
            self.depth -= 1
            return space
        raise _NoProgram(f"{layer!r} before the readout: not compiled ({type(rule).__name__})")

    def conv(self, rule, height, width, affine):
        """Two shared passes: along x on (H, W) -> (H, W'), then along y on (H, W') -> (H', W') and the ``affine``
        map (sigma_w^2 / |S|, sigma_b^2) on each row of the result as it is done."""
        circular = rule.padding == "circular"
        axes = []
        for size, k, s, d in zip((height, width), rule.kernel_size, rule.stride, rule.dilation):
            before, after = conv_padding(size, k, d, rule.padding)
            out = conv_output_size(size, k, s, d, (before, after))
            if out < 1:
                raise _NoProgram(f"the filter of a conv (kernel_size {rule.kernel_size}, dilation {rule.dilation}) "
                                 f"does not fit the {(height, width)} image it gets")
            source = s * np.arange(out)[None, :] + d * np.arange(k)[:, None] - before          # (taps, out)
            valid = np.ones(source.shape) if circular else ((source >= 0) & (source < size)).astype(np.float64)
            axes.append((out, np.where(valid > 0, source % size, 0), valid))
        (out_h, iy, valid_y), (out_w, ix, valid_x) = axes
        # along x: o = (y, x'), from (y, ix[t, x'])
        src = np.arange(height)[None, :, None] * width + ix[:, None, :]
        offset, shifts = self.table(src, np.broadcast_to(valid_x[:, None, :], src.shape))
        self.op(SHARED, height * width, height * out_w, len(ix), offset, d=shifts)
        # along y: o = (y', x'), from (iy[t, y'], x')
        src = iy[:, :, None] * out_w + np.arange(out_w)[None, None, :]
        offset, shifts = self.table(src, np.broadcast_to(valid_y[:, :, None], src.shape))
        self.op(SHARED, height * out_w, out_h * out_w, len(iy), offset, d=shifts, values=affine, then_affine=True)
        return out_h, out_w

    def pool(self, layer, rule, height, width):
        (wh, ww), (sh, sw) = rule.window, rule.stride
        out_h, out_w = (height - wh) // sh + 1, (width - ww) // sw + 1
        if min(out_h, out_w) < 1:
            raise _NoProgram(f"{layer!r}: the window is larger than the {(height, width)} image")
        src = np.stack([[y * width + sw * xo + t for y in range(height) for xo in range(out_w)] for t in range(ww)])
        offset, _ = self.table(src, np.ones(src.shape))
        self.op(POOL, height * width, height * out_w, ww, offset, values=(1.0 / ww, 0.0))
        src = np.stack([[(sh * yo + t) * out_w + xo for yo in range(out_h) for xo in range(out_w)] for t in range(wh)])
        offset, _ = self.table(src, np.ones(src.shape))
        self.op(POOL, height * out_w, out_h * out_w, wh, offset, values=(1.0 / wh, 0.0))
        return out_h, out_w


def _program(sequence, steps, readout, space) -> tuple[Program | None, str]:
    build = _Builder()
    build.size = (space[0] * space[1]) ** 2
    flatten = steps[readout].kind == "flatten"
    if flatten:
        build.switch = planning.same_position_start(sequence[:readout + 1])
        build.diagonal = build.switch == 0
        if build.diagonal:
            build.size = space[0] * space[1]
    try:
        build.layers(sequence[:readout], steps[:readout], space, None)
    except _NoProgram as why:
        return None, str(why)
    if build.last_weight is None:
        return None, "no convolution before the readout"
    positions = max([space[0] * space[1]] + [row[1] for row in build.code])
    duals = _compiled_duals(build.scalars)
    if isinstance(duals, str):
        return None, duals
    empty = np.zeros(0)
    return Program(code=np.array(build.code, dtype=np.int64), values=np.array(build.values, dtype=np.float64),
                   src=np.concatenate(build.src) if build.src else empty.astype(np.int64),
                   valid=np.concatenate(build.valid) if build.valid else empty,
                   shift=np.array(build.shift + [GATHER], dtype=np.int64), pad=build.pad,
                   duals=duals, slots=len(build.slot_layers), positions=positions,
                   size=build.size, levels=build.levels, slot_layers=tuple(build.slot_layers),
                   last_weight=build.last_weight, stop=readout + 1, start_diagonal=flatten and build.switch == 0,
                   flatten_readout=flatten, end_diagonal=build.diagonal), ""
