"""Convolutional kernels (chapter 4.2) against independent oracles and exact invariances."""

import itertools
import math

import pytest
import torch

import ntk_helpers as nh
from ntk_helpers import Conv
from ntk_helpers import Activation


@pytest.fixture
def images():
    g = torch.Generator().manual_seed(5)
    return torch.randn(4, 2, 6, 5, generator=g, dtype=torch.float64)      # (n, C, H, W), H != W


def brute_force_conv_nngp(x1, x2, k, stride, dilation, padding, sigma_w, sigma_b):
    """Sigma(x, x')_{p,p'} after one conv, by explicit loops over positions and offsets (Arora et al. 2019,
    eq. 7; lesson 03, section 4.2.1)."""
    n1, c, h, w = x1.shape
    pads = [nh.spatial.conv_padding(size, k, dilation, padding) for size in (h, w)]
    out = [(size + sum(p) - dilation * (k - 1) - 1) // stride + 1 for size, p in zip((h, w), pads)]

    def pixel(x, i, row, col):          # zero outside, or wrapped for circular padding
        if padding == "circular":
            return x[i, :, row % h, col % w]
        if 0 <= row < h and 0 <= col < w:
            return x[i, :, row, col]
        return torch.zeros(c, dtype=x.dtype)

    result = torch.zeros(n1, x2.shape[0], *out, *out, dtype=torch.float64)
    for i, j, a, b, a2, b2 in itertools.product(range(n1), range(x2.shape[0]), range(out[0]), range(out[1]),
                                                range(out[0]), range(out[1])):
        total = 0.0
        for u, v in itertools.product(range(k), range(k)):
            p = (a * stride + dilation * u - pads[0][0], b * stride + dilation * v - pads[1][0])
            q = (a2 * stride + dilation * u - pads[0][0], b2 * stride + dilation * v - pads[1][0])
            total += float(pixel(x1, i, *p) @ pixel(x2, j, *q))
        result[i, j, a, b, a2, b2] = sigma_w ** 2 * total / (c * k * k) + sigma_b ** 2
    return result


@pytest.mark.parametrize("k,stride,dilation,padding", [
    (3, 1, 1, "same"), (2, 1, 1, "same"), (3, 2, 1, "same"), (3, 1, 2, "same"),
    (3, 1, 1, "valid"), (2, 2, 1, "valid"), (3, 1, 1, "circular"), (3, 2, 1, "circular"),
])
def test_one_conv_layer_matches_explicit_loops(images, k, stride, dilation, padding):
    layer = nh.conv(kernel_size=k, stride=stride, dilation=dilation, padding=padding, sigma_w=1.3, sigma_b=0.4)
    kernel = layer.kernel(images[:2], images[2:])
    expected = brute_force_conv_nngp(images[:2], images[2:], k, stride, dilation, padding, 1.3, 0.4)
    torch.testing.assert_close(kernel.nngp, expected, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(kernel.ntk, expected, rtol=1e-12, atol=1e-12)     # first layer: Theta = Sigma


CNNS = {
    "gap-same": lambda: nh.serial(nh.conv(sigma_w=1.4, sigma_b=0.2), nh.relu(), nh.conv(kernel_size=2, sigma_w=1.4),
                                  nh.relu(), nh.global_avg_pool(), nh.dense(1, sigma_w=1.2, sigma_b=0.1)),
    "flatten-stride2": lambda: nh.serial(nh.conv(stride=2, sigma_w=1.4), nh.erf(), nh.conv(sigma_w=1.4, sigma_b=0.3),
                                         nh.relu(), nh.flatten(), nh.dense(1, sigma_w=1.2)),
    "avgpool-circular": lambda: nh.serial(nh.conv(padding="circular", dilation=2, sigma_w=1.4), nh.relu(),
                                          nh.avg_pool(2, 1), nh.conv(padding="valid", sigma_w=1.4), nh.relu(),
                                          nh.global_avg_pool(), nh.dense(1)),
}


@pytest.mark.parametrize("name", sorted(CNNS))
def test_finite_cnns_converge_to_the_analytic_ntk(images, name):
    arch = CNNS[name]()
    sweep = nh.width_sweep(arch, images, widths=[16, 64, 256, 1024], seeds=6)
    assert sweep.slope <= -0.35, sweep.errors
    analytic = arch.kernel(images).ntk
    assert float((sweep.mean_ntk[-1] - analytic).norm() / analytic.norm()) < 0.06


def test_cnn_empirical_nngp_matches_output_covariance(images):
    arch = nh.serial(nh.conv(sigma_w=1.4, sigma_b=0.2), nh.relu(), nh.avg_pool(2), nh.flatten(), nh.dense(1024))
    out = arch.network((2, 6, 5), width=2048, seed=0)(images).detach()
    analytic = arch.kernel(images).nngp
    assert float((out @ out.T / out.shape[1] - analytic).norm() / analytic.norm()) < 0.06


def shift(x, s):
    return torch.roll(x, shifts=s, dims=-1)


def test_gap_with_circular_padding_is_shift_invariant(images):
    """Theta(T_s x, x') = Theta(x, x') exactly with global average pooling (ERRATA.md A7; lesson 03)."""
    arch = nh.serial(nh.conv(padding="circular", sigma_w=1.4), nh.relu(), nh.conv(padding="circular", sigma_w=1.4),
                     nh.relu(), nh.global_avg_pool(), nh.dense(1))
    base = arch.kernel(images[:2], images[2:]).ntk
    moved = arch.kernel(shift(images[:2], 2), images[2:]).ntk
    assert float((moved - base).abs().max() / base.abs().max()) < 1e-12


def test_flatten_is_invariant_only_to_joint_shifts(images):
    arch = nh.serial(nh.conv(padding="circular", sigma_w=1.4), nh.relu(), nh.conv(padding="circular", sigma_w=1.4),
                     nh.relu(), nh.flatten(), nh.dense(1))
    base = arch.kernel(images[:2], images[2:]).ntk
    one = arch.kernel(shift(images[:2], 2), images[2:]).ntk
    both = arch.kernel(shift(images[:2], 2), shift(images[2:], 2)).ntk
    assert float((one - base).abs().max() / base.abs().max()) > 1e-2
    assert float((both - base).abs().max() / base.abs().max()) < 1e-12


def test_gram_matrix_over_data_is_not_toeplitz():
    """ERRATA.md A7: the n x n Gram matrix is indexed by data, not pixels: no Toeplitz structure in general.

    Only a data set made of shifts of ONE image gives a circulant Gram matrix (joint shift invariance)."""
    g = torch.Generator().manual_seed(1)
    data = torch.randn(8, 1, 1, 8, generator=g, dtype=torch.float64)
    arch = nh.serial(nh.conv(kernel_size=(1, 3), padding="circular"), nh.relu(), nh.flatten(), nh.dense(1))
    gram = arch.kernel(data).ntk
    first_off_diagonal = torch.diagonal(gram, offset=1)
    assert float(first_off_diagonal.std() / first_off_diagonal.abs().mean()) > 0.1
    shifts = torch.cat([torch.roll(data[:1], s, dims=-1) for s in range(8)])
    circulant = arch.kernel(shifts).ntk
    for offset in range(1, 8):
        diagonal = torch.diagonal(circulant, offset=offset)
        torch.testing.assert_close(diagonal, torch.full_like(diagonal, float(diagonal[0])), rtol=1e-12, atol=0)


def test_blocked_kernel_equals_the_whole_kernel(images):
    arch = CNNS["gap-same"]()
    whole = arch.kernel(images)
    blocked = arch.kernel(images, block_size=3)
    torch.testing.assert_close(blocked.ntk, whole.ntk, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(blocked.var1, whole.var1, rtol=1e-12, atol=1e-12)
    cross = arch.kernel(images[:3], images[1:], block_size=2)
    torch.testing.assert_close(cross.nngp, arch.kernel(images[:3], images[1:]).nngp, rtol=1e-12, atol=1e-12)
    spatial_out = nh.serial(nh.conv(), nh.relu(), nh.conv(3))       # pixel-pair tensors as output
    torch.testing.assert_close(spatial_out.kernel(images, block_size=3).ntk, spatial_out.kernel(images).ntk,
                               rtol=1e-12, atol=1e-12)


def test_conv_bad_input_gives_clear_errors(images):
    with pytest.raises(ValueError, match="unknown padding 'reflect'; allowed values: circular, same, valid"):
        nh.conv(padding="reflect")
    with pytest.raises(ValueError, match="larger than the 'valid'-padded image"):
        nh.conv(kernel_size=7, padding="valid").kernel(images)
    with pytest.raises(ValueError, match="x1 and x2 must have the same feature shape"):
        nh.conv().kernel(images, images[:, :1])
    with pytest.raises(ValueError, match="needs images"):
        nh.conv().kernel(torch.ones(3, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="dense\\(\\) needs vector features"):
        nh.serial(nh.conv(), nh.dense(1)).kernel(images)
    with pytest.raises(ValueError, match="dense\\(\\) needs vector features"):
        nh.serial(nh.conv(), nh.dense(1)).network((2, 6, 5), width=4)
    with pytest.raises(ValueError, match="window"):
        nh.avg_pool(9).kernel(images)
    with pytest.raises(TypeError, match="kernel_size"):
        nh.conv(kernel_size=(3, 3, 3))
    with pytest.raises(ValueError, match="in_shape"):
        nh.conv().network((2, 6), width=4)


# -- receptive fields (lesson 03, section 4.2.3) -----------------------------------------------------------

RECEPTIVE = {
    "same-stride2-dilation2": lambda: nh.serial(nh.conv(stride=2), nh.relu(), nh.conv(dilation=2), nh.relu(),
                                                nh.conv(kernel_size=(2, 3))),
    "circular-valid-pool": lambda: nh.serial(nh.conv(padding="circular", dilation=(1, 2)), nh.erf(),
                                             nh.avg_pool(2, 1), nh.conv(kernel_size=2, padding="valid")),
    "wide-circular": lambda: nh.serial(nh.conv(kernel_size=5, padding="circular", stride=(1, 2)), nh.relu(),
                                       nh.max_pool((1, 2))),
}


def enumerated_paths(layers, size):
    """Count paths by walking every filter tap of every layer from each output position back to the input
    (one axis at a time; independent of the matrix products in nh.spatial.receptive_field)."""
    geometry = []                                           # per spatial layer: (kind, layer)
    for layer in layers:
        if isinstance(layer, Conv):
            geometry.append(("conv", layer))
        elif hasattr(layer, "window"):
            geometry.append(("pool", layer))

    def positions_below(kind, layer, axis, size_in, i):
        """Input positions that output position i reads, one entry per tap (repeats allowed)."""
        if kind == "pool":
            return [layer.stride[axis] * i + t for t in range(layer.window[axis])]
        k, s, d = layer.kernel_size[axis], layer.stride[axis], layer.dilation[axis]
        left = nh.spatial.conv_padding(size_in, k, d, layer.padding)[0]
        out = []
        for t in range(k):
            j = s * i + d * t - left
            if layer.padding == "circular":
                out.append(j % size_in)
            elif 0 <= j < size_in:
                out.append(j)
        return out

    def axis_counts(axis):
        sizes = [size[axis]]
        for kind, layer in geometry:                      # sizes after each layer
            n = sizes[-1]
            if kind == "pool":
                sizes.append((n - layer.window[axis]) // layer.stride[axis] + 1)
            else:
                k, s, d = layer.kernel_size[axis], layer.stride[axis], layer.dilation[axis]
                pads = nh.spatial.conv_padding(n, k, d, layer.padding)
                sizes.append((n + sum(pads) - d * (k - 1) - 1) // s + 1)
        counts = [[0] * size[axis] for _ in range(sizes[-1])]

        def walk(level, position, out_index):
            if level == 0:
                counts[out_index][position] += 1
                return
            kind, layer = geometry[level - 1]
            for below in positions_below(kind, layer, axis, sizes[level - 1], position):
                walk(level - 1, below, out_index)

        for i in range(sizes[-1]):
            walk(len(geometry), i, i)
        return torch.tensor(counts, dtype=torch.float64)

    rows, cols = axis_counts(0), axis_counts(1)
    return rows[:, None, :, None] * cols[None, :, None, :]


@pytest.mark.parametrize("name", sorted(RECEPTIVE))
def test_receptive_field_counts_every_path(name):
    arch = RECEPTIVE[name]()
    counts = nh.spatial.receptive_field(arch, (7, 9))
    torch.testing.assert_close(counts, enumerated_paths(arch.layers, (7, 9)), rtol=0, atol=0)


@pytest.mark.parametrize("name", sorted(RECEPTIVE))
def test_receptive_field_is_the_input_gradient_of_a_linear_network_with_unit_weights(name):
    """With identity activations and every weight 1, d z_p / d x_q = (one constant) x (number of paths)."""
    arch = nh.serial(*[nh.identity() if isinstance(layer, Activation) else layer
                       for layer in RECEPTIVE[name]().layers])
    if name == "wide-circular":                              # max pooling is not linear: use average pooling
        arch = nh.serial(*arch.layers[:-1], nh.avg_pool((1, 2)))
    model = arch.network((1, 7, 9), width=3, seed=0)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.fill_(1.0)
    x = torch.randn(1, 1, 7, 9, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    jacobian = torch.autograd.functional.jacobian(lambda v: model(v)[0, 0], x)[:, :, 0, 0]   # (H', W', H, W)
    counts = nh.spatial.receptive_field(arch, (7, 9))
    torch.testing.assert_close(jacobian / jacobian.max(), counts / counts.max(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(RECEPTIVE))
def test_a_random_network_is_sensitive_exactly_inside_its_receptive_field(name):
    arch = RECEPTIVE[name]()
    model = arch.network((2, 7, 9), width=8, seed=1)
    x = torch.randn(1, 2, 7, 9, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    out = model(x)[0]                                                              # (C, H', W')
    jacobian = torch.autograd.functional.jacobian(lambda v: model(v)[0], x)[:, :, :, 0]
    assert jacobian.shape == (*out.shape, 2, 7, 9)
    sensitive = jacobian.ne(0).any(0).any(2)                                       # (H', W', H, W)
    counts = nh.spatial.receptive_field(arch, (7, 9))
    assert out.shape[1:] == counts.shape[:2]
    assert not sensitive[counts == 0].any()                  # outside: exactly zero, always
    if name == "wide-circular":                              # max pooling: gradients only through the argmax
        assert sensitive.sum() < (counts > 0).sum()
    else:                                                    # 8 channels: some path to each pixel is open
        assert sensitive[counts > 0].all()


def test_relu_mean_squared_sensitivity_is_proportional_to_path_counts():
    """ReLU, sigma_w^2 = 2, no bias: E[(d f_p / d x_q)^2] = 2 N_pq / 3^L at any width (Monte Carlo over 200
    networks of width 32 and, with circular padding, over the 11 output positions)."""
    depth, length = 3, 11
    conv = lambda out=None: nh.conv(out, kernel_size=(1, 3), padding="circular", sigma_w=2 ** 0.5)
    arch = nh.serial(conv(), nh.relu(), conv(), nh.relu(), conv(1))
    x = torch.randn(1, 1, length, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    squares = torch.zeros(length, length, dtype=torch.float64)
    for seed in range(200):
        model = arch.network((1, 1, length), width=32, seed=seed)
        copies = x.expand(length, 1, 1, length).clone().requires_grad_()       # copy p: output unit p
        model(copies)[:, 0, 0, :].diagonal().sum().backward()
        squares += copies.grad[:, 0, 0, :] ** 2 / 200
    shift = (torch.arange(length)[:, None] + torch.arange(length)[None, :]) % length
    measured = squares.gather(1, shift).mean(0)                                 # by offset q - p (mod length)
    predicted = 2 * nh.spatial.receptive_field(arch, (1, length))[0, 0, 0] / 3 ** depth
    assert torch.equal(measured == 0, predicted == 0)
    inside = predicted > 0
    assert abs(float(measured.sum() / predicted.sum()) - 1) < 0.1, (measured.sum(), predicted.sum())
    assert float((measured[inside] / predicted[inside] - 1).abs().max()) < 0.25, measured / predicted


def test_receptive_field_rejects_layers_that_mix_positions():
    with pytest.raises(ValueError, match="receptive_field\\(\\) takes conv"):
        nh.spatial.receptive_field(nh.serial(nh.conv(), nh.relu(), nh.global_avg_pool()), (5, 5))
    with pytest.raises(ValueError, match="image_size"):
        nh.spatial.receptive_field(nh.conv(), (5, 0))
    with pytest.raises(ValueError, match="does not fit"):
        nh.spatial.receptive_field(nh.conv(kernel_size=7, padding="valid"), 5)
