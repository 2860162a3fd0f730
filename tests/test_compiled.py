"""The compiled paths (``engine/compiled/``: pooled CNNs, MLPs) against the eager layer rules.

The eager path (each layer's ``transform`` on pixel-pair tensors) is itself tested against an oracle built
from ``F.conv2d`` and against finite networks (tests/test_conv.py); here the compiled path must give the same
kernels on random architectures it covers, take over only where it applies, and say why not when asked to.
"""

import math
import random

import pytest
import torch

import ntk_helpers as nh
from ntk_helpers.engine import compiled

pytestmark = pytest.mark.skipif(compiled.numba is None, reason="numba is not installed")


def relative(a, b):
    return float((a - b).abs().max() / b.abs().max())


def assert_same_as_eager(arch, x1, x2):
    """The compiled kernel of ``arch`` on (x1, x2) equals the eager one to 1e-12 (relative); returns it."""
    fast, eager = arch.kernel(x1, x2, compiled=True), arch.kernel(x1, x2, compiled=False)
    for name in ("nngp", "ntk", "var1", "var2"):
        err = relative(getattr(fast, name), getattr(eager, name))
        assert err < 1e-12, f"{arch!r}, {name}: relative difference {err:.1e}, expected < 1e-12"
    assert fast.is_gram == eager.is_gram
    return fast


def random_pooled_cnn(seed: int):
    """conv ("same", stride 1, one filter size) + at most one piecewise-linear activation, repeated, then
    global average pooling and a random head."""
    rng = random.Random(seed)
    size = rng.choice([1, 2, 3, (3, 2), 5])
    layers = []
    for _ in range(rng.randint(1, 3)):
        layers.append(nh.conv(kernel_size=size, sigma_w=rng.uniform(0.7, 1.6), sigma_b=rng.choice([0.0, 0.4])))
        layers += rng.choice([[nh.relu()], [nh.leaky_relu(rng.uniform(-0.5, 0.5))], [nh.identity()], []])
    head = rng.choice([[], [nh.dense(1, sigma_w=1.2, sigma_b=0.3)], [nh.dense(sigma_w=1.4), nh.relu(), nh.dense(1)]])
    return nh.serial(*layers, nh.global_avg_pool(), *head)


def images(n, seed, shape=(2, 5, 4)):
    return torch.randn(n, *shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("seed", range(12))
def test_random_pooled_cnns_match_the_eager_path(seed):
    arch = random_pooled_cnn(seed)
    x1, x2 = images(6, seed), images(3, seed + 100)
    assert compiled.plan(arch, x1, None)[0] is not None, arch
    for a, b in ((x1, None), (x1, x2)):
        assert_same_as_eager(arch, a, b)


def test_the_default_takes_the_compiled_path_only_where_it_applies(monkeypatch):
    calls = []
    monkeypatch.setattr(compiled, "pooled_kernel", lambda *a, **k: calls.append(1) or "compiled")
    x = images(3, 0)
    pooled = nh.serial(nh.conv(), nh.relu(), nh.global_avg_pool(), nh.dense(1))
    assert pooled.kernel(x) == "compiled"
    for arch in (nh.serial(nh.conv(), nh.erf(), nh.global_avg_pool()),                 # no closed form here
                 nh.serial(nh.conv(), nh.relu(), nh.flatten()),                         # flatten: already fast
                 nh.serial(nh.conv(stride=2), nh.relu(), nh.global_avg_pool()),
                 nh.serial(nh.conv(padding="circular"), nh.relu(), nh.global_avg_pool()),
                 nh.serial(nh.conv(), nh.relu(), nh.relu(), nh.global_avg_pool()),
                 nh.serial(nh.conv(), nh.relu(), nh.avg_pool(2), nh.global_avg_pool())):
        assert isinstance(arch.kernel(x), nh.Kernel), arch
    assert pooled.kernel(x, compiled=False) != "compiled"
    assert pooled.kernel(x, pair_dtype=torch.float32) != "compiled"
    assert len(calls) == 1


def test_compiled_true_says_why_it_cannot():
    x = images(3, 0)
    with pytest.raises(TypeError, match="compiled must be None.*True or False, got 'yes'"):
        nh.mlp(2).kernel(torch.randn(3, 4, dtype=torch.float64), compiled="yes")
    with pytest.raises(ValueError, match="compiled=True.*stride 1"):
        nh.serial(nh.conv(stride=2), nh.relu(), nh.global_avg_pool()).kernel(x, compiled=True)
    with pytest.raises(ValueError, match="compiled=True.*no global_avg_pool"):
        nh.serial(nh.conv(), nh.relu(), nh.flatten()).kernel(x, compiled=True)
    with pytest.raises(ValueError, match="compiled=True.*erf"):
        nh.serial(nh.conv(), nh.erf(), nh.global_avg_pool()).kernel(x, compiled=True)
    with pytest.raises(ValueError, match="compiled=True.*not on the CPU|compiled=True.*float64"):
        nh.serial(nh.conv(), nh.relu(), nh.global_avg_pool()).kernel(x, compiled=True, pair_dtype=torch.float32)


def test_results_do_not_depend_on_the_thread_count():
    arch = nh.serial(nh.conv(sigma_w=1.4), nh.relu(), nh.conv(sigma_w=1.4), nh.relu(), nh.global_avg_pool())
    x = images(9, 1)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = arch.kernel(x, compiled=True)
        torch.set_num_threads(3)
        three = arch.kernel(x, compiled=True, progress=True)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one.ntk, three.ntk) and torch.equal(one.nngp, three.nngp)


def test_an_image_meets_itself_exactly_and_a_zero_image_has_no_direction():
    """The Gram diagonal comes from the same arithmetic as the variances (r = 0 exactly), and an all-zero
    image takes the angle pi/2 like the eager rule (finite, no NaN)."""
    arch = nh.serial(nh.conv(sigma_w=1.5), nh.relu(), nh.conv(sigma_w=1.5), nh.relu(), nh.global_avg_pool())
    x = images(4, 2)
    x[1] = 0.0
    fast, eager = arch.kernel(x, compiled=True), arch.kernel(x, compiled=False)
    assert torch.isfinite(fast.ntk).all()
    assert relative(fast.ntk, eager.ntk) < 1e-12
    assert torch.equal(fast.ntk, fast.ntk.T)


def test_overflow_names_the_layer():
    arch = nh.serial(*[layer for _ in range(60) for layer in (nh.conv(sigma_w=1e3), nh.relu())],
                     nh.global_avg_pool())
    with pytest.raises(OverflowError, match=r"after layer \d+ \(conv"):
        arch.kernel(images(2, 0), compiled=True)


def test_the_angle_is_atan2_to_rounding():
    """The branch-free arctangent against the C library's atan2 over 600 orders of magnitude."""
    numba = compiled.numba
    angle = compiled._angle

    @numba.njit
    def angles(r, c, out):
        for k in range(r.shape[0]):
            out[k] = angle(r[k], c[k])

    g = torch.Generator().manual_seed(0)
    scale = lambda: 10.0 ** (600 * torch.rand(200_000, generator=g, dtype=torch.float64) - 300)
    r = torch.randn(200_000, generator=g, dtype=torch.float64).abs() * scale()
    c = torch.randn(200_000, generator=g, dtype=torch.float64) * scale()
    r[:100], c[100:200], r[200:300] = 0.0, 0.0, c[200:300].abs()
    out = torch.empty_like(r)
    angles(r.numpy(), c.numpy(), out.numpy())
    err = float((out - torch.atan2(r, c)).abs().max())
    assert err < 1e-15, f"max |angle - atan2| = {err:.1e}, expected < 1e-15"
    assert math.isclose(float(out[0]), math.pi) or float(out[0]) == 0.0


# -- vectors: dense layers and piecewise-linear activations ----------------------------------------------------

def random_mlp(seed: int):
    rng = random.Random(seed)
    layers = []
    for _ in range(rng.randint(1, 6)):
        layers.append(nh.dense(sigma_w=rng.uniform(0.5, 1.8), sigma_b=rng.choice([0.0, 0.3])))
        layers += rng.choice([[nh.relu()], [nh.leaky_relu(rng.uniform(-0.5, 0.5))], [nh.identity()], []])
    return nh.serial(*layers, nh.dense(1, sigma_w=rng.uniform(0.5, 1.5), sigma_b=rng.choice([0.0, 0.2])))


@pytest.mark.parametrize("seed", range(12))
def test_random_mlps_match_the_eager_path(seed):
    arch = random_mlp(seed)
    g = torch.Generator().manual_seed(seed)
    x1 = torch.randn(37, 5, generator=g, dtype=torch.float64)
    x2 = torch.randn(11, 5, generator=g, dtype=torch.float64)
    x1[3] = 0.0                                                  # a zero input: no direction (angle pi/2)
    assert isinstance(compiled.plan(arch, x1, None)[0], compiled.VectorPlan), arch
    for a, b in ((x1, None), (x1, x2)):
        fast = assert_same_as_eager(arch, a, b)
        if b is None:
            assert torch.equal(fast.ntk, fast.ntk.T)


def test_vectors_take_the_compiled_path_only_for_what_it_covers(monkeypatch):
    calls = []
    monkeypatch.setattr(compiled, "vector_kernel", lambda *a, **k: calls.append(1) or "compiled")
    x = torch.randn(4, 3, dtype=torch.float64)
    assert nh.mlp(3).kernel(x) == "compiled"
    for arch in (nh.mlp(2, "erf"), nh.mlp(2, parameterization="standard"), nh.resnet(2),
                 nh.serial(nh.dense(), nh.layer_norm(), nh.relu(), nh.dense(1))):
        assert isinstance(arch.kernel(x), nh.Kernel), arch
    assert len(calls) == 1
    with pytest.raises(ValueError, match="compiled=True.*parameterization='ntk'"):
        nh.mlp(2, parameterization="standard").kernel(x, compiled=True)


def test_a_deep_mlp_overflows_with_the_layer_named():
    with pytest.raises(OverflowError, match=r"after layer \d+ \(dense"):
        nh.mlp(300, sigma_w=40.0).kernel(torch.randn(3, 4, dtype=torch.float64), compiled=True)


def test_mlp_results_do_not_depend_on_the_thread_count():
    x = torch.randn(50, 6, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = nh.mlp(4, sigma_b=0.2).kernel(x, compiled=True)
        torch.set_num_threads(3)
        three = nh.mlp(4, sigma_b=0.2).kernel(x, compiled=True)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one.ntk, three.ntk) and torch.equal(one.nngp, three.nngp)
