"""The fast paths of image kernels against the plain computation on every pixel pair.

- flatten readouts propagate only the same-position pairs p = p' (``Kernel.same_position``): identical
  results to the full pair tensors on random architectures;
- memory-budgeted blocks (``kernel(memory_budget=...)``) and the error when one pair of inputs does not fit;
- float32 pair tensors (``kernel(pair_dtype=torch.float32)``).
"""

import math
import random

import pytest
import torch

import ntk_helpers as nh
from ntk_helpers.engine import evaluation, planning
from ntk_helpers.engine.kernel import Kernel


def full_pairs(arch, x1, x2=None):
    """The reference: every layer's own rule on the full (n1, n2, H, W, H, W) pair tensors."""
    k = Kernel.from_inputs(x1, x2)
    for layer in arch.layers:
        k = layer.transform(k)
    return k


def relative(a, b):
    return float((a - b).abs().max() / b.abs().max())


def random_cnn(seed: int, readout=nh.flatten):
    rng = random.Random(seed)
    activations = [nh.relu, nh.erf, nh.gelu, lambda: nh.leaky_relu(0.2), nh.identity]
    conv = lambda: nh.conv(kernel_size=rng.choice([1, 2, 3]), stride=rng.choice([1, 1, 2]),
                           dilation=rng.choice([1, 1, 2]), padding=rng.choice(["same", "valid", "circular"]),
                           sigma_w=rng.uniform(0.8, 1.6), sigma_b=rng.choice([0.0, 0.3]))
    layers = []
    if rng.random() < 0.3:
        layers += [nh.conv(sigma_w=1.3), nh.relu(), nh.avg_pool(2, stride=1)]       # all pairs before the run
    for _ in range(rng.randint(1, 3)):
        layers += [conv(), rng.choice(activations)()]
        extra = rng.random()
        if extra < 0.2:
            layers += [nh.conv(sigma_w=1.2), nh.layer_norm(), nh.relu()]
        elif extra < 0.4:
            layers += [nh.residual(nh.relu(), nh.conv(sigma_w=1.1), alpha=0.7)]
        elif extra < 0.5:
            layers += [nh.batch_norm(frozen=True)]
    return nh.serial(*layers, readout(), nh.dense(1, sigma_w=1.1, sigma_b=0.2))


@pytest.fixture
def images():
    g = torch.Generator().manual_seed(3)
    return torch.randn(5, 2, 9, 8, generator=g, dtype=torch.float64)


def fits(arch, x):
    try:
        full_pairs(arch, x[:1])
        return True
    except ValueError:                      # a random filter larger than the shrunken image
        return False


@pytest.mark.parametrize("seed", range(12))
def test_flatten_readout_on_same_position_pairs_equals_the_full_computation(images, seed):
    arch = random_cnn(seed)
    if not fits(arch, images):
        pytest.skip("random geometry does not fit the image")
    others = images.flip(0)[:3] + 0.25                               # distinct from every x1
    for x2 in (None, others):
        reference = full_pairs(arch, images, x2)
        for kwargs in ({}, {"block_size": 2}):
            k = arch.kernel(images, x2, **kwargs)
            for name in ("nngp", "ntk", "var1", "var2"):
                assert relative(getattr(k, name), getattr(reference, name)) < 1e-12, (seed, name, kwargs)


def test_the_run_starts_after_the_last_layer_that_mixes_positions():
    c = nh.conv()
    assert planning.same_position_start(nh.serial(c, nh.relu(), c, nh.relu(), nh.flatten(), nh.dense(1)).layers) == 0
    mixed = nh.serial(c, nh.relu(), nh.avg_pool(2), c, nh.relu(), nh.flatten(), nh.dense(1))
    assert planning.same_position_start(mixed.layers) == 3
    assert planning.same_position_start(nh.serial(c, nh.relu(), nh.global_avg_pool(), nh.dense(1)).layers) is None


def test_same_position_input_pairs_meet_themselves_exactly(images):
    """An input in both x1 and x2 gives the same numbers as in the Gram matrix (Sigma(x, x) rounds alike)."""
    arch = nh.serial(nh.conv(sigma_w=1.4), nh.relu(), nh.conv(sigma_w=1.4), nh.relu(), nh.flatten(), nh.dense(1))
    gram = arch.kernel(images).ntk
    assert torch.equal(arch.kernel(images, images[:3]).ntk, gram[:, :3])


@pytest.mark.parametrize("k,stride,dilation,padding", [
    (3, 1, 1, "same"), (2, 1, 1, "same"), (3, 2, 1, "same"), (3, 1, 2, "same"), (3, 1, 1, "valid"),
    (2, 2, 1, "valid"), (3, 1, 1, "circular"), (3, 2, 2, "circular"),
])
def test_same_position_conv_is_the_diagonal_of_the_pair_rule(images, k, stride, dilation, padding):
    pairs = nh.spatial.conv_pairs(Kernel.from_inputs(images[:2], images[2:]).nngp, (k, k), (stride, stride),
                                  (dilation, dilation), padding, scale=1.7)
    diagonal = torch.diagonal(torch.diagonal(pairs, dim1=-4, dim2=-2), dim1=-3, dim2=-2)
    same = Kernel.from_inputs(images[:2], images[2:], same_position=True).nngp
    out = nh.spatial.conv_same_position(same, (k, k), (stride, stride), (dilation, dilation), padding, scale=1.7)
    torch.testing.assert_close(out, diagonal, rtol=1e-13, atol=1e-14)


def test_layers_that_mix_positions_refuse_same_position_kernels(images):
    k = Kernel.from_inputs(images, same_position=True)
    with pytest.raises(ValueError, match="every pixel pair"):
        nh.global_avg_pool().transform(k)
    with pytest.raises(ValueError, match="every pixel pair"):
        nh.avg_pool(2).transform(k)


# -- memory budget -----------------------------------------------------------------------------------

def gap_cnn():
    c = lambda: nh.conv(sigma_w=2 ** 0.5, sigma_b=0.1)
    return nh.serial(c(), nh.relu(), c(), nh.relu(), nh.global_avg_pool(), nh.dense(1))


def test_a_small_budget_gives_blocks_and_the_same_kernel(images):
    arch = gap_cnn()
    whole = full_pairs(arch, images)
    per_pair = evaluation.LIVE_PAIR_TENSORS * 8 * (9 * 8) ** 2
    budget = 10 * per_pair                                                 # room for 2 x 2 blocks
    assert evaluation.choose_block(arch, images, None, budget) == 2
    k = arch.kernel(images, memory_budget=budget)
    for name in ("nngp", "ntk", "var1"):
        assert relative(getattr(k, name), getattr(whole, name)) < 1e-12


def test_blocks_follow_the_budget_and_stay_heap_sized():
    x = torch.zeros(400, 1, 8, 8, dtype=torch.float64)
    block = evaluation.choose_block(gap_cnn(), x, None, evaluation.DEFAULT_MEMORY_BUDGET)
    assert block is not None and block * block * 8 ** 4 * 8 <= evaluation.HEAP_FRIENDLY_BYTES
    flat = nh.serial(nh.conv(), nh.relu(), nh.flatten(), nh.dense(1))
    block = evaluation.choose_block(flat, x, None, evaluation.DEFAULT_MEMORY_BUDGET)           # same-position pairs
    assert block is not None and block * block * 8 ** 2 * 8 <= evaluation.HEAP_FRIENDLY_BYTES and block > 60
    assert evaluation.choose_block(flat, x[:100], None, evaluation.DEFAULT_MEMORY_BUDGET) is None
    assert evaluation.choose_block(nh.mlp(3), torch.zeros(1024, 8, dtype=torch.float64), None, 2 ** 30) is None
    assert evaluation.choose_block(nh.mlp(3), torch.zeros(2048, 8, dtype=torch.float64), None, 2 ** 30) == 1024


def test_one_pair_over_the_budget_raises_a_clear_error():
    x = torch.zeros(2, 1, 16, 16, dtype=torch.float64)
    with pytest.raises(evaluation.MemoryBudgetError, match=r"memory_budget=.*GiB.*conv|memory_budget=.*GiB.*input"):
        gap_cnn().kernel(x, memory_budget=1e6)
    assert isinstance(evaluation.MemoryBudgetError("x"), MemoryError)
    with pytest.raises(ValueError, match="memory_budget"):
        gap_cnn().kernel(x, memory_budget=-1)


# -- float32 pair tensors ----------------------------------------------------------------------------

@pytest.mark.parametrize("readout", [nh.global_avg_pool, nh.flatten])
def test_float32_pairs_are_float64_kernels_within_1e_5(images, readout):
    c = lambda: nh.conv(sigma_w=2 ** 0.5)
    arch = nh.serial(c(), nh.relu(), c(), nh.relu(), c(), nh.relu(), readout(), nh.dense(1))
    exact = arch.kernel(images)
    fast = arch.kernel(images, pair_dtype=torch.float32)
    assert fast.ntk.dtype == torch.float64 and fast.nngp.dtype == torch.float64
    assert relative(fast.ntk, exact.ntk) < 1e-5
    assert relative(fast.nngp, exact.nngp) < 1e-5
    with pytest.raises(ValueError, match="pair_dtype"):
        arch.kernel(images, pair_dtype=torch.int32)
