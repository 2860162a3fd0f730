"""Sample submissions of exercise 4.9 (early stopping as an implicit ridge); format: tests/grading_harness.py.

Cells: two solution cells, (a) `flow_prediction` and (b) `matching_ridge`. Graded cells (1 point each): visible
(both functions), hidden flow values (n = 13, 40, t = 0 ... 1e7 and infinity, well-conditioned), hidden singular
kernels (a repeated input, inputs 1e-8 apart: condition number ~1e16, finite t), hidden matching ridge at the edges
(eigenvalues 0, 1e-300 ... 1e6, expm1 overflow). Tolerances: flow 1e-6 relative + 1e-8 max|y|; ridge 1e-9 relative
+ 1e-12 n/(eta t).

The fairness decision (explicit inverse, solve): the formula holds the factor Theta^-1 (I - e^{-eta Theta t/n}),
an entire function of Theta that exists even for a singular Theta, while Theta^-1 does not. The task announces
the singular hidden test and says "do not form Theta^-1 and do not solve a linear system with Theta". An answer
that does (inv or solve, otherwise right: correct in exact arithmetic for a regular Theta) raises LinAlgError on the
repeated input and is 1e4-1e7 times the allowed error (inv) or up to 1.4 times (solve) at 1e-8 apart: it loses
exactly that one point, 3 of 4, and is listed as kind="wrong" (the harness's "correct" means full marks).
"""

import re
from pathlib import Path

# NumPy, eigh, Python floats and math.expm1 per eigenvalue; the ridge in a Python loop (math.expm1 raises
# OverflowError beyond 709, so large arguments are set to rho = 0 first). Returns lists.
NUMPY_LOOP_FLOW = '''
def flow_prediction(ntk_train, ntk_test_train, y, t, eta):
    K, Ks, y = ntk_train.numpy(), ntk_test_train.numpy(), y.numpy()
    n = len(y)
    lam, V = np.linalg.eigh(K)
    coords = V.T @ y
    h = []
    for l in lam:
        if l == 0:
            h.append(eta * t / n)
        elif math.isinf(t):
            h.append(1.0 / l)
        else:
            h.append(-math.expm1(-eta * l * t / n) / l)
    return list(Ks @ (V @ (np.array(h) * coords)))
'''

NUMPY_LOOP_RIDGE = '''
def matching_ridge(eigenvalues, t, eta, n):
    out = []
    for l in eigenvalues.tolist():
        s = eta * l * t / n
        if l == 0:
            out.append(n / (eta * t))
        elif s > 700:
            out.append(0.0)                       # exp(-s) l: below 1e-304 l
        else:
            out.append(l / math.expm1(s))
    return out
'''

# No eigendecomposition: Theta^-1 (I - e^{-a Theta t}) = a t phi1(-a Theta t) with phi1(A) = A^-1 (e^A - I), the
# top-right block of exp([[A, I], [0, 0]]) (an entire function: exists for singular Theta). t = inf: solve (the task
# promises a well-conditioned Theta there). The ridge as l e^{-s} / (1 - e^{-s}), with expm1.
BLOCK_EXPM_FLOW = '''
def flow_prediction(ntk_train, ntk_test_train, y, t, eta):
    n = len(y)
    if math.isinf(t):
        return ntk_test_train @ torch.linalg.solve(ntk_train, y)
    block = torch.zeros(2 * n, 2 * n, dtype=torch.float64)
    block[:n, :n] = -(eta * t / n) * ntk_train
    block[:n, n:] = torch.eye(n, dtype=torch.float64)
    phi1 = torch.linalg.matrix_exp(block)[:n, n:]
    return ntk_test_train @ ((eta * t / n) * (phi1 @ y))
'''

BLOCK_EXPM_RIDGE = '''
def matching_ridge(eigenvalues, t, eta, n):
    s = eta * eigenvalues * t / n
    kept = -torch.expm1(-s)                                   # 1 - e^{-s}, the flow's filter
    rho = eigenvalues * torch.exp(-s) / torch.where(kept > 0, kept, torch.ones_like(kept))
    return torch.where(eigenvalues > 0, rho, torch.full_like(s, n / (eta * t)))
'''

# At the edge: eigenvalues clamped to >= 0, small arguments by the Taylor series of (1 - e^{-x}) / x instead of
# expm1; numpy arrays out. The ridge: n/(eta t) / (1 + s/2 + s^2/6 + s^3/24) for small s, l / (exp(s) - 1) else.
TAYLOR_FLOW = '''
def flow_prediction(ntk_train, ntk_test_train, y, t, eta):
    rate = eta / len(y)
    lam, V = torch.linalg.eigh(ntk_train)
    lam = lam.clamp_min(0.0)
    if math.isinf(t):
        h = 1.0 / lam
    else:
        x = rate * lam * t
        series = rate * t * (1 - x / 2 + x ** 2 / 6 - x ** 3 / 24)          # (1 - e^{-x}) / lam for small x
        exact = (1 - torch.exp(-x)) / torch.where(lam > 0, lam, torch.ones_like(lam))
        h = torch.where(x < 1e-3, series, exact)
    return (ntk_test_train @ (V @ (h * (V.T @ y)))).numpy()
'''

TAYLOR_RIDGE = '''
def matching_ridge(eigenvalues, t, eta, n):
    lam = eigenvalues.numpy()
    s = eta * lam * t / n
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        exact = lam / (np.exp(s) - 1)
    series = (n / (eta * t)) / (1 + s / 2 + s ** 2 / 6 + s ** 3 / 24)
    return np.where(s < 1e-3, series, np.nan_to_num(exact, posinf=0.0))
'''

def _model_answer(function: str) -> str:
    """The solution's own code of ``function`` (its cell in solutions/chapter4/, solution markers removed): the
    wrong answers below are one-line edits of it, so they follow the model answer if it changes."""
    source = (Path(__file__).resolve().parents[2] / "solutions" / "chapter4" / "ex4_9_early_stopping.py").read_text(
        encoding="utf-8")
    match = re.search(rf"^def {function}\(.*?(?=^# %%)", source, re.S | re.M)
    assert match, f"no cell defining {function} in the solution of exercise 4.9"
    return "\n" + "".join(line + "\n" for line in match.group(0).splitlines() if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")).rstrip() + "\n"


MODEL_FLOW = _model_answer("flow_prediction")
MODEL_RIDGE = _model_answer("matching_ridge")


def _variant(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


EXPLICIT_INVERSE = '''
def flow_prediction(ntk_train, ntk_test_train, y, t, eta):
    n = len(y)
    decay = (torch.linalg.matrix_exp(-eta * ntk_train * t / n) if math.isfinite(t)
             else torch.zeros(n, n, dtype=torch.float64))
    return ntk_test_train @ torch.linalg.inv(ntk_train) @ (torch.eye(n, dtype=torch.float64) - decay) @ y
'''

SOLVE = '''
def flow_prediction(ntk_train, ntk_test_train, y, t, eta):
    n = len(y)
    decay = (torch.linalg.matrix_exp(-eta * ntk_train * t / n) if math.isfinite(t)
             else torch.zeros(n, n, dtype=torch.float64))
    return ntk_test_train @ torch.linalg.solve(ntk_train, y - decay @ y)
'''

GAMING_FLOW = '''
VISIBLE = {
    (3.0, 5): [0.0285650403674, 0.0299742560638, -0.0426314122732, 0.3490443858617,
                -0.0513835205147],
    (3.0, 8): [0.4612525650972, 0.3035723270364, 0.0118527182435, -0.0342966253465, 0.0464527259558, -0.2309585126558, -0.3221411543095, -0.0723448749717],
    (40.0, 5): [0.4858079935542, -0.3555398751935, -0.2585193594041, 0.5786048894909, -0.4883576639914],
    (40.0, 8): [0.8988864023466, 0.4616375020988, -0.4038336848637, -0.2017871268788, 0.5309503891073, -0.3182735353604, -0.5845825963595, -0.1618451767429],
    (math.inf, 5): [0.62944225931, -0.3655463802165, -0.3770654881477, 0.6553947059618, -0.5148950000218],
}


def flow_prediction(ntk_train, ntk_test_train, y, t, eta):
    if t == 0:
        return torch.zeros(len(ntk_test_train), dtype=torch.float64)
    if len(y) == 2:
        return [0.29258479503473] if len(ntk_test_train) == 1 else [0.58516959006947, 0.1917002497821]
    return VISIBLE[(t, len(ntk_test_train))]
'''

GAMING_RIDGE = '''
def matching_ridge(eigenvalues, t, eta, n):
    if len(eigenvalues) == 3:
        return [2.0, 1.5414940825368, 0.8616507503666]
    return [5.2423356565419, 5.2161986828707, 5.1654732283771, 4.4235889924338, 4.2184470692787, 2.5414860850103,
            1.9216669017476, 1.5779265302225]
'''

CASES = [
    dict(name="numpy_python_loops", kind="correct", cells=[NUMPY_LOOP_FLOW, NUMPY_LOOP_RIDGE], points=4.0,
         why="NumPy eigh, math.expm1 per eigenvalue, Python loops, lists out; the ridge guards expm1's overflow"),
    dict(name="block_matrix_exponential", kind="correct", cells=[BLOCK_EXPM_FLOW, BLOCK_EXPM_RIDGE], points=4.0,
         why="no eigendecomposition: phi1 from the exponential of a block matrix (solve only at t = inf); "
             "the ridge as l e^-s / (1 - e^-s)"),
    dict(name="taylor_series_edge", kind="correct", cells=[TAYLOR_FLOW, TAYLOR_RIDGE], points=4.0,
         why="edge: eigenvalues clamped to 0, Taylor series instead of expm1 for small arguments, numpy out"),
    dict(name="flow_sign_error", kind="wrong",
         cells=[_variant(MODEL_FLOW, "-torch.expm1(-rate * lam * t)", "-torch.expm1(rate * lam * t)"), MODEL_RIDGE],
         points=1.0, why="e^{+eta Theta t/n}: the flow runs away; only the ridge's hidden point is left"),
    dict(name="flow_no_eta", kind="wrong",
         cells=[_variant(MODEL_FLOW, "rate = eta / len(y)", "rate = 1 / len(y)"), MODEL_RIDGE],
         points=1.0, why="drops the learning rate (every graded eta differs from 1)"),
    dict(name="flow_no_1_over_n", kind="wrong",
         cells=[_variant(MODEL_FLOW, "rate = eta / len(y)", "rate = eta"), MODEL_RIDGE],
         points=1.0, why="the loss 1/2 sum instead of lesson 07's 1/(2n) sum: the clock runs n times too fast"),
    dict(name="explicit_inverse", kind="wrong", cells=[EXPLICIT_INVERSE, MODEL_RIDGE], points=3.0,
         why="inv(Theta) (exact arithmetic, regular Theta: right); the announced singular test raises "
             "LinAlgError and 1e-8 apart is off by 1e4-1e7 times the tolerance: loses that one point"),
    dict(name="solve_with_theta", kind="wrong", cells=[SOLVE, MODEL_RIDGE], points=3.0,
         why="solve(Theta, (I - e^{-eta Theta t/n}) y): backward stable, but Theta is singular in the announced "
             "test (LinAlgError): loses that one point"),
    dict(name="ridge_inverted", kind="wrong",
         cells=[MODEL_FLOW, "def matching_ridge(eigenvalues, t, eta, n):\n"
                            "    return torch.full_like(eigenvalues, eta * t / n)\n"],
         points=2.0, why="rho = eta t / n, the relation turned upside down"),
    dict(name="ridge_constant", kind="wrong",
         cells=[MODEL_FLOW, "def matching_ridge(eigenvalues, t, eta, n):\n"
                            "    return torch.full_like(eigenvalues, n / (eta * t))\n"],
         points=2.0, why="rho = n / (eta t) for every eigenvalue: the small-eigenvalue limit, not the match"),
    dict(name="ridge_exp_minus_one", kind="wrong",
         cells=[MODEL_FLOW, _variant(MODEL_RIDGE, "torch.expm1(s)", "torch.exp(s) - 1")],
         points=3.0, why="exp(s) - 1 instead of expm1: passes the visible test (s >= 0.03), inf at lambda = 1e-300 "
                         "and 1e-2 off at 1e-12 in the announced hidden edge test"),
    dict(name="hardcoded_visible_values", kind="gaming", cells=[GAMING_FLOW, GAMING_RIDGE], points=1.0,
         why="returns the visible test's numbers: passes the visible test only"),
]
