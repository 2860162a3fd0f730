"""The compiled paths (``engine/compiled/``: pooled CNNs, MLPs) against the eager layer rules.

The eager path (each layer's ``transform`` on pixel-pair tensors) is itself tested against an oracle built
from ``F.conv2d`` and against finite networks (tests/test_conv.py); here the compiled path must give the same
kernels on random architectures it covers, take over only where it applies, and say why not when asked to. The
compiled path is assembled from the layers' pair rules (``engine/rules.py``): every registered activation's scalar
dual must equal its torch closed form, and an activation registered here (with a closed form checked against
quadrature) must be compiled without any change to the backend.
"""

import math
import random

import pytest
import torch

import ntk_helpers as nh
from ntk_helpers.engine import compiled, quadrature, rules

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


CLOSED_FORM_ACTIVATIONS = [lambda rng: nh.relu(), lambda rng: nh.leaky_relu(rng.uniform(-0.5, 0.5)),
                           lambda rng: nh.identity(), lambda rng: nh.erf(), lambda rng: nh.gelu()]


def random_activation(rng):
    """At most one activation with a closed-form dual (piecewise-linear or a scalar dual), or none."""
    choice = rng.randrange(len(CLOSED_FORM_ACTIVATIONS) + 1)
    return [] if choice == len(CLOSED_FORM_ACTIVATIONS) else [CLOSED_FORM_ACTIVATIONS[choice](rng)]


def random_pooled_cnn(seed: int):
    """conv ("same", stride 1, one filter size) + at most one activation with a closed-form dual, repeated, then
    global average pooling and a random head."""
    rng = random.Random(seed)
    size = rng.choice([1, 2, 3, (3, 2), 5])
    layers = []
    for _ in range(rng.randint(1, 3)):
        layers.append(nh.conv(kernel_size=size, sigma_w=rng.uniform(0.7, 1.6), sigma_b=rng.choice([0.0, 0.4])))
        layers += random_activation(rng)
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


def counting(monkeypatch, name):
    """Count the calls of ``compiled.<name>`` (the real function still runs); returns the list of calls."""
    calls, real = [], getattr(compiled, name)
    monkeypatch.setattr(compiled, name, lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_the_default_takes_the_compiled_path_only_where_it_applies(monkeypatch):
    calls = counting(monkeypatch, "pooled_kernel")
    x = images(3, 0)
    pooled = [nh.serial(nh.conv(), act, nh.global_avg_pool(), nh.dense(1))
              for act in (nh.relu(), nh.erf(), nh.gelu(), nh.leaky_relu(0.1))]
    pooled += [nh.serial(nh.conv(stride=2), nh.relu(), nh.global_avg_pool()),                # programs
               nh.serial(nh.conv(padding="circular"), nh.relu(), nh.global_avg_pool()),
               nh.serial(nh.conv(), nh.relu(), nh.relu(), nh.global_avg_pool()),
               nh.serial(nh.conv(), nh.relu(), nh.avg_pool(2), nh.global_avg_pool())]
    for arch in pooled:
        assert isinstance(arch.kernel(x), nh.Kernel), arch
    assert len(calls) == len(pooled)
    pooled += [nh.serial(nh.conv(), nh.relu(), nh.flatten(), nh.dense(1)),             # same-position pairs
               nh.serial(nh.conv(), nh.relu(), nh.avg_pool(2), nh.conv(), nh.erf(), nh.flatten())]
    for arch in pooled[-2:]:
        assert isinstance(arch.kernel(x), nh.Kernel), arch
    assert len(calls) == len(pooled)
    for arch in (nh.serial(nh.conv(), nh.tanh(), nh.global_avg_pool()),                # quadrature: eager
                 nh.serial(nh.conv(), nh.tanh(), nh.flatten()),
                 nh.serial(nh.conv(), nh.relu(), nh.max_pool(2), nh.global_avg_pool()),
                 nh.serial(nh.conv(), nh.batch_norm(frozen=True), nh.tanh(), nh.global_avg_pool())):
        try:
            assert isinstance(arch.kernel(x), nh.Kernel), arch
        except nh.NoClosedForm:
            pass
    pooled[0].kernel(x, compiled=False)
    pooled[0].kernel(x, pair_dtype=torch.float32)
    pooled[0].kernel(x, block_size=2)
    assert len(calls) == len(pooled)


def test_compiled_true_says_why_it_cannot():
    x = images(3, 0)
    with pytest.raises(TypeError, match="compiled must be None.*True or False, got 'yes'"):
        nh.mlp(2).kernel(torch.randn(3, 4, dtype=torch.float64), compiled="yes")
    with pytest.raises(ValueError, match=r"compiled=True.*max_pool\(.*declares no compiled rule"):
        nh.serial(nh.conv(), nh.relu(), nh.max_pool(2), nh.global_avg_pool()).kernel(x, compiled=True)
    with pytest.raises(ValueError, match=r"compiled=True.*batch_norm\(frozen=False\) has no closed form"):
        nh.serial(nh.conv(), nh.batch_norm(), nh.relu(), nh.global_avg_pool()).kernel(x, compiled=True)
    with pytest.raises(ValueError, match=r"compiled=True.*no global_avg_pool\(\) or flatten\(\) readout"):
        nh.serial(nh.conv(), nh.relu(), nh.conv()).kernel(x, compiled=True)
    with pytest.raises(ValueError, match=r"compiled=True.*tanh\(\) has no closed-form dual.*quadrature"):
        nh.serial(nh.conv(), nh.tanh(), nh.global_avg_pool()).kernel(x, compiled=True)
    with pytest.raises(ValueError, match="compiled=True.*block_size"):
        nh.serial(nh.conv(), nh.relu(), nh.global_avg_pool()).kernel(x, compiled=True, block_size=2)
    with pytest.raises(ValueError, match="compiled=True.*not on the CPU|compiled=True.*float64"):
        nh.serial(nh.conv(), nh.relu(), nh.global_avg_pool()).kernel(x, compiled=True, pair_dtype=torch.float32)


@pytest.mark.parametrize("activation", [nh.relu, nh.erf, nh.gelu])
def test_results_do_not_depend_on_the_thread_count(activation):
    arch = nh.serial(nh.conv(sigma_w=1.4), activation(), nh.conv(sigma_w=1.4), activation(), nh.global_avg_pool())
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


# -- programs: any other pooled CNN of closed-form layers ----------------------------------------------------------

def random_program_cnn(seed: int):
    """Random conv geometry (stride, dilation, padding, filter sizes), activations with closed-form duals, average
    pooling, layer norm, frozen batch norm and residual blocks, then global average pooling and a head."""
    rng = random.Random(seed)
    conv = lambda: nh.conv(kernel_size=rng.choice([1, 2, 3, (3, 2)]), stride=rng.choice([1, 1, 2, (1, 2)]),
                           dilation=rng.choice([1, 1, 2]), padding=rng.choice(["same", "valid", "circular"]),
                           sigma_w=rng.uniform(0.8, 1.6), sigma_b=rng.choice([0.0, 0.3]))
    layers = []
    for _ in range(rng.randint(1, 3)):
        layers += [conv(), *random_activation(rng)]
        extra = rng.random()
        if extra < 0.2:
            layers += [nh.conv(sigma_w=1.2, sigma_b=0.1), nh.layer_norm(), *random_activation(rng)]
        elif extra < 0.4:
            layers += [nh.residual(*random_activation(rng), nh.conv(kernel_size=rng.choice([1, 3]), sigma_w=1.1),
                                   alpha=rng.uniform(0.3, 1.0))]
        elif extra < 0.5:
            layers += [nh.batch_norm(frozen=True)]
        elif extra < 0.7:
            layers += [nh.avg_pool(rng.choice([1, 2, (2, 1)]), stride=rng.choice([None, 1]))]
    head = rng.choice([[], [nh.dense(1, sigma_w=1.2, sigma_b=0.3)]])
    return nh.serial(*layers, nh.global_avg_pool(), *head)


@pytest.mark.parametrize("seed", range(16))
def test_random_pooled_programs_match_the_eager_path(seed):
    arch = random_program_cnn(seed)
    x1, x2 = images(5, seed, (2, 9, 8)), images(3, seed + 100, (2, 9, 8))
    try:
        arch.kernel(x1[:1], compiled=False)
    except ValueError:
        pytest.skip("random geometry does not fit the image")
    plan, why = compiled.plan(arch, x1, None)
    assert plan is not None, (arch, why)
    for a, b in ((x1, None), (x1, x2)):
        fast = assert_same_as_eager(arch, a, b)
        if b is None:
            assert torch.equal(fast.ntk, fast.ntk.T)


@pytest.mark.parametrize("seed", range(12))
def test_random_flatten_programs_match_the_eager_path(seed):
    """flatten() readouts: full pixel pairs until the last layer that mixes positions, then the pairs p = p'."""
    arch = nh.serial(*[nh.flatten() if l == nh.global_avg_pool() else l for l in random_program_cnn(seed).layers])
    x1, x2 = images(5, seed, (2, 9, 8)), images(3, seed + 100, (2, 9, 8))
    try:
        arch.kernel(x1[:1], compiled=False)
    except ValueError:
        pytest.skip("random geometry does not fit the image")
    plan, why = compiled.plan(arch, x1, None)
    assert isinstance(plan, compiled.Program) and plan.flatten_readout, (arch, why)
    for a, b in ((x1, None), (x1, x2)):
        assert_same_as_eager(arch, a, b)


def test_the_issue_cases_are_programs_and_match_the_eager_path():
    """avg_pool(2) after the first conv; stride 2 with "valid" padding; a ResNet block; layer norm."""
    c = lambda **o: nh.conv(sigma_w=2 ** 0.5, sigma_b=0.1, **o)
    x = images(4, 7, (1, 12, 12))
    for arch in (nh.serial(c(), nh.relu(), nh.avg_pool(2), c(), nh.relu(), c(), nh.relu(), nh.global_avg_pool()),
                 nh.serial(c(stride=2, padding="valid"), nh.erf(), c(), nh.erf(), nh.global_avg_pool()),
                 nh.serial(c(), nh.residual(nh.relu(), c(), alpha=0.5), nh.residual(nh.gelu(), c(), alpha=0.5),
                           nh.global_avg_pool(), nh.dense(1)),
                 nh.serial(c(), nh.layer_norm(), nh.relu(), c(dilation=2), nh.layer_norm(), nh.relu(),
                           nh.global_avg_pool())):
        assert isinstance(compiled.plan(arch, x, None)[0], compiled.Program), arch
        assert_same_as_eager(arch, x, None)
        assert_same_as_eager(arch, x, x[:2] * 0.7)


@pytest.mark.parametrize("readout", [nh.global_avg_pool, nh.flatten])
@pytest.mark.parametrize("activation", [nh.relu, nh.erf])
def test_program_results_do_not_depend_on_the_thread_count(activation, readout):
    arch = nh.serial(nh.conv(sigma_w=1.4, stride=2), activation(), nh.avg_pool(2, stride=1),
                     nh.residual(activation(), nh.conv(sigma_w=1.4), alpha=0.6), readout())
    x = images(9, 1, (2, 9, 9))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = arch.kernel(x, compiled=True)
        torch.set_num_threads(3)
        three = arch.kernel(x, compiled=True)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one.ntk, three.ntk) and torch.equal(one.nngp, three.nngp)


def test_a_program_overflows_with_the_layer_named():
    arch = nh.serial(*[layer for _ in range(60) for layer in (nh.conv(sigma_w=1e3, padding="circular"), nh.relu())],
                     nh.global_avg_pool())
    assert isinstance(compiled.plan(arch, images(2, 0), None)[0], compiled.Program)
    with pytest.raises(OverflowError, match=r"after layer \d+ \(conv"):
        arch.kernel(images(2, 0), compiled=True)


# -- vectors: dense layers and piecewise-linear activations ----------------------------------------------------

def random_mlp(seed: int):
    rng = random.Random(seed)
    layers = []
    for _ in range(rng.randint(1, 6)):
        layers.append(nh.dense(sigma_w=rng.uniform(0.5, 1.8), sigma_b=rng.choice([0.0, 0.3])))
        layers += random_activation(rng)
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
    calls = counting(monkeypatch, "vector_kernel")
    x = torch.randn(4, 3, dtype=torch.float64)
    for name in ("relu", "erf", "gelu", "identity"):
        assert isinstance(nh.mlp(3, name).kernel(x), nh.Kernel)
    assert len(calls) == 4
    for arch in (nh.mlp(2, "tanh"), nh.mlp(2, parameterization="standard"), nh.resnet(2),
                 nh.serial(nh.dense(), nh.layer_norm(), nh.relu(), nh.dense(1))):
        assert isinstance(arch.kernel(x), nh.Kernel), arch
    assert len(calls) == 4
    with pytest.raises(ValueError, match="compiled=True.*parameterization='ntk'"):
        nh.mlp(2, parameterization="standard").kernel(x, compiled=True)


def test_a_deep_mlp_overflows_with_the_layer_named():
    with pytest.raises(OverflowError, match=r"after layer \d+ \(dense"):
        nh.mlp(300, sigma_w=40.0).kernel(torch.randn(3, 4, dtype=torch.float64), compiled=True)


@pytest.mark.parametrize("activation", ["relu", "erf", "gelu"])
def test_mlp_results_do_not_depend_on_the_thread_count(activation):
    x = torch.randn(50, 6, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = nh.mlp(4, activation, sigma_b=0.2).kernel(x, compiled=True)
        torch.set_num_threads(3)
        three = nh.mlp(4, activation, sigma_b=0.2).kernel(x, compiled=True)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one.ntk, three.ntk) and torch.equal(one.nngp, three.nngp)


def test_deep_erf_mlps_match_the_eager_path():
    """Depth 10 (the benchmark's case): rounding differences must not grow through the layers."""
    x = nh.sphere(40, 8, seed=2)
    for sigma_w, sigma_b in ((1.0, 0.0), (2.5, 0.3)):
        arch = nh.mlp(10, "erf", sigma_w=sigma_w, sigma_b=sigma_b)
        assert_same_as_eager(arch, x, None)
        assert_same_as_eager(arch, x, x[:7] * 1.3)


# -- the layers' pair rules: scalar duals, a newly registered activation -------------------------------------

SCALAR_DUALS = sorted(name for name in nh.ACTIVATIONS if nh.ACTIVATIONS[name]().scalar_dual is not None)


def triples(n=4000, seed=0):
    """(var1, var2, cov) over 12 decades of variance and every correlation, the Gram case cov = var1 = var2 and
    zero variances included."""
    g = torch.Generator().manual_seed(seed)
    v1 = 10.0 ** (12 * torch.rand(n, generator=g, dtype=torch.float64) - 6)
    v2 = 10.0 ** (12 * torch.rand(n, generator=g, dtype=torch.float64) - 6)
    rho = 2 * torch.rand(n, generator=g, dtype=torch.float64) - 1
    cov = rho * (v1 * v2).sqrt()
    v2[:50], cov[:50] = v1[:50], v1[:50]
    v1[50:60], cov[50:60] = 0.0, 0.0
    return v1, v2, cov


def test_scalar_duals_are_a_registered_set():
    assert {"erf", "gelu"} <= set(SCALAR_DUALS), SCALAR_DUALS


@pytest.mark.parametrize("name", SCALAR_DUALS)
def test_every_scalar_dual_equals_its_torch_closed_form(name):
    """The form the compiled paths use (floats, run here in Python) against the eager path's (torch tensors),
    relative to the scale sqrt(E(x, x) E(x', x')) that bounds |E| (Cauchy-Schwarz; the same for Edot)."""
    act = nh.ACTIVATIONS[name]()
    v1, v2, cov = triples()
    e, e_dot = act.closed_form(v1, v2, cov)
    scales = [(a * b).sqrt() for a, b in zip(act.closed_form(v1, v1, v1), act.closed_form(v2, v2, v2))]
    scalar = [act.scalar_dual(c, a, b) for a, b, c in zip(v1.tolist(), v2.tolist(), cov.tolist())]
    s_e, s_e_dot = (torch.tensor(v, dtype=torch.float64) for v in zip(*scalar))
    for mine, theirs, scale, what in ((s_e, e, scales[0], "E"), (s_e_dot, e_dot, scales[1], "Edot")):
        err = float(((mine - theirs).abs() / scale.clamp_min(1e-300)).max())
        assert err < 1e-13, f"{name}: scalar {what} differs from the torch closed form by {err:.1e} (relative)"


def _cos_dual(var1, var2, cov):
    """cos: E[cos u cos v] = exp(-(var1 + var2) / 2) cosh(cov), E[sin u sin v] = exp(-(var1 + var2) / 2) sinh(cov)."""
    damp = torch.exp(-(var1 + var2) / 2)
    return damp * torch.cosh(cov), damp * torch.sinh(cov)


def _cos_scalar(cov, var1, var2):
    damp = math.exp(-(var1 + var2) / 2)
    return damp * math.cosh(cov), damp * math.sinh(cov)


@pytest.fixture
def registered_cos():
    """A closed-form activation registered for one test (and removed afterwards), with its scalar dual."""
    assert "cos" not in nh.ACTIVATIONS

    def cos() -> nh.Activation:
        return nh.Activation("cos", torch.cos, _cos_dual, scalar_dual=_cos_scalar)

    returned = nh.register(cos)
    try:
        yield returned
    finally:
        del nh.ACTIVATIONS["cos"]


def test_a_newly_registered_activation_is_compiled_from_its_rule(registered_cos, monkeypatch):
    """Nothing in engine/compiled/ knows ``cos``: its plan carries its compiled scalar dual, and the kernels equal
    the eager ones, whose closed form is checked here against quadrature (an independent oracle)."""
    act = nh.as_activation("cos")
    v1, v2 = torch.tensor([0.3, 1.0, 2.0]), torch.tensor([0.8, 1.0, 0.5])
    cov = torch.tensor([0.1, 1.0, -0.6]) * (v1 * v2).sqrt()
    v1, v2, cov = v1.double(), v2.double(), cov.double()
    for closed, quad in zip(act.closed_form(v1, v2, cov), quadrature.pair_expectations(torch.cos, v1, v2, cov)):
        assert float((closed - quad).abs().max()) < 1e-8
    assert act.pair_rule() == rules.Dual(scalar=_cos_scalar)
    pooled_calls, vector_calls = counting(monkeypatch, "pooled_kernel"), counting(monkeypatch, "vector_kernel")
    vectors = torch.randn(20, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    mlp = nh.mlp(3, "cos", sigma_w=1.1, sigma_b=0.2)
    plan, _ = compiled.plan(mlp, vectors, None)
    assert len(plan.duals) == 1 and list(plan.kind[:3]) == [2, 2, 2]
    assert_same_as_eager(mlp, vectors, None)
    cnn = nh.serial(nh.conv(sigma_w=1.2), act, nh.conv(sigma_w=1.2), nh.relu(), nh.global_avg_pool(), nh.dense(1))
    assert_same_as_eager(cnn, images(5, 3), images(2, 4))
    assert vector_calls and pooled_calls, "both kernels must have taken the compiled paths"


def _uncompilable_scalar(cov, var1, var2):
    return float(torch.tensor(cov)), 1.0                 # torch inside: numba cannot compile it


def test_a_scalar_dual_numba_cannot_compile_falls_back_to_the_eager_path():
    act = nh.Activation("linear_by_torch", lambda x: x, lambda v1, v2, cov: (cov.clone(), torch.ones_like(cov)),
                        scalar_dual=_uncompilable_scalar)
    arch = nh.serial(nh.dense(sigma_w=1.3), act, nh.dense(1))
    x = torch.randn(6, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    identity = nh.serial(nh.dense(sigma_w=1.3), nh.identity(), nh.dense(1)).kernel(x, compiled=False)
    assert torch.allclose(arch.kernel(x).ntk, identity.ntk, rtol=1e-14, atol=0)
    for inputs, layers in ((x, arch), (images(3, 0), nh.serial(nh.conv(), act, nh.global_avg_pool()))):
        with pytest.raises(ValueError, match="compiled=True.*_uncompilable_scalar does not compile with numba"):
            layers.kernel(inputs, compiled=True)


def test_the_backend_sees_rules_only():
    """Every layer of the compiled architectures declares its rule; the plan is built from those records alone."""
    assert nh.conv(kernel_size=2, stride=1, sigma_w=1.5, sigma_b=0.5).pair_rule() == \
        rules.Affine(2.25, 0.25, (2, 2), (1, 1), (1, 1), "same")
    assert nh.dense(sigma_w=2.0).pair_rule() == rules.Affine(4.0, 0.0)
    assert nh.relu().pair_rule() == rules.Dual(piecewise_linear=(0.0, 1.0))
    assert nh.global_avg_pool().pair_rule() == rules.Readout("global_avg_pool")
    assert isinstance(nh.tanh().pair_rule(), rules.Unsupported)
    assert isinstance(nh.dense(parameterization="standard").pair_rule(), rules.Unsupported)
    assert nh.residual(nh.relu(), nh.dense(), alpha=0.5).pair_rule() == \
        rules.Residual(0.25, (rules.Dual(piecewise_linear=(0.0, 1.0)), rules.Affine(1.0, 0.0)))
