"""Convolutional kernels (chapter 4.2) against independent oracles and exact invariances."""

import itertools
import math

import pytest
import torch

import ntk_helpers as nh


@pytest.fixture
def images():
    g = torch.Generator().manual_seed(5)
    return torch.randn(4, 2, 6, 5, generator=g, dtype=torch.float64)      # (n, C, H, W), H != W


def brute_force_conv_nngp(x1, x2, k, stride, dilation, padding, sigma_w, sigma_b):
    """Sigma(x, x')_{p,p'} after one conv, by explicit loops over positions and offsets (AUDIT §2(d))."""
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
    """Theta(T_s x, x') = Theta(x, x') exactly with global average pooling (AUDIT A7)."""
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
    """AUDIT A7: the n x n Gram matrix is indexed by data, not pixels: no Toeplitz structure in general.

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
