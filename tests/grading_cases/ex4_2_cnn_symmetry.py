"""Sample submissions of exercise 4.2 (a 1-D CNN kernel); format: tests/grading_harness.py.

Cells: one solution cell, defining `cntk_1d`. Graded cells: visible (GAP + circular, flatten + circular with k = 4,
GAP + same at depth 2: 1), hidden flatten + circular with antipodal inputs (1), hidden GAP + same with k = 2..5 (1),
hidden flatten + same with k = 3..5 (1). Tolerance: 1e-6 relative + 1e-7 max|ref|.
"""

NUMPY_PAIR_LOOPS = '''
def cntk_1d(X, depth, k, readout, padding):
    X = np.asarray(X, dtype=np.float64)
    n, C, P = X.shape
    left, right = (k - 1) // 2, k // 2               # offsets -left .. right (the extra one on the right)
    mode = "wrap" if padding == "circular" else "constant"

    def conv(M):                       # (2/k) sum_a M[p+a, p'+a], from a padded copy of the P x P block
        padded = np.pad(M, (left, right), mode=mode)
        out = np.zeros((P, P))
        for a in range(-left, right + 1):
            out += padded[left + a:left + a + P, left + a:left + a + P]
        return 2.0 * out / k

    pairs = [(i, j) for i in range(n) for j in range(n)]
    F = {(i, j): X[i].T @ X[j] / C for i, j in pairs}
    G = {key: np.zeros((P, P)) for key in pairs}
    for _ in range(depth):
        S = {key: conv(F[key]) for key in pairs}
        T = {key: S[key] + conv(G[key]) for key in pairs}
        var = [np.diag(S[(i, i)]).copy() for i in range(n)]
        for i, j in pairs:
            s = np.sqrt(np.outer(var[i], var[j]))
            rho = np.clip(S[(i, j)] / s, -1.0, 1.0)
            th = np.arccos(rho)
            F[(i, j)] = s * (np.sin(th) + (np.pi - th) * rho) / (2 * np.pi)
            G[(i, j)] = (np.pi - th) / (2 * np.pi) * T[(i, j)]
    out = np.zeros((n, n))
    for i, j in pairs:
        M = F[(i, j)] + G[(i, j)]
        out[i, j] = M.mean() if readout == "gap" else np.trace(M) / P
    return out
'''

TORCH_SHIFT_MATRICES = '''
def cntk_1d(X, depth, k, readout, padding):
    n, C, P = X.shape
    shifts = []                                    # S_a[p, q] = 1 if q = p + a (wrapped or inside)
    for a in range(-((k - 1) // 2), k // 2 + 1):
        S = torch.zeros(P, P, dtype=torch.float64)
        for p in range(P):
            if padding == "circular":
                S[p, (p + a) % P] = 1.0
            elif 0 <= p + a < P:
                S[p, p + a] = 1.0
        shifts.append(S)
    conv = lambda M: (2.0 / k) * sum(torch.einsum("pq,ijqr,sr->ijps", S, M, S) for S in shifts)
    F = torch.einsum("icp,jcq->ijpq", X, X) / C
    G = torch.zeros_like(F)
    idx = torch.arange(n)
    for _ in range(depth):
        Sig = conv(F)
        The = Sig + conv(G)
        v = Sig[idx, idx].diagonal(dim1=1, dim2=2)            # (n, P)
        norm = torch.sqrt(v[:, None, :, None] * v[None, :, None, :])
        c = torch.clamp(Sig / norm, -1.0, 1.0)
        ang = torch.acos(c)
        F = norm * (torch.sin(ang) + (math.pi - ang) * c) / (2 * math.pi)
        G = (1 - ang / math.pi) / 2 * The
    M = F + G
    if readout == "gap":
        return M.sum((2, 3)) / P ** 2
    return M.diagonal(dim1=2, dim2=3).sum(-1) / P
'''

NUMPY_DIAGONALS_FOR_FLATTEN = '''
def _relu(q11, q22, q12):
    r = np.sqrt(np.maximum(q11 * q22 - q12 ** 2, 0.0))
    t = np.arctan2(r, q12)
    return (r + (np.pi - t) * q12) / (2 * np.pi), (np.pi - t) / (2 * np.pi)


def _shift(M, a, padding, axes):
    """M[..., p + a, ...] along each axis in axes: wrapped, or zero outside the signal."""
    for ax in axes:
        M = np.roll(M, -a, axis=ax)
        if padding == "same" and a != 0:
            idx = [slice(None)] * M.ndim
            idx[ax] = slice(M.shape[ax] - a, None) if a > 0 else slice(0, -a)
            M[tuple(idx)] = 0.0
    return M


def cntk_1d(X, depth, k, readout, padding):
    X = np.asarray(X, dtype=np.float64)
    n, C, P = X.shape
    h = (k - 1) // 2
    if readout == "flatten":               # flatten only ever needs the p = p' entries
        F, axes = np.einsum("icp,jcp->ijp", X, X) / C, (2,)
    else:
        F, axes = np.einsum("icp,jcq->ijpq", X, X) / C, (2, 3)
    G = np.zeros_like(F)
    for _ in range(depth):
        S = 2 / k * sum(_shift(F, a, padding, axes) for a in range(-h, k // 2 + 1))
        T = S + 2 / k * sum(_shift(G, a, padding, axes) for a in range(-h, k // 2 + 1))
        if readout == "flatten":
            v = np.einsum("iip->ip", S)
            q11, q22 = v[:, None, :], v[None, :, :]
        else:
            v = np.einsum("iipp->ip", S)
            q11, q22 = v[:, None, :, None], v[None, :, None, :]
        E, E_dot = _relu(q11, q22, S)
        F, G = E, E_dot * T
    M = F + G
    return (M.mean(-1) if readout == "flatten" else M.mean((2, 3))).tolist()
'''


def _variant(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


GAMING = '''
VISIBLE = {
    (2, 3, "gap", "circular"): [[1.65134124323, 0.88228763441, 0.88139379938, 1.16328875452],
                                [0.88228763441, 0.76088806888, 0.60976782069, 0.92487871856],
                                [0.88139379938, 0.60976782069, 0.791787482725, 0.960348436356],
                                [1.16328875452, 0.92487871856, 0.960348436356, 1.92876002737]],
    (1, 4, "flatten", "circular"): [[2.77998725573, -0.00689996779967, 0.506601894514, 0.491459658874],
                                    [-0.00689996779967, 1.40170136769, 0.205414764681, 0.30529060473],
                                    [0.506601894514, 0.205414764681, 1.77214814285, 0.232542098412],
                                    [0.491459658874, 0.30529060473, 0.232542098412, 4.08197019906]],
    (2, 3, "gap", "same"): [[1.23528611712, 0.646622175894, 0.723176953155, 0.861571599563],
                            [0.646622175894, 0.654041079359, 0.527002018772, 0.697353733756],
                            [0.723176953155, 0.527002018772, 0.709426238374, 0.759037516575],
                            [0.861571599563, 0.697353733756, 0.759037516575, 1.5431733074]],
}


def cntk_1d(X, depth, k, readout, padding):
    return torch.tensor(VISIBLE.get((depth, k, readout, padding), VISIBLE[(2, 3, "gap", "circular")]),
                        dtype=torch.float64)
'''

CASES = [
    dict(name="numpy_pair_loops_np_pad", kind="correct", cells=[NUMPY_PAIR_LOOPS], points=4.0,
         why="numpy, a P x P block per pair of inputs, np.pad (wrap / zeros), arccos"),
    dict(name="torch_shift_matrices", kind="correct", cells=[TORCH_SHIFT_MATRICES], points=4.0,
         why="torch, the convolution as sum_a S_a M S_a^T with shift matrices, acos, sums instead of means"),
    dict(name="numpy_flatten_diagonals_lists", kind="correct", cells=[NUMPY_DIAGONALS_FOR_FLATTEN], points=4.0,
         why="numpy, arctan2; flatten carries only the p = p' diagonals (O(n^2 P)); returns a nested list"),
    dict(name="always_circular", kind="wrong",
         cells=[_variant(NUMPY_DIAGONALS_FOR_FLATTEN, 'if padding == "same" and a != 0:', "if False:")],
         points=1.0, why="ignores the padding argument: always wraps around (the visible GAP + same case catches it; "
                         "flatten + circular passes)"),
    dict(name="flatten_without_1_over_p", kind="wrong",
         cells=[_variant(TORCH_SHIFT_MATRICES, "M.diagonal(dim1=2, dim2=3).sum(-1) / P", "M.diagonal(dim1=2, dim2=3).sum(-1)")],
         points=1.0, why="flatten sums over positions instead of averaging (visible k = 4 flatten case fails; GAP + same "
                         "passes)"),
    dict(name="gap_pools_diagonal_only", kind="wrong",
         cells=[_variant(TORCH_SHIFT_MATRICES, "return M.sum((2, 3)) / P ** 2",
                         "return M.diagonal(dim1=2, dim2=3).sum(-1) / P")],
         points=2.0, why="GAP averages only p = p' (that is flatten): not shift invariant"),
    dict(name="conv_without_1_over_k", kind="wrong",
         cells=[_variant(NUMPY_PAIR_LOOPS, "return 2.0 * out / k", "return 2.0 * out")], points=0.0,
         why="convolution sums the k offsets without the 1/k of the fan-in"),
    dict(name="one_variance_for_both", kind="wrong",
         cells=[_variant(TORCH_SHIFT_MATRICES, "v[:, None, :, None] * v[None, :, None, :]",
                         "v[:, None, :, None] * v[:, None, :, None]")], points=0.0,
         why="ReLU step uses the variance of the first input for both (the triple mistake)"),
    dict(name="sqrt_sqrt_acos_antipodal_edge", kind="correct",
         cells=[_variant(TORCH_SHIFT_MATRICES, "norm = torch.sqrt(v[:, None, :, None] * v[None, :, None, :])",
                         "norm = v.sqrt()[:, None, :, None] * v.sqrt()[None, :, None, :]")], points=4.0,
         why="rho = Sigma / (sqrt(v) sqrt(v')) with acos: off by ulps at the antipodal pairs, within the floor"),
    dict(name="symmetric_offsets", kind="wrong",
         cells=[_variant(TORCH_SHIFT_MATRICES, "for a in range(-((k - 1) // 2), k // 2 + 1):",
                         "for a in range(-(k // 2), k // 2 + 1):")], points=0.0,
         why="offsets -k//2 .. k//2: right for odd k, k + 1 taps for even k (the visible k = 4 case catches it)"),
    dict(name="extra_offset_on_the_left", kind="wrong",
         cells=[_variant(TORCH_SHIFT_MATRICES, "for a in range(-((k - 1) // 2), k // 2 + 1):",
                         "for a in range(-(k // 2), (k - 1) // 2 + 1):")], points=2.0,
         why="even k with the extra offset on the left: same kernel with circular padding (visible and flatten "
             "circular pass), wrong with zero padding (both 'same' cells fail)"),
    dict(name="hardcoded_visible_values", kind="gaming", cells=[GAMING], points=1.0,
         why="returns the visible test's matrix whatever the input: passes the visible test only"),
]
