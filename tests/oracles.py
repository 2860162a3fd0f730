"""Oracles shared by several test files: independent computations the package is compared with."""

import ntk_helpers as nh


def assert_matches_finite_networks(arch, x, *, width, n_networks=16):
    """NTK (scalar readout) and NNGP (a readout of 256 units: 256 samples per network) of ``arch`` against
    ``n_networks`` finite networks: every entry within 5 standard errors plus 2% of the scale (O(1/width) bias)."""
    readout = arch.layers[-1]
    wide = nh.serial(*arch.layers[:-1], nh.dense(256, sigma_w=readout.sigma_w, sigma_b=readout.sigma_b))
    ntk = nh.monte_carlo_kernel(arch, x, width=width, n_networks=n_networks, seed=0)
    nngp = nh.monte_carlo_kernel(wide, x, width=width, n_networks=n_networks, seed=0, ntk=False)
    exact = arch.kernel(x)
    for name, mean, sem in [("ntk", ntk.ntk, ntk.ntk_sem), ("nngp", nngp.nngp, nngp.nngp_sem)]:
        target = getattr(exact, name)
        excess = float(((mean - target).abs() - 5 * sem - 0.02 * target.abs().max()).max())
        assert excess <= 0, f"{name}: an entry lies {excess:.3g} beyond 5 standard errors + 2% of the scale"
