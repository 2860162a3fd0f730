import numpy as np
import pytest
import torch

import ntk_helpers as nh


def test_effective_rank_of_identity_and_rank_one():
    assert nh.effective_rank(torch.eye(7, dtype=torch.float64)) == pytest.approx(7)
    ones = torch.ones(7, 7, dtype=torch.float64)
    assert nh.effective_rank(ones) == pytest.approx(1)
    # "constant + white noise": (3/4) I + (1/4) 11^T, the deep ReLU NTK's normalized limit (lesson 02),
    # has tr = n and ||K||_F^2 = n + n (n - 1) / 16, so r = 16 n / (n + 15)
    n = 40
    K = 0.75 * torch.eye(n, dtype=torch.float64) + 0.25 * torch.ones(n, n, dtype=torch.float64)
    assert nh.effective_rank(K) == pytest.approx(16 * n / (n + 15))


def test_effective_rank_equals_its_eigenvalue_form():
    g = torch.Generator().manual_seed(0)
    a = torch.randn(30, 10, generator=g, dtype=torch.float64)
    K = a @ a.T
    lam = np.linalg.eigvalsh(K.numpy())
    assert nh.effective_rank(K) == pytest.approx(lam.sum() ** 2 / (lam ** 2).sum(), rel=1e-10)


def test_centering_removes_the_constant_mode():
    K = 0.75 * torch.eye(20, dtype=torch.float64) + 5.0
    Kc = nh.center(K)
    torch.testing.assert_close(Kc.sum(0), torch.zeros(20, dtype=torch.float64), atol=1e-12, rtol=0)
    assert nh.effective_rank(K) < 2 and nh.effective_rank(K, centered=True) > 18


def test_eigenvalues_descending_and_normalize():
    g = torch.Generator().manual_seed(1)
    a = torch.randn(12, 12, generator=g, dtype=torch.float64)
    K = a @ a.T
    lam = nh.eigenvalues(K)
    assert torch.all(lam[:-1] >= lam[1:])
    np.testing.assert_allclose(np.sort(lam.numpy()), np.linalg.eigvalsh(K.numpy()), rtol=1e-10)
    torch.testing.assert_close(torch.diagonal(nh.normalize(K)), torch.ones(12, dtype=torch.float64))


def test_spectra_reject_bad_matrices():
    with pytest.raises(ValueError, match=r"square \(n, n\)"):
        nh.effective_rank(torch.ones(3, 4))
    with pytest.raises(ValueError, match="zero matrix"):
        nh.effective_rank(torch.zeros(3, 3))
    with pytest.raises(ValueError, match="positive diagonal"):
        nh.normalize(-torch.eye(3))
    with pytest.raises(ValueError, match="2 dimensions"):
        nh.eigenvalues(torch.ones(3))


def test_eigenvalues_refuse_a_matrix_that_is_not_symmetric_but_accept_rounding():
    """The eigenvalues of [[1, 2], [0, 1]] are 1 and 1; those of its symmetric part are 2 and 0: answering with the
    latter would be silently wrong."""
    with pytest.raises(ValueError, match=r"symmetric kernel matrix: K differs from K.T by up to 2"):
        nh.eigenvalues(torch.tensor([[1.0, 2.0], [0.0, 1.0]]))
    K = nh.mlp(2).kernel(nh.sphere(6, 3, seed=0)).ntk.float()          # float32: asymmetric only by rounding
    noisy = K + 1e-7 * K.abs().max() * torch.randn(6, 6, generator=torch.Generator().manual_seed(0))
    np.testing.assert_allclose(nh.eigenvalues(noisy).numpy(), np.linalg.eigvalsh(K.double().numpy())[::-1],
                               rtol=1e-5, atol=1e-5 * float(K.abs().max()))
