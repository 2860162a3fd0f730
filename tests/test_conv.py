"""Convolutional kernels (chapter 4.2) against independent oracles and exact invariances."""

import math

import pytest
import torch
import torch.nn.functional as F

import ntk_helpers as nh
from oracles import assert_matches_finite_networks
from ntk_helpers import Conv

# torch warns that padding="same" with an even kernel and odd dilation copies the input: true and harmless here
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
from ntk_helpers import Activation


@pytest.fixture
def images():
    g = torch.Generator().manual_seed(5)
    return torch.randn(4, 2, 6, 5, generator=g, dtype=torch.float64)      # (n, C, H, W), H != W


# -- an independent conv oracle, built from torch.nn.functional.conv2d --------------------------------------
#
# A conv layer's NNGP is exact linear algebra: with the patches P_a(x)_p = x_{p + offset a} (a runs over the
# C * kh * kw filter taps, zero or wrapped outside the image), Sigma'_{pp'} = sigma_w^2 / |a| sum_a
# P_a(x)_p P_a(x')_p' + sigma_b^2. The patches come from F.conv2d with the identity basis of filters, so the
# padding is torch's own: padding="same" (stride 1, then subsampled), none ("valid"), or the image wrapped
# around by index arithmetic ("circular", as often as needed). Nothing of nh.spatial is used.

def same_left_padding(kernel: int, dilation: int) -> int:
    """The padding torch's F.conv2d(padding="same") puts before the first pixel, read off an impulse response."""
    length = dilation * (kernel - 1) + 2
    ramp = torch.arange(1.0, length + 1, dtype=torch.float64).reshape(1, 1, 1, length)
    first_tap = torch.zeros(1, 1, 1, kernel, dtype=torch.float64)
    first_tap[..., 0] = 1.0                                   # out[i] = in[i - left]
    out = F.conv2d(ramp, first_tap, padding="same", dilation=(1, dilation))[0, 0, 0]
    return int((out == 1.0).nonzero()[0])


def wrap(x, rows: tuple[int, int], cols: tuple[int, int]):
    """Circular padding of the last two axes, as often around as needed (F.pad wraps at most once)."""
    h, w = x.shape[-2:]
    if max(rows) <= h and max(cols) <= w:
        return F.pad(x, (*cols, *rows), mode="circular")
    r = torch.arange(-rows[0], h + rows[1]) % h
    c = torch.arange(-cols[0], w + cols[1]) % w
    return x[..., r, :][..., c]


def torch_conv(x, weight, k, stride, dilation, padding):
    """conv2d of (n, C, H, W) with ``weight`` under the layer's padding, computed by torch alone."""
    if padding == "valid":
        return F.conv2d(x, weight, stride=stride, dilation=dilation)
    if padding == "same":
        return F.conv2d(x, weight, padding="same", dilation=dilation)[..., ::stride, ::stride]
    total = dilation * (k - 1)
    left = same_left_padding(k, dilation)                    # circular: torch's "same" offsets, wrapped
    return F.conv2d(wrap(x, (left, total - left), (left, total - left)), weight, stride=stride, dilation=dilation)


def patches(x, k, stride, dilation, padding):
    """(n, C*k*k, H', W'): every filter tap's view of x, from conv2d with the identity basis of filters."""
    channels = x.shape[1]
    basis = torch.eye(channels * k * k, dtype=x.dtype).reshape(channels * k * k, channels, k, k)
    return torch_conv(x, basis, k, stride, dilation, padding)


def oracle_conv_nngp(x1, x2, k, stride, dilation, padding, sigma_w, sigma_b):
    """Sigma(x, x')_{p,p'} after one conv layer: (n1, n2, H', W', H', W')."""
    p1, p2 = (patches(x, k, stride, dilation, padding) for x in (x1, x2))
    return sigma_w ** 2 * torch.einsum("iaph,jaqw->ijphqw", p1, p2) / p1.shape[1] + sigma_b ** 2


def tap_matrices(size, k, stride, dilation, padding):
    """(k*k, H'W', HW): the matrix of each filter tap acting on one-channel images (conv2d on the pixel basis),
    and the output size (H', W')."""
    h, w = size
    pixels = torch.eye(h * w, dtype=torch.float64).reshape(h * w, 1, h, w)
    views = patches(pixels, k, stride, dilation, padding)                 # (HW, k*k, H', W')
    return views.flatten(2).permute(1, 2, 0), tuple(views.shape[2:])


def oracle_conv_on_pairs(nngp, ntk, k, stride, dilation, padding, sigma_w, sigma_b):
    """A conv layer on pixel-pair kernels (n1, n2, H, W, H, W): Sigma' = sigma_w^2 mean_a M_a Sigma M_a^T +
    sigma_b^2, Theta' = Sigma' + sigma_w^2 mean_a M_a Theta M_a^T, with the tap matrices M_a from conv2d."""
    n1, n2, h, w = nngp.shape[:4]
    taps, out = tap_matrices((h, w), k, stride, dilation, padding)         # (k*k, P', P)
    side = lambda t: sigma_w ** 2 * torch.einsum("apq,ijqr,asr->ijps", taps, t.reshape(n1, n2, h * w, h * w),
                                                  taps).reshape(n1, n2, *out, *out) / taps.shape[0]
    new_nngp = side(nngp) + sigma_b ** 2
    return new_nngp, new_nngp + side(ntk)


def oracle_relu_on_pairs(nngp, ntk):
    """ReLU on a Gram pixel-pair kernel (n, n, H, W, H, W): the arc-cosine formulas (Cho & Saul 2009)."""
    n, _, h, w = nngp.shape[:4]
    flat = nngp.permute(0, 2, 3, 1, 4, 5).reshape(n * h * w, n * h * w)       # rows and columns: (input, pixel)
    var = flat.diagonal()
    norm = (var[:, None] * var[None, :]).sqrt()
    theta = torch.arccos((flat / norm).clamp(-1, 1))
    e = (norm * torch.sin(theta) + (math.pi - theta) * flat) / (2 * math.pi)
    e_dot = (math.pi - theta) / (2 * math.pi)
    back = lambda t: t.reshape(n, h, w, n, h, w).permute(0, 3, 1, 2, 4, 5)
    return back(e), back(e_dot) * ntk


GEOMETRIES = [  # (kernel_size, stride, dilation, padding)
    (3, 1, 1, "same"), (2, 1, 1, "same"), (3, 2, 1, "same"), (3, 1, 2, "same"), (2, 2, 2, "same"),
    (3, 1, 1, "valid"), (2, 2, 1, "valid"), (3, 1, 2, "valid"),
    (3, 1, 1, "circular"), (3, 2, 1, "circular"), (2, 1, 2, "circular"),
    (5, 1, 3, "circular"), (5, 2, 3, "circular"),             # the filter spans 13 pixels: wider than the image
]


@pytest.mark.parametrize("k,stride,dilation,padding", GEOMETRIES)
def test_one_conv_layer_matches_torch_conv2d(images, k, stride, dilation, padding):
    layer = nh.conv(kernel_size=k, stride=stride, dilation=dilation, padding=padding, sigma_w=1.3, sigma_b=0.4)
    kernel = layer.kernel(images[:2], images[2:])
    expected = oracle_conv_nngp(images[:2], images[2:], k, stride, dilation, padding, 1.3, 0.4)
    torch.testing.assert_close(kernel.nngp, expected, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(kernel.ntk, expected, rtol=1e-12, atol=1e-12)     # first layer: Theta = Sigma


@pytest.mark.parametrize("k,stride,dilation,padding", GEOMETRIES)
def test_conv_network_is_torch_conv2d_with_the_same_padding(images, k, stride, dilation, padding):
    """The finite network's side: sigma_w / sqrt(fan_in) conv(x, W) + sigma_b b, padded as torch pads."""
    model = nh.conv(kernel_size=k, stride=stride, dilation=dilation, padding=padding, sigma_w=1.3,
                    sigma_b=0.4).network((2, 6, 5), width=3, seed=0)
    weight, bias = list(model.parameters())                 # W (3, 2, k, k), b (3,), both N(0, 1)
    expected = 1.3 / math.sqrt(2 * k * k) * torch_conv(images, weight, k, stride, dilation, padding)
    expected = expected + 0.4 * bias[:, None, None]
    torch.testing.assert_close(model(images), expected, rtol=1e-12, atol=1e-12)


STACKS = [  # two conv layers (kernel_size, stride, dilation, padding) with a ReLU between them
    ((3, 1, 1, "same"), (3, 2, 1, "same")),
    ((3, 1, 2, "same"), (2, 2, 2, "same")),
    ((3, 2, 1, "circular"), (2, 1, 1, "valid")),
    ((5, 1, 3, "circular"), (3, 1, 2, "circular")),
]


@pytest.mark.parametrize("first,second", STACKS, ids=lambda g: "-".join(map(str, g)))
def test_conv_relu_conv_matches_the_conv2d_oracle(images, first, second):
    """Pixel-pair NNGP and NTK after conv -> relu -> conv, and after flatten / global average pooling, against
    the conv2d oracle (the second conv acts on pixel-pair kernels through its tap matrices)."""
    arch = [nh.conv(kernel_size=first[0], stride=first[1], dilation=first[2], padding=first[3], sigma_w=1.3,
                    sigma_b=0.2), nh.relu(),
            nh.conv(kernel_size=second[0], stride=second[1], dilation=second[2], padding=second[3], sigma_w=1.2,
                    sigma_b=0.1)]
    nngp = oracle_conv_nngp(images, images, *first, 1.3, 0.2)               # Gram over all four images
    nngp, ntk = oracle_relu_on_pairs(nngp, nngp)
    nngp, ntk = oracle_conv_on_pairs(nngp, ntk, *second, 1.2, 0.1)
    kernel = nh.serial(*arch).kernel(images[:2], images[2:])
    torch.testing.assert_close(kernel.nngp, nngp[:2, 2:], rtol=1e-11, atol=1e-12)
    torch.testing.assert_close(kernel.ntk, ntk[:2, 2:], rtol=1e-11, atol=1e-12)
    diagonal = lambda t: t.flatten(2, 3).flatten(3).diagonal(dim1=2, dim2=3).mean(-1)
    flat = nh.serial(*arch, nh.flatten()).kernel(images[:2], images[2:])
    torch.testing.assert_close(flat.ntk, diagonal(ntk)[:2, 2:], rtol=1e-11, atol=1e-12)
    pooled = nh.serial(*arch, nh.global_avg_pool()).kernel(images[:2], images[2:])
    torch.testing.assert_close(pooled.ntk, ntk[:2, 2:].mean((2, 3, 4, 5)), rtol=1e-11, atol=1e-12)


def wide_circular_body(padding="circular"):
    """Two 5-tap convolutions with dilation 3 (span 13) on 4 x 4 images: the padding wraps around 3 times."""
    return [nh.conv(kernel_size=5, dilation=3, padding=padding, sigma_w=1.4, sigma_b=0.2), nh.relu(),
            nh.conv(kernel_size=5, dilation=3, padding=padding, sigma_w=1.4, sigma_b=0.1)]


def test_circular_padding_wider_than_the_image_matches_finite_networks():
    """Pixel-pair NNGP from the channels of 128 networks of width 64: every entry within 5 standard errors over
    networks (plus 2% of the scale for the O(1/width) bias), and the projection <K_net, K> / <K, K> within 5
    standard errors + 1/width of 1 (a wrong scale shows there first); then NNGP and NTK after a flatten readout."""
    x = torch.randn(4, 2, 4, 4, generator=torch.Generator().manual_seed(8), dtype=torch.float64)
    body = nh.serial(*wide_circular_body())
    exact = body.kernel(x).nngp
    samples = []
    for seed in range(128):
        f = body.network((2, 4, 4), width=64, seed=seed)(x).detach()                 # (4, 64, 4, 4)
        samples.append(torch.einsum("icpq,jcrs->ijpqrs", f, f) / f.shape[1])
    samples = torch.stack(samples)
    mean, sem = samples.mean(0), samples.std(0) / 128 ** 0.5
    excess = float(((mean - exact).abs() - 5 * sem - 0.02 * exact.abs().max()).max())
    assert excess <= 0, f"pixel-pair NNGP: an entry lies {excess:.3g} beyond 5 standard errors + 2% of the scale"
    projection = (samples * exact).flatten(1).sum(1) / (exact * exact).sum()
    gap, se = abs(float(projection.mean()) - 1), float(projection.std()) / 128 ** 0.5
    assert gap <= 5 * se + 1 / 64, f"<K_net, K> / <K, K> = 1 {gap:+.4f}, standard error {se:.4f}"
    arch = nh.serial(*wide_circular_body(), nh.relu(), nh.flatten(), nh.dense(1, sigma_w=1.2))
    assert_matches_finite_networks(arch, x, width=64)


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
    (one axis at a time; independent of the matrix products in nh.receptive_field)."""
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
        left = 0 if layer.padding == "valid" else same_left_padding(k, d)        # torch's "same" offsets
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
                sizes.append((n - 1) // s + 1 if layer.padding != "valid" else (n - d * (k - 1) - 1) // s + 1)
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
    counts = nh.receptive_field(arch, (7, 9))
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
    counts = nh.receptive_field(arch, (7, 9))
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
    counts = nh.receptive_field(arch, (7, 9))
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
    predicted = 2 * nh.receptive_field(arch, (1, length))[0, 0, 0] / 3 ** depth
    assert torch.equal(measured == 0, predicted == 0)
    inside = predicted > 0
    assert abs(float(measured.sum() / predicted.sum()) - 1) < 0.1, (measured.sum(), predicted.sum())
    assert float((measured[inside] / predicted[inside] - 1).abs().max()) < 0.25, measured / predicted


def test_receptive_field_rejects_layers_that_mix_positions():
    with pytest.raises(ValueError, match="receptive_field\\(\\) takes conv"):
        nh.receptive_field(nh.serial(nh.conv(), nh.relu(), nh.global_avg_pool()), (5, 5))
    with pytest.raises(ValueError, match="image_size"):
        nh.receptive_field(nh.conv(), (5, 0))
    with pytest.raises(ValueError, match="does not fit"):
        nh.receptive_field(nh.conv(kernel_size=7, padding="valid"), 5)
