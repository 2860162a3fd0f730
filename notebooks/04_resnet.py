# %% [markdown]
# # 04 · Residual networks: how the branch scale α decides everything
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/04_resnet.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F04_resnet.ipynb)
#
# *Chapter 4.3.*
#
# **You will learn**
# - how the kernel of a residual block $x + \alpha\,g(x)$ is built: the skip passes the kernel on, and the branch
#   adds $\alpha^2$ times its own map;
# - that with $\alpha = 1$ the NTK grows **exponentially** with depth, with $\alpha = 1/\sqrt L$ it stays
#   bounded (it tends to $3e\,q_0$ for ReLU), and with $\alpha = 1/L$ the branches fade away;
# - why the product of block Jacobians $\prod_l (I + \alpha J_l)$ stays bounded for $\alpha = 1/\sqrt L$, and
#   why that is *not* the same as the first-order formula $I + \alpha\sum_l J_l$;
# - why the chapter's $O(\sqrt L)$ arithmetic is wrong: gradients of different blocks add in **squares**, so each
#   block carries a share of the NTK of order $\alpha^2$.
#
# **Prerequisites:** lesson 02 (the NNGP $\Sigma$ and NTK $\Theta$ recursion of an MLP).

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
from tqdm.auto import tqdm
import ntk_helpers as nh
from ntk_helpers.course import residual as course     # this lesson's experiments, diagram and explorer

nh.plotting.use_style()
PALETTE = nh.plotting.PALETTE

# %% [markdown]
# ## The idea in one picture
#
# A residual block adds a scaled branch to its input, $x \mapsto x + \alpha\,g(x)$, and at infinite width the
# branch is uncorrelated with the skip, so their kernels simply add. Each block therefore passes $\Sigma$ and
# $\Theta$ on and adds $\alpha^2$ times what its branch makes of them, and the size of $\alpha$ alone decides
# whether many blocks make the kernel explode, level off, or forget the branches.

# %%
course.induction_diagram()
plt.show()

# %% [markdown]
# Read the picture from the top. The input layer starts both kernels at $q_0 = \Sigma^{(0)}(x, x)$. Every block
# applies the rule in the dashed box. The readout adds the last $\Sigma$ to $\Theta$. The rest of the lesson
# asks what this rule does over many blocks, for three choices of $\alpha$: $1$, $1/\sqrt L$ and $1/L$.
#
# ## 4.3.1 The model and its kernel
#
# The network has an input layer $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$, then $L$ blocks
# $x^{(l)} = x^{(l-1)} + \alpha\,g_l(x^{(l-1)})$ with the branch $g_l(x) = \frac{\sigma_w}{\sqrt m}W^{(l)}\phi(x)$,
# and a linear readout $f = \frac{1}{\sqrt m}\,w^\top x^{(L)}$. All weights are drawn from $\mathcal N(0, 1)$
# (the NTK parameterization of lesson 01).
#
# The branch ends in the fresh, zero-mean weights $W^{(l)}$. So $\mathbb E[x^{(l-1)}_i\, g_l(x')_i] = 0$: the skip
# and the branch are uncorrelated, and the covariance of their sum is the sum of their covariances. With the
# Gaussian expectations of lesson 02, $\mathbb E[\phi\phi] = \mathbb E[\phi(u)\phi(v)]$ and
# $\mathbb E[\phi'\phi'] = \mathbb E[\phi'(u)\phi'(v)]$ for $(u, v) \sim \mathcal N(0, \Sigma^{(l-1)})$:
#
# $$\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi], \qquad
#   \Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']\bigr)\Theta^{(l-1)}
#   + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$$
#
# (Huang et al. 2020; Hayou et al. 2021). The $\Theta$ rule is the MLP's rule of lesson 02 times $\alpha^2$, plus
# the $\Theta^{(l-1)}$ that the skip carries. In the package, one block is
# `nh.residual(nh.relu(), nh.dense(), alpha=...)`, and `nh.resnet(L, alpha=...)` builds the whole network:

# %%
print(nh.resnet(2, alpha=0.5))      # dense -> 2 x residual(relu, dense) -> dense(1)

# %% [markdown]
# ### Products of block Jacobians
#
# The same bookkeeping works for gradients. Backpropagation through block $l$ multiplies by $I + \alpha J_l$, where
# $J_l = \partial g_l/\partial x$ is the branch's Jacobian. For a ReLU branch $J_l = \frac{\sigma_w}{\sqrt m}
# W^{(l)} D_l$, with $D_l$ the diagonal matrix of the ReLU gates that are open at $x^{(l-1)}$. The $J_l$ are not
# independent, because $D_l$ depends on the blocks below. What holds is that $W^{(l)}$ is fresh: given everything
# below block $l$, $J_l$ has mean zero, and
# $\mathbb E_{W^{(l)}}\|J_l v\|^2 = \sigma_w^2\|D_l v\|^2 \approx c\,\|v\|^2$, with the mean-square gain
# $c = \sigma_w^2\,\mathbb E[\phi'(u)^2]$ ($c = 1$ for ReLU with $\sigma_w^2 = 2$: about half the gates are open).
# Nothing makes $J_l$ itself small: its operator norm is of order one at every width.
#
# Push a direction $v$ through the blocks, $v_l = (I + \alpha J_l)\,v_{l-1}$. The fresh $W^{(l)}$ makes the cross
# term vanish on average, so
# $\mathbb E\|v_l\|^2 = \mathbb E\|v_{l-1}\|^2 + \alpha^2\sigma_w^2\,\mathbb E\|D_l v_{l-1}\|^2
# \approx (1 + \alpha^2 c)\,\mathbb E\|v_{l-1}\|^2$: the Jacobians add **in squares**, and
#
# $$\mathbb E\bigl\|\textstyle\prod_l(I + \alpha J_l)\,v\bigr\|^2 \approx (1 + \alpha^2 c)^L\,\|v\|^2 .$$
#
# Expanding the product into a sum over subsets of blocks shows what the first-order formula
# $I + \alpha\sum_l J_l$ keeps. Terms with different subsets are uncorrelated (in the wide limit), and the
# $\binom Lk$ terms with $k$ factors each have mean square about $(\alpha^2 c)^k$. They sum to $(1+\alpha^2 c)^L$,
# of which the first order keeps $1 + L\alpha^2 c$. Everything beyond it has the relative size
#
# $$r = \sqrt{1 - \frac{1 + L\alpha^2 c}{(1+\alpha^2 c)^L}} \;\approx\; \frac{L\alpha^2 c}{\sqrt 2}
#   \quad\text{when } L\alpha^2 c \ll 1 .$$
#
# **Predict before you run the next cells:** at $L = 256$ blocks with $\alpha = 1/\sqrt L$, is the part beyond
# first order about 5 %, 50 % or 500 % of the product? And for $\alpha = 1/L$?
#
# We measure with real ReLU residual networks of width 256 at initialization: their gates come from their own
# forward pass (`course.jacobian_product` pushes 32 random directions through the blocks).

# %%
block_counts = [2, 4, 8, 16, 32, 64, 128, 256]
scalings = course.SCALINGS                      # α as a function of L: 1, 1/√L, 1/L
measured = {name: [course.jacobian_product(L, alpha(L), width=256) for L in block_counts]
            for name, alpha in scalings.items()}
predicted = {name: [course.beyond_first_order(L, alpha(L)) for L in block_counts]
             for name, alpha in scalings.items()}
for name in scalings:
    print(nh._("{scaling}, L = 256: beyond first order {measured:.3f} of the product (predicted r = {r:.3f})")
          .format(scaling=name, measured=measured[name][-1].beyond_first_order, r=predicted[name][-1]))
norms = [course.branch_jacobian_norm(m) for m in (64, 256, 1024)]
print(nh._("operator norm of one branch Jacobian at widths 64, 256, 1024: {a:.1f}, {b:.1f}, {c:.1f}")
      .format(a=norms[0], b=norms[1], c=norms[2]))

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):
    ax.loglog(block_counts, [p.beyond_first_order for p in measured[name]], "o", color=color,
              label=f"{name}: measured")
    ax.loglog(block_counts, predicted[name], "--", color=color, label=f"{name}: predicted r")
nh.plotting.width_ticks(ax, block_counts)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("‖∏(I+αJ) − (I+αΣJ)‖ / ‖∏(I+αJ)‖")
ax.set_title(nh._("Only α = 1/L makes the product first-order; at α = 1/√L half of it lies beyond"))
ax.legend(ncol=2, fontsize="small")
plt.show()

# %% [markdown]
# <details><summary>Answer</summary>
#
# About 50 %: at $\alpha = 1/\sqrt L$ the measured part beyond first order is 0.52 of the product at $L = 256$
# (predicted 0.513), and $r \to \sqrt{1 - 2/e} \approx 0.51$ as $L$ grows. The product stays bounded,
# $\|\prod\|^2 \approx (1 + 1/L)^L \|v\|^2 \to e\,\|v\|^2$, but the first order keeps only $1 + L\alpha^2 = 2$ of
# that $e \approx 2.72$. With $\alpha = 1/L$ the remainder falls like $1/L$ (0.003 at $L = 256$): the
# first-order formula becomes exact. With $\alpha = 1$ the product grows like $2^L$ on average (single networks
# fluctuate by orders of magnitude) and is nothing like the first-order formula.
#
# </details>
#
# The measured points sit a few percent off the prediction. That is finite width: neighbouring blocks see almost
# the same input, so they share their gates, and in a network of width 256 the fraction of open gates misses
# $\tfrac12$ by a few percent, and the gain $c$ misses $1$ by twice as much.

# %% tags=["check"]
ones = np.ones(len(block_counts))
beyond = {name: np.array([p.beyond_first_order for p in measured[name]]) for name in scalings}
growth = {name: np.array([p.growth / (1 + alpha(L) ** 2) ** L for p, L in zip(measured[name], block_counts)])
          for name, alpha in scalings.items()}
# a width-256 network's gain c is twice its fraction of open gates: 1 ± 0.06; 25 % is four times that
nh.check_close("α = 1: part beyond first order / r, L = 2 … 256", beyond["α = 1"] / predicted["α = 1"], ones,
               rtol=0.25)
nh.check_close("α = 1/√L: part beyond first order / r, L = 2 … 256",
               beyond["α = 1/√L"] / predicted["α = 1/√L"], ones, rtol=0.25)
nh.check_close("α = 1/L: part beyond first order / r, L = 2 … 256", beyond["α = 1/L"] / predicted["α = 1/L"],
               ones, rtol=0.25)
nh.check_between("α = 1/√L, L = 256: part beyond first order (r = 0.51)", beyond["α = 1/√L"][-1], 0.4, 0.6)
# the product's mean square is about e^c at α = 1/√L: 20 % is three standard deviations of c
nh.check_close("α = 1/√L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256", growth["α = 1/√L"], ones, rtol=0.2)
nh.check_close("α = 1/L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256", growth["α = 1/L"], ones, rtol=0.2)
# the largest singular value of √(2/m) W D with m/2 open gates tends to 1 + √2 (Marchenko–Pastur edge)
nh.check_close("operator norm of one branch Jacobian at width 1024 (1 + √2 as m → ∞)", norms[-1],
               1 + math.sqrt(2), rtol=0.05)

# %% [markdown]
# ## 4.3.2 How the NTK grows with depth
#
# For ReLU without bias, on the diagonal $x = x'$: $\mathbb E[\phi\phi] = \Sigma/2$ and
# $\mathbb E[\phi'\phi'] = 1/2$. Write $\gamma = \alpha^2\sigma_w^2/2$ for the growth per block (it is the
# $\alpha^2 c$ of the Jacobians). The induction takes three lines:
#
# 1. $\Sigma^{(l)} = (1+\gamma)\,\Sigma^{(l-1)}$, so $\Sigma^{(l)} = q_0 (1+\gamma)^l$.
# 2. $\Theta^{(l)} = (1+\gamma)\,\Theta^{(l-1)} + \gamma\,q_0(1+\gamma)^{l-1}$. Divided by $(1+\gamma)^l$, this
#    says that $\Theta^{(l)}/(1+\gamma)^l$ grows by $q_0\,\gamma/(1+\gamma)$ per block, starting from
#    $\Theta^{(0)} = \Sigma^{(0)} = q_0$ (the input layer has no layer below it).
# 3. So $\Theta^{(L)} = q_0(1+\gamma)^L\bigl(1 + L\gamma/(1+\gamma)\bigr)$, and the readout (variance 1) adds
#    $\Sigma^{(L)} = q_0(1+\gamma)^L$:
#
# $$\Theta(x,x) = q_0\,(1+\gamma)^L\Bigl(2 + \frac{L\gamma}{1+\gamma}\Bigr).$$
#
# **Predict:** with $\alpha = 1$ and $\sigma_w^2 = 2$, by what factor does $\Theta(x, x)$ grow per block when $L$ is
# large? With $\alpha = 1/\sqrt L$, does it keep growing with $L$? (Hint: $(1 + 1/L)^L \to e$.) And with
# $\alpha = 1/L$? Below, the package's recursion for two inputs 17° apart, with $q_0 = 2$.

# %%
x = nh.pair_at_angle(math.radians(17), d=2)          # two inputs 17° apart, q₀ = σ_w² x·x/d = 2
q0 = 2.0
depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]        # α = 1: Θ ~ 2^L; variances² overflow float64 near L = 500
diagonal, correlation = {}, {}
for name, alpha in scalings.items():
    kernels = [nh.resnet(L, alpha=alpha(L)).kernel(x).ntk for L in depths]
    diagonal[name] = np.array([float(k[0, 0]) for k in kernels])
    correlation[name] = np.array([float(k[0, 1] / k[0, 0]) for k in kernels])

# %% tags=["check"]
ratio = np.concatenate([diagonal[name] / [course.closed_form_ntk(L, alpha(L), q0) for L in depths]
                        for name, alpha in scalings.items()])
# the recursion and the closed form are the same algebra: they agree to rounding
nh.check_close("Θ(x, x) of the recursion / the closed form, 3 scalings × 9 depths", ratio,
               np.ones_like(ratio), rtol=1e-10)

# %%
fig, ax = plt.subplots()
for name in scalings:
    ax.loglog(depths, diagonal[name] / q0, "o-", label=name)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title(r"α = 1 grows like $2^L$ ($10^{79}$ at L = 256)")
ax.legend()
plt.show()

# %% [markdown]
# On that scale the two other scalings look flat. Zoomed in, on a linear axis:

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):
    if name != "α = 1":
        ax.semilogx(depths, diagonal[name] / q0, "o-", color=color, label=name)
ax.axhline(3 * math.e, color="k", ls="--", lw=1, label="3e (limit of α = 1/√L)")
ax.axhline(2, color="k", ls=":", lw=1, label="2 (limit of α = 1/L)")
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title(nh._("α = 1/√L levels off at 3e·q₀, α = 1/L falls to 2·q₀"))
ax.legend()
plt.show()

# %% [markdown]
# <details><summary>Answer</summary>
#
# With $\alpha = 1$, $\gamma = 1$: every block doubles both $\Sigma$ and the $\Theta$ carried from below, so
# $\Theta$ grows like $2^L$ (times the slowly growing factor $2 + L/2$): $\log\Theta$ rises by 0.713 per block
# between $L = 32$ and $64$, close to $\log 2 = 0.693$. With $\alpha = 1/\sqrt L$, $\gamma = 1/L$ and
# $(1+1/L)^L \to e$, while $L\gamma/(1+\gamma) \to 1$: $\Theta \to 3e\,q_0$ (8.128 $q_0$ at $L = 256$, against
# $3e = 8.155$). With $\alpha = 1/L$, $(1 + 1/L^2)^L \to 1$ and $L\gamma \to 0$: $\Theta \to 2q_0$, the NTK of the
# linear model $f = \frac{1}{\sqrt m}\,w^\top x^{(0)}$ (input layer and readout give $q_0$ each).
#
# </details>

# %% tags=["check"]
growth_per_block = math.log(diagonal["α = 1"][6] / diagonal["α = 1"][5]) / (64 - 32)
# log Θ / L → log 2 plus the slowly growing log(2 + L/2): 3 % above log 2 between L = 32 and 64
nh.check_close("α = 1: growth of log Θ per block, L = 32 → 64 (log 2)", growth_per_block, math.log(2),
               rtol=0.05)
# the O(1/L) correction at L = 256 is 0.3 %
nh.check_close("α = 1/√L: Θ(x, x)/q₀ at L = 256 (limit 3e)", diagonal["α = 1/√L"][-1] / q0, 3 * math.e,
               rtol=0.01)
nh.check_close("α = 1/L: Θ(x, x)/q₀ at L = 256 (limit 2)", diagonal["α = 1/L"][-1] / q0, 2.0, rtol=0.01)

# %% [markdown]
# ### The *normalized* kernel: does depth still change anything?
#
# Divide by the diagonal: $\Theta(x, x')/\Theta(x, x)$ for the two inputs 17° apart. In an MLP this correlation
# decays with depth: the network forgets the angle (kernel collapse, lesson 02). **Predict** for each scaling:
# does the ResNet forget the angle like the MLP, or does its correlation settle at a value, and which?

# %%
mlp_correlation = [float(k[0, 1] / k[0, 0]) for k in (nh.mlp(L, "relu").kernel(x).ntk for L in depths)]
fig, ax = plt.subplots()
for name in scalings:
    ax.semilogx(depths, correlation[name], "o-", label=f"ResNet, {name}")
ax.semilogx(depths, mlp_correlation, "k--", label="MLP (no skips)")
ax.set_xlabel("depth L")
ax.set_ylabel("Θ(x, x′) / Θ(x, x), 17° apart")
ax.set_title(nh._("α = 1 forgets the angle like an MLP; α = 1/√L and α = 1/L keep it"))
ax.legend()
plt.show()

# %% [markdown]
# <details><summary>Answer</summary>
#
# With $\alpha = 1$ the correlation decays like the MLP's (0.32 at $L = 256$, the MLP 0.28): the blocks' branches
# dominate and depth collapses the kernel. With $\alpha = 1/\sqrt L$ it settles at a depth-independent,
# non-degenerate value (0.916 from $L = 32$ on): extra blocks change little (Hayou et al. 2021). With
# $\alpha = 1/L$ it tends to $\cos 17° = 0.956$, the linear kernel's value: the branches fade away.
#
# </details>

# %% tags=["check"]
last = correlation["α = 1/√L"][-4:]
nh.check_between("α = 1/√L: spread of the correlation over L = 32 … 256", last.max() - last.min(), 0, 0.002)
nh.check_between("α = 1: correlation at L = 256, collapsed", correlation["α = 1"][-1], 0, 0.4)
nh.check_between("α = 1/√L: correlation at L = 256, kept", correlation["α = 1/√L"][-1], 0.9, 1)
# 1/L from the linear kernel at L = 256: the branches' total weight Lα² is 1/256
nh.check_close("α = 1/L: correlation at L = 256 (cos 17°)", correlation["α = 1/L"][-1],
               math.cos(math.radians(17)), atol=0.005)

# %% [markdown]
# ### Finite networks agree
#
# The recursion is an infinite-width statement. We compare it with the mean empirical NTK of 8 networks of width
# 1024 with 4 blocks, on 8 inputs, for each scaling. **Predict:** for which scaling is one network furthest from
# the analytic NTK? The 24 empirical NTKs take about 15 s on a laptop (a progress bar counts the three scalings).

# %% tags=["nbval-ignore-output"]
inputs = nh.sphere(8, d=6, seed=0)
finite_errors = {}
for name, alpha in tqdm(scalings.items(), desc="scalings", total=len(scalings)):
    arch = nh.resnet(4, alpha=alpha(4))
    sweep = nh.width_sweep(arch, inputs, widths=[1024], seeds=8)
    exact = arch.kernel(inputs).ntk
    finite_errors[name] = sweep.errors.mean(), float((sweep.mean_ntk[0] - exact).norm() / exact.norm())

# %%
for name, (one, mean) in finite_errors.items():
    print(nh._("{scaling}: one network is {one:.1%} off the NTK, the mean of 8 networks {mean:.1%}").format(
        scaling=name, one=one, mean=mean))

# %% [markdown]
# <details><summary>Answer</summary>
#
# $\alpha = 1$: one network is 10.6 % off, against 8.1 % for $\alpha = 1/\sqrt L$ and 5.9 % for $\alpha = 1/L$, and
# the mean of 8 networks is within 2–5 % for all three. A larger $\alpha$ gives the random branches more weight
# in the kernel. Take the ordering as a measurement at $L = 4$ and width 1024, not as a law: for MLPs, Hanin &
# Nica (2020) show that the NTK's finite-width fluctuations grow with the ratio of depth to width, but residual
# networks behave differently (Li, Nica & Roy 2021 study them when depth and width grow together).
#
# </details>

# %% tags=["check"]
# one network is 6–11 % off; the mean of 8 has a √8 smaller spread plus an O(1/m) bias: 8 % is twice
# the largest expected
nh.check_between("largest error of the mean of 8 networks (3 scalings)",
                 max(mean for _, mean in finite_errors.values()), 0, 0.08)
ones_error = [one for one, _ in finite_errors.values()]
nh.check_that("one network's error falls from α = 1 to 1/√L to 1/L (L = 4, width 1024)",
              ones_error[0] > ones_error[1] > ones_error[2], measured=str(np.round(ones_error, 3)),
              expected="decreasing")

# %% [markdown]
# ## 4.3.3 Where the NTK comes from: blocks add in squares
#
# $\Theta(x, x) = \sum_p (\partial f/\partial p)^2$ is a sum over **parameters** of squared gradients, so it
# splits into one part per layer. Block $l$'s weights get the gradient
# $\partial f/\partial W^{(l)}_{ij} = \frac{\alpha\sigma_w}{\sqrt m}\,\delta_i\,\phi(x^{(l-1)})_j$, with
# $\delta = \partial f/\partial x^{(l)}$ the backward signal. Its square sums to
# $\alpha^2\sigma_w^2\,\|\delta\|^2\,\|\phi(x^{(l-1)})\|^2/m$: a forward factor
# $\Sigma^{(l-1)}/2 = q_0(1+\gamma)^{l-1}/2$ times a backward factor $\|\delta\|^2 = (1+\gamma)^{L-l}$ (the
# product of Jacobians above block $l$). For ReLU without bias the product is the same for every block,
# $\gamma\,q_0(1+\gamma)^{L-1}$: each block carries the share
#
# $$\frac{\gamma/(1+\gamma)}{2 + L\gamma/(1+\gamma)}$$
#
# of $\Theta(x, x)$, and the input layer and the readout carry $1/(2 + L\gamma/(1+\gamma))$ each. A block's share is
# of order $\gamma = \alpha^2\sigma_w^2/2$: the **square** of the branch scale.
#
# **Predict:** at $L = 16$ with $\alpha = 1/\sqrt L = 1/4$, what share of $\Theta(x, x)$ do all 16 blocks carry
# together: $16 \times 1/4$ (four times all of it), about $1/3$, or $1/16$?
#
# We measure each layer's share in 8 finite networks of width 256 for each $L$ (`course.block_shares`: one
# backward pass, the squared gradients grouped by layer).

# %%
share_depths = [2, 4, 8, 16, 32, 64]
shares = {L: [course.block_shares(L, L ** -0.5, inputs[0], width=256, seed=seed) for seed in range(8)]
          for L in share_depths}
closed = {L: course.ntk_shares(L, L ** -0.5) for L in share_depths}
all_blocks = {L: np.mean([s.blocks.sum() for s in shares[L]]) for L in share_depths}
one_block = np.array([all_blocks[L] / L for L in share_depths])
for L in (4, 16):
    print(nh._("L = {depth}, α = 1/√L: all blocks carry {measured:.3f} of Θ(x, x) (closed form {closed:.3f})")
          .format(depth=L, measured=all_blocks[L], closed=closed[L].blocks))

# %%
fig, ax = plt.subplots()
ax.loglog(share_depths, one_block, "o", label=nh._("finite networks (width 256, mean of 8)"))
ax.loglog(share_depths, [closed[L].block for L in share_depths], "-", label=nh._("closed form"))
ax.loglog(share_depths, one_block[0] * (np.array(share_depths) / share_depths[0]) ** -0.5, "k:",
          label=nh._("if it fell like α = 1/√L"))
nh.plotting.width_ticks(ax, share_depths)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel(nh._("one block's share of Θ(x, x)"))
ax.set_title(nh._("Each block's share falls like α² = 1/L, not like α = 1/√L"))
ax.legend()
plt.show()

# %% [markdown]
# <details><summary>Answer</summary>
#
# About a third: 0.320 in closed form ($\gamma = 1/16$, each block $\frac{1/17}{2 + 16/17} = 0.020$), and the
# finite networks measure 0.328. Each block's share is of order $\alpha^2 = 1/L$, so $L$ blocks together carry
# $O(1)$. Adding $L$ amplitudes of size $\alpha = 1/\sqrt L$ would give $\sqrt L$; the NTK adds squares.
#
# </details>
#
# Where does the rest of $\Theta$ come from? The closed form splits it between the input layer, all blocks
# together and the readout; the dots are the finite networks' input layer plus blocks.

# %%
bar_depths = [1, 4, 16, 64, 256]
parts = [course.ntk_shares(L, L ** -0.5) for L in bar_depths]
labels = [str(L) for L in bar_depths]
fig, ax = plt.subplots(figsize=(8.6, 4.0))
bottom = np.zeros(len(bar_depths))
layers = [("input", nh._("input layer"), PALETTE[0]), ("blocks", nh._("all blocks"), PALETTE[2]),
          ("readout", nh._("readout"), PALETTE[4])]
for field, name, color in layers:
    height = np.array([getattr(part, field) for part in parts])
    ax.bar(labels, height, bottom=bottom, color=color, label=name)
    bottom += height
top = [np.mean([s.input + s.blocks.sum() for s in shares[L]]) for L in (4, 16, 64)]
ax.plot(["4", "16", "64"], top, "ko", label=nh._("finite networks: input layer + blocks"))
for third in (1 / 3, 2 / 3):
    ax.axhline(third, color="k", ls=":", lw=1)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel(nh._("share of Θ(x, x), α = 1/√L"))
ax.set_title(nh._("α = 1/√L: input layer, blocks and readout end with a third each"))
ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()

# %% [markdown]
# As $L$ grows with $\alpha = 1/\sqrt L$, $L\gamma/(1+\gamma) \to 1$ and the three parts tend to $1/3$ each: that is
# the limit $3e\,q_0 = e\,q_0 + e\,q_0 + e\,q_0$ of section 4.3.2. With $\alpha = 1$, every block's share is
# $1/(L + 4)$, so the blocks together take almost all of a $\Theta$ that grows like $2^L$.

# %% tags=["check"]
# one network's block total scatters by about 8 % at width 256 (16 seeds), the mean of 8 by about 3 %; 10 % is
# three standard errors, and a block share that fell like α = 1/√L would miss by a factor of √L
nh.check_close("α = 1/√L, L = 4: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.286)",
               all_blocks[4], closed[4].blocks, rtol=0.1)
nh.check_close("α = 1/√L, L = 16: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.320)",
               all_blocks[16], closed[16].blocks, rtol=0.1)
slope, closed_slope = (np.polyfit(np.log(share_depths), np.log(y), 1)[0]
                       for y in (one_block, [closed[L].block for L in share_depths]))
# the closed form's slope is −0.92 over L = 2 … 64 (−1 as L → ∞); the O(√L) arithmetic would give −0.5
nh.check_close("log-log slope of one block's share against L", slope, closed_slope, atol=0.08)
# one block of one network scatters by about 10 %, the mean of 8 by 3.5 %: 20 % leaves room for 16 blocks
nh.check_close("L = 16: every block carries the same share (mean of 8 networks)",
               np.mean([s.blocks for s in shares[16]], axis=0), np.full(16, closed[16].block), rtol=0.2)
nh.check_close("α = 1/√L, L = 16: input layer + blocks, mean of 8 networks", top[1],
               closed[16].input + closed[16].blocks, rtol=0.1)

# %% [markdown]
# ## Explore
#
# The explorer draws the normalized NTK $\Theta(x, x')/\Theta(x, x)$ against the angle between two inputs: at
# depth $L$ (dark), for one block (faint; at $L = 1$ every scaling has $\alpha = 1$), and the linear kernel
# $\cos\theta$ (dotted). Its title says in one sentence what depth did to the kernel; the line below it gives
# $\Theta(x, x)$ and the values at 3°, 90° and 180°. The activations are those with a closed-form kernel (ReLU,
# erf, GELU), so a redraw is quick even at 200 blocks.

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_normalized_ntk, depth=nh.widgets.depth_slider(16, max=200),
                       scaling=nh.widgets.dropdown("scaling", "α = 1/√L", options=list(scalings)),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "erf", "gelu"]))

# %% [markdown]
# **Predict, then check.**
#
# 1. Keep $\alpha = 1/\sqrt L$ and ReLU. How different will the curves at $L = 16$ and $L = 200$ be? Predict,
#    then move the depth slider.
#
# <details><summary>Answer</summary>
#
# Almost the same. From $L = 50$ on the title says that doubling the depth changes the kernel by at most 0.005,
# and the value at 90° moves only from 0.186 ($L = 16$) to 0.191 ($L = 200$). With $\alpha = 1/\sqrt L$ the
# kernel converges to a depth-independent limit.
#
# </details>
#
# 2. Switch to $\alpha = 1$, still ReLU. As you go from 16 to 200 blocks, does the value at 3° stay near 1?
#    What does the curve turn into?
#
# <details><summary>Answer</summary>
#
# No: 0.940 at $L = 16$, 0.720 at $L = 100$ and 0.582 at $L = 200$, and the title keeps saying that depth still
# reshapes the kernel. The curve flattens towards one value, about 0.27 at 90° and at 180°: near and far inputs
# look alike. That is the kernel collapse of a deep MLP (lesson 02), because with $\alpha = 1$ the branches carry
# almost all of $\Theta$.
#
# </details>
#
# 3. Now $\alpha = 1$ with erf. At which depth do inputs only 3° apart become nearly uncorrelated? Why would a
#    bounded activation decorrelate neighbours faster than ReLU? And why is the value at 180° always −1?
#
# <details><summary>Answer</summary>
#
# Between $L = 16$ (0.733 at 3°) and $L = 50$ (0.031); at $L = 100$ it is 0.000. With $\alpha = 1$, $\Sigma$ grows
# by up to $\sigma_w^2$ per block (linearly, since $\operatorname{erf}^2 \le 1$), so the pre-activations become
# large and $\operatorname{erf}'$ is a narrow spike at 0. Then $\mathbb E[\phi'(u)\phi'(v)]$ is much larger for
# $x' = \pm x$ than for any other $x'$, each block's factor $1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']$
# favours the diagonal, and over many blocks the diagonal outgrows every other entry (lesson 06 shows the spike
# for one layer). The value at 180° is −1 because the bias-free erf network is odd: $f(-x) = -f(x)$.
#
# </details>

# %% [markdown]
# ## Check your understanding
#
# 1. Why are the skip and the branch uncorrelated at infinite width, so that their kernels add? Give a block for
#    which they would not be.
#
# <details><summary>Answer</summary>
#
# The branch ends in fresh weights $W^{(l)}$ with mean zero, so $\mathbb E[x_i\,(W^{(l)}\phi(x))_i] = 0$ whatever $x$
# is. A block without that last layer, such as $x + \alpha\,\phi(x)$, would correlate them: for ReLU
# $\mathbb E[x\,\phi(x)] = \Sigma/2 \neq 0$, and the kernel would gain a cross term.
#
# </details>
#
# 2. ReLU, $\sigma_w^2 = 2$, no bias, $\alpha = 1/2$, $L = 4$ and $q_0 = 2$: compute $\Theta(x, x)$.
#
# <details><summary>Answer</summary>
#
# $\gamma = \alpha^2\sigma_w^2/2 = 1/4$, so $\Theta = 2 \cdot 1.25^4 \cdot (2 + 4 \cdot 0.25/1.25) = 2 \cdot 2.441
# \cdot 2.8 = 13.67$.
#
# </details>
#
# 3. Why does every block carry the same share of $\Theta(x, x)$, whatever its position in the network?
#
# <details><summary>Answer</summary>
#
# Block $l$'s squared gradient is a forward factor times a backward factor. The forward signal reaching it has
# grown by $(1+\gamma)^{l-1}$ and the backward signal by $(1+\gamma)^{L-l}$; their product
# $(1+\gamma)^{L-1}$ does not depend on $l$. (For ReLU without bias; other activations change the factors.)
#
# </details>
#
# 4. Why is $\alpha = 1/\sqrt L$ enough for a bounded product of block Jacobians, but not for the first-order
#    formula $I + \alpha\sum_l J_l$?
#
# <details><summary>Answer</summary>
#
# Bounded growth needs the mean square $(1 + \alpha^2 c)^L$ to stay bounded: it tends to $e^c$ for
# $\alpha = 1/\sqrt L$. The first-order formula needs the terms with two or more factors to be small, that is
# $L\alpha^2 c \ll 1$; at $\alpha = 1/\sqrt L$, $L\alpha^2 c = c$ and half the product lies beyond first order
# ($r \to \sqrt{1 - 2/e} \approx 0.51$ for $c = 1$).
#
# </details>
#
# 5. With $\alpha = 1/L$, what does the normalized NTK tend to as $L \to \infty$, and which model is that the NTK of?
#
# <details><summary>Answer</summary>
#
# To $\cos\theta$, the normalized kernel $x\cdot x'/(\|x\|\|x'\|)$: the branches' total weight $L\alpha^2 = 1/L$
# vanishes, $x^{(L)} \to x^{(0)}$, and the network becomes the linear model $f = \frac{1}{\sqrt m}w^\top
# \frac{\sigma_w}{\sqrt d}W^{(0)}x$. Its input layer and readout each contribute $q_0\cos\theta$ to the NTK.
#
# </details>
#
# 6. Someone argues that with $\alpha = 1/\sqrt L$ each block contributes $O(1/\sqrt L)$ to the NTK, so $L$ blocks
#    give $O(\sqrt L)$. Where is the mistake?
#
# <details><summary>Answer</summary>
#
# The NTK adds squared gradients. A block's gradient is of order $\alpha$, so its contribution is of order
# $\alpha^2 = 1/L$, and $L$ blocks give $O(1)$: 0.320 of $\Theta(x, x)$ at $L = 16$, tending to $1/3$.
#
# </details>

# %% [markdown]
# ## Summary
#
# - A residual block passes the kernel on through its skip and adds $\alpha^2$ times its branch's map; for ReLU
#   each block multiplies the scale by $1 + \gamma$, $\gamma = \alpha^2\sigma_w^2/2$.
# - Block Jacobians are of order one; their fresh weights make them add in squares, so
#   $\prod_l(I + \alpha J_l)$ stays bounded for $\alpha = 1/\sqrt L$, but only $L\alpha^2 \ll 1$ makes it
#   first-order ($I + \alpha\sum_l J_l$).
# - $\alpha = 1$: $\Theta$ grows like $2^L$ and the kernel collapses like an MLP's. $\alpha = 1/\sqrt L$:
#   $\Theta \to 3e\,q_0$ and a depth-independent kernel. $\alpha = 1/L$: the branches fade, $\Theta \to 2q_0$.
# - Every block carries the same share of $\Theta(x, x)$, of order $\alpha^2$: all blocks together $O(1)$.
# - Finite residual networks agree with the recursion: the mean of 8 networks of width 1024 is within 2–5 %.

# %% [markdown]
# ## For readers of chapter 4
#
# <details><summary>§4.3.1: the product of block Jacobians (errata A14)</summary>
#
# **The text says:** when the per-block terms $\Delta_l$ are small, for example thanks to the NTK
# parameterization, $\prod_l (I + \Delta_l) \approx I + \sum_l \Delta_l$: gradients flow additively instead of
# multiplicatively.
#
# **What is true:** the NTK parameterization leaves $\|J_l\|_{op}$ of order one (about $1 + \sqrt 2$ for a ReLU
# branch); $\Delta_l = \alpha J_l$ is small only through the branch scale $\alpha$. Bounded growth needs only
# $\alpha = O(1/\sqrt L)$, because Jacobians with fresh zero-mean weights add in squares:
# $\mathbb E\|\prod_l(I + \alpha J_l)v\|^2 \approx (1 + \alpha^2 c)^L\|v\|^2$. The first-order formula needs
# $L\alpha^2 c \ll 1$, e.g. $\alpha = 1/L$ (for worst-case, aligned $\Delta_l$ of norm $\delta$ the remainder is
# bounded only by $(1+\delta)^L - 1 - L\delta$, which needs $L\delta \ll 1$). At $\alpha = 1/\sqrt L$ the product
# is bounded, but half of it lies beyond first order. [errata A14](../ERRATA.md#a14)
#
# </details>
#
# <details><summary>§4.3.2: how the NTK grows with depth (errata A15)</summary>
#
# **The text says:** the ResNet NTK accumulates *linearly* over blocks, "never degenerates", and its effective
# depth grows like $L$.
#
# **What is true:** each block multiplies the forward variance and the backward signal by $1 + \gamma$, so with
# $\alpha = 1$ (and $\sigma_w^2 = 2$) the NTK grows like $2^L$, exponentially, and the normalized kernel collapses
# like an MLP's. With $\alpha = 1/\sqrt L$ it tends to $3e\,q_0$; with $\alpha = 1/L$ to $2q_0$.
# [errata A15](../ERRATA.md#a15)
#
# </details>
#
# <details><summary>§4.3.3: the O(√L) arithmetic (errata A16)</summary>
#
# **The text says:** with $\alpha = 1/\sqrt L$ each block contributes $O(1/\sqrt L)$, so the total is
# $\sum_l O(1/\sqrt L) = O(\sqrt L)$.
#
# **What is true:** the NTK is a sum over parameters of squared gradients. Each block's part is of order
# $\alpha^2$, so the blocks give $L \cdot \alpha^2 \cdot O(1) = O(1)$ for $\alpha = 1/\sqrt L$ (0.286 of
# $\Theta(x, x)$ at $L = 4$, 0.320 at $L = 16$, $1/3$ in the limit). [errata A16](../ERRATA.md#a16)
#
# </details>
#
# <details><summary>Overview §5.1: residual connections and the i.i.d. assumption (errata B21)</summary>
#
# **The overview says:** residual connections break the i.i.d. assumption, which complicates NTK analysis.
#
# **What is true:** ResNet NTKs are well defined and have been analysed (Huang et al. 2020; Hayou et al. 2021), and
# the Tensor Programs framework (Yang 2019, 2020) covers residual networks. At infinite width the skip and the
# branch are uncorrelated, so the recursion adds their covariances, and finite networks agree with it (section
# "Finite networks agree"). [errata B21](../ERRATA.md#b21)
#
# </details>
#
# **Exercise:** 4.3 (depth scaling of a ResNet NTK).
#
# **Next:** [05 · Normalization and parameterization](05_normalization_parameterization.ipynb)
