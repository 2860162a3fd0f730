# %% [markdown]
# # 04 · Residual networks: how the branch scale α decides everything
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/04_resnet.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F04_resnet.ipynb)
#
# *Chapter 4.3.*
#
# **You will learn**
# - how the kernel of a residual block $x + \alpha\,g(x)$ is built: the skip passes the kernel on, and the branch
#   adds $\alpha^2$ times its own map;
# - that with $\alpha = 1$ the NTK explodes with depth (for ReLU with $\sigma_w^2 = 2$ **exponentially**, like
#   $2^L$; for erf more slowly, like $e^{c\sqrt L}$), with $\alpha = 1/\sqrt L$ it stays
#   bounded (for ReLU with $\sigma_w^2 = 2$ it tends to $3e\,q_0$), and with $\alpha = 1/L$ the branches fade away;
# - whether backpropagation stays bounded: why the product of block Jacobians $\prod_l (I + \alpha J_l)$ does for
#   $\alpha = 1/\sqrt L$, and why it is still *not* the first-order formula $I + \alpha\sum_l J_l$;
# - why $L$ blocks of branch scale $\alpha$ all carry the same share of the NTK for ReLU without bias, and how
#   that share scales with $\alpha$ and $L$;
# - how far finite residual networks are from the recursion, and what an average over 8 of them can tell.
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

# %% [markdown]
# ## 4.3.1 The model and its kernel
#
# The network has an input layer $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$, then $L$ blocks
# $x^{(l)} = x^{(l-1)} + \alpha\,g_l(x^{(l-1)})$ with the branch $g_l(x) = \frac{\sigma_w}{\sqrt m}W^{(l)}\phi(x)$,
# and a linear readout $f = \frac{1}{\sqrt m}\,w^\top x^{(L)}$. All weights are drawn from $\mathcal N(0, 1)$
# (the NTK parameterization of lesson 01). The readout has scale 1, not the $\sigma_w = \sqrt 2$ of lesson 02's
# MLP. That readout reads $\phi(h)$, whose second moment the ReLU halves and $\sigma_w^2 = 2$ restores. This one
# reads $x^{(L)}$ itself, so scale 1 already gives the output the variance $\Sigma^{(L)}$.

# %% [markdown]
# **The $\Sigma$ rule.** Take one unit $i$ of $x^{(l-1)}$ at the two inputs, $u = x^{(l-1)}_i(x)$ and
# $v = x^{(l-1)}_i(x')$. At infinite width $(u, v)$ is a centred Gaussian pair whose $2\times 2$ covariance
# matrix is $\Sigma^{(l-1)}$ (entries $\Sigma^{(l-1)}(x, x)$, $\Sigma^{(l-1)}(x, x')$, $\Sigma^{(l-1)}(x', x')$),
# and different units are independent. This holds for $x^{(0)}$, a Gaussian matrix times the input. It passes to
# $x^{(l)}$ because, given the blocks below, the branch $g_l$ is a sum of $m$ terms with fresh Gaussian weights
# $W^{(l)}$: a centred Gaussian pair with covariance $\sigma_w^2\frac1m\sum_j\phi(x^{(l-1)}_j(x))\,
# \phi(x^{(l-1)}_j(x'))$, which tends to the constant $\sigma_w^2\,\mathbb E[\phi(u)\phi(v)]$.

# %% [markdown]
# A Gaussian whose covariance no longer depends on the blocks below is, in the infinite-width limit, independent
# of them, so the skip and the branch are independent Gaussians and their covariances add (Yang 2019 makes this
# limit rigorous). Writing
# $\mathbb E[\phi\phi] = \mathbb E[\phi(u)\phi(v)]$:
#
# $$\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi] .$$

# %% [markdown]
# **The $\Theta$ rule.** $\Theta^{(l)}(x, x')$, the kernel of one unit of $x^{(l)}$ (a hidden unit; the output's
# kernel comes in section 4.3.2), sums, over the parameters $p$ of the input layer and blocks
# $1, \dots, l$, the product
# $\frac{\partial x^{(l)}_i(x)}{\partial p}\frac{\partial x^{(l)}_i(x')}{\partial p}$ (the same for every unit
# $i$ at infinite width). Split the parameters in two groups.
#
# - *Parameters below block $l$.* Here $\partial x^{(l)}/\partial p = \partial x^{(l-1)}/\partial p +
#   \alpha\,\partial g_l/\partial p$. Skip times skip gives $\Theta^{(l-1)}$. Branch times branch gives what an
#   MLP layer makes of $\Theta^{(l-1)}$ (lesson 02), times $\alpha^2$: $\alpha^2\sigma_w^2\,
#   \mathbb E[\phi'\phi']\,\Theta^{(l-1)}$, with $\mathbb E[\phi'\phi'] = \mathbb E[\phi'(u)\phi'(v)]$. The two
#   cross terms are linear in the fresh, zero-mean $W^{(l)}$ and vanish on average.
# - *The block's own weights $W^{(l)}$.* Only the branch depends on them, and
#   $\partial x^{(l)}_i/\partial W^{(l)}_{ij} = \frac{\alpha\sigma_w}{\sqrt m}\phi(x^{(l-1)}_j)$; summed over $j$,
#   the products give $\alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$.
#
# $$\Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']\bigr)\Theta^{(l-1)}
#   + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$$

# %% [markdown]
# The two branch terms together are exactly $\alpha^2$ times lesson 02's MLP rule; the skip adds $\Theta^{(l-1)}$.
# (This is the recursion behind Hayou et al. 2021's analysis; Huang et al. 2020 derive the same kind of
# recursion for two-layer branches.) In the package, one block is `nh.residual(nh.relu(), nh.dense(), alpha=...)`, and
# `nh.resnet(L, alpha=...)` builds the whole network:

# %%
print(nh.resnet(2, alpha=0.5))      # dense -> 2 x residual(relu, dense) -> dense(1)

# %% [markdown]
# ## 4.3.2 How the NTK grows with depth
#
# For ReLU without bias, on the diagonal $x = x'$: $\mathbb E[\phi\phi] = \Sigma/2$ and
# $\mathbb E[\phi'\phi'] = 1/2$. Write $\gamma = \alpha^2\sigma_w^2/2$ for the growth per block. The induction
# takes three lines:
#
# 1. $\Sigma^{(l)} = (1+\gamma)\,\Sigma^{(l-1)}$, so $\Sigma^{(l)} = q_0 (1+\gamma)^l$.
# 2. $\Theta^{(l)} = (1+\gamma)\,\Theta^{(l-1)} + \gamma\,q_0(1+\gamma)^{l-1}$. Divided by $(1+\gamma)^l$, this
#    says that $\Theta^{(l)}/(1+\gamma)^l$ grows by $q_0\,\gamma/(1+\gamma)$ per block, starting from
#    $\Theta^{(0)} = \Sigma^{(0)} = q_0$ (the input layer has no layer below it).
# 3. So $\Theta^{(L)} = q_0(1+\gamma)^L\bigl(1 + L\gamma/(1+\gamma)\bigr)$, and the readout (scale 1) adds
#    $\Sigma^{(L)} = q_0(1+\gamma)^L$:
#
# $$\Theta(x,x) = q_0\,(1+\gamma)^L\Bigl(2 + \frac{L\gamma}{1+\gamma}\Bigr).$$
#
# Two bookkeeping notes. From here on $\Theta$ without a superscript is the kernel of the output $f$: the hidden
# unit's $\Theta^{(L)}$ plus the readout's part $\Sigma^{(L)}$. And results are in units of
# $q_0 = \Sigma^{(0)}(x, x) = \sigma_w^2\,x\cdot x/d$, which itself grows with $\sigma_w^2$: "$\Theta \to 3e\,q_0$"
# fixes the ratio $\Theta/q_0$.
#
# Below, the package's recursion for two inputs 17° apart, with $\sigma_w^2 = 2$ and $q_0 = 2$, for the three
# scalings and up to 256 blocks. Note that at $L = 1$ all three scalings have $\alpha = 1$ ($1$, $1/\sqrt 1$ and
# $1/1$): every curve below starts from the same network, with $\Theta/q_0 = 2^1(2 + 1/2) = 5$.

# %%
x = nh.pair_at_angle(math.radians(17), d=2)          # two inputs 17° apart, q₀ = σ_w² x·x/d = 2
q0 = 2.0
# α = 1: Θ ~ 2^L; the recursion multiplies two variances, a product that leaves float64 near L = 500
depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]
scalings = course.SCALINGS                          # α as a function of L: 1, 1/√L, 1/L
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
ax.semilogx(depths, np.log(diagonal["α = 1"] / q0) / depths, "o-", label="α = 1")
ax.axhline(math.log(2), color="k", ls="--", lw=1, label="log 2 = 0.693")
nh.plotting.width_ticks(ax, depths)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel("log(Θ(x, x) / q₀) / L")
ax.set_title(nh._("α = 1: Θ grows by a factor of about 2 per block"))
ax.legend()
plt.show()
print(nh._("α = 1, L = 256: Θ(x, x)/q₀ = {value:.3g}").format(value=diagonal["α = 1"][-1] / q0))

# %% [markdown]
# The figure plots $\log\Theta$ per block, because $\Theta$ itself reaches $1.5\cdot 10^{79}\,q_0$ at $L = 256$: with
# $\alpha = 1$ the ReLU network's NTK grows exponentially. The two other scalings stay small, on a linear y-axis (the x-axis stays
# logarithmic):

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):
    if name != "α = 1":
        ax.semilogx(depths, diagonal[name] / q0, "o-", color=color, label=name)
ax.axhline(3 * math.e, color="k", ls="--", lw=1, label=nh._("3e (limit of α = 1/√L)"))
ax.axhline(2, color="k", ls=":", lw=1, label=nh._("2 (limit of α = 1/L)"))
nh.plotting.width_ticks(ax, depths)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title(nh._("α = 1/√L levels off, α = 1/L falls back: both stay of order q₀"))
ax.legend()
plt.show()

# %% [markdown]
# Both curves start at 5 because at $L = 1$ every scaling has $\alpha = 1$. The $\alpha = 1/L$ curve then falls,
# because its branches fade as $L$ grows.
#
# **Why this matters.** Gradient descent on lesson 01's loss $\frac{1}{2n}\sum_i (f(x_i) - y_i)^2$ over $n$ inputs,
# in the linearised (NTK) regime, is stable only for a learning rate $\eta < 2n/\lambda_{\max}$ of the NTK Gram
# matrix (lesson 01), and $\lambda_{\max}$ grows with $\Theta$. The
# next cell computes that bound for 8 inputs on the sphere, at a few depths, for $\alpha = 1$ and $\alpha = 1/\sqrt L$.

# %%
inputs = nh.sphere(8, d=6, seed=0)                  # 8 inputs with x·x/d = 1; used again below


def stable_rate(L, alpha):
    """2n/λ_max of the NTK Gram matrix of the 8 inputs: gradient descent's largest stable learning rate."""
    gram = nh.resnet(L, alpha=alpha).kernel(inputs).ntk.numpy()
    return 2 * len(inputs) / np.linalg.eigvalsh(gram).max()


lr_depths = [1, 4, 16, 256]
rates = {name: [stable_rate(L, scalings[name](L)) for L in lr_depths] for name in ("α = 1", "α = 1/√L")}
for name, values in rates.items():
    print(nh._("{scaling}: largest stable learning rate 2n/λ_max at L = 1, 4, 16, 256: {values}").format(
        scaling=name, values=", ".join(f"{v:.3g}" for v in values)))

# %% [markdown]
# With $\alpha = 1$ the usable learning rate shrinks roughly like $1/\Theta(x, x) \propto 1/\bigl(2^L(2 + L/2)\bigr)$,
# faster than $2^{-L}$: 0.036 at $L = 4$, $3.4\cdot 10^{-6}$ at $L = 16$, a factor of about $1.1\cdot 10^4$, close
# to the factor $2^{12}\cdot 10/4 = 10\,240$ by which $\Theta(x, x)$ grows. Only roughly, because $\lambda_{\max}$
# also depends on how strongly the 8 inputs' kernel entries are correlated: $\lambda_{\max}/\Theta(x, x)$ is 3.1,
# 3.4, 3.6 and 2.9 at $L = 1, 4, 16, 256$ for $\alpha = 1$, and 3.13–3.15 for $\alpha = 1/\sqrt L$. With $\alpha = 1/\sqrt L$ it shrinks
# too, but only by a bounded factor, and less and less: from 0.51 at $L = 1$ to 0.37 at $L = 4$, 0.33 at $L = 16$
# and 0.31 at $L = 256$: a factor of 1.6 in all, close to the $\Theta(x, x)$ ratio $8.13/5$. Only as
# $L \to \infty$, where the kernel tends to a limit, does the bound stop depending on depth.

# %% [markdown]
# Practice keeps deep ResNets trainable with the same idea, small branches at initialization: Fixup (Zhang et al. 2019) scales the branch
# weights down with depth and zeroes each branch's last layer; SkipInit (De & Smith 2020) and ReZero (Bachlechner
# et al. 2020) multiply each branch by a learned scalar that starts at or near 0; and batch normalization shrinks the
# branches relative to the skip implicitly (De & Smith 2020). Lesson 05a takes up normalization.

# %% [markdown]
# **Explain with the closed form.**
#
# 1. Why does $\log(\Theta/q_0)/L$ for $\alpha = 1$ approach $\log 2$, and why from above?
#
# <details><summary>Answer</summary>
#
# With $\alpha = 1$ and $\sigma_w^2 = 2$, $\gamma = 1$: every block doubles both $\Sigma$ and the $\Theta$ carried
# from below, so $\Theta = q_0\,2^L(2 + L/2)$. Its logarithm is $L\log 2$ plus the slowly growing
# $\log(2 + L/2)$, so $\log(\Theta/q_0)/L = \log 2 + \log(2 + L/2)/L$: the second term is positive and falls to
# zero (0.916 at $L = 1$, 0.019 at $L = 256$), so $\log(\Theta/q_0)/L$ falls from $\log 5 = 1.609$ to 0.712. Between $L = 32$ and $64$, $\log\Theta$ rises by
# $\log 2 + \log(34/18)/32 = 0.7130$ per block, 2.9 % above $\log 2$ because of the factor $2 + L/2$.
#
# </details>
#
# 2. The dashed and dotted lines lie at $3e$ and $2$. Derive both limits from the closed form: which factor of
#    it gives the $e$, and which layers of the network give the 2?
#
# <details><summary>Answer</summary>
#
# With $\alpha = 1/\sqrt L$, $\gamma = 1/L$: $(1 + 1/L)^L \to e$ and $L\gamma/(1+\gamma) \to 1$, so
# $\Theta \to e\,q_0\,(2 + 1) = 3e\,q_0$ (8.128 $q_0$ at $L = 256$, against $3e = 8.155$). With $\alpha = 1/L$,
# $\gamma = 1/L^2$: $(1 + 1/L^2)^L \to 1$ and $L\gamma \to 0$, so only the 2 is left: the input layer and the
# readout contribute $q_0$ each.
#
# </details>
#
# **Predict, then try.** The closed form holds for every $\sigma_w^2$, with $\gamma = \alpha^2\sigma_w^2/2$. Set
# `sigma_w2 = 1.0` in the next cell and re-run it: what will $\Theta(x, x)/q_0$ be for $\alpha = 1/\sqrt L$ at
# $L = 256$? Still about $3e$?
#
# <details><summary>Answer</summary>
#
# No: about 4.12, roughly half of $3e$. Now $\gamma = 1/(2L)$, so $(1 + \gamma)^L \to e^{1/2}$ and
# $L\gamma/(1+\gamma) \to 1/2$: $\Theta \to e^{1/2}(2 + 1/2)\,q_0 = 4.122\,q_0$, and the cell prints 4.118 at
# $L = 256$. In general $\Theta \to e^{\sigma_w^2/2}(2 + \sigma_w^2/2)\,q_0$; the $3e\,q_0$ of this lesson is the
# case $\sigma_w^2 = 2$.
#
# </details>

# %%
# Try it: change sigma_w2 (the weight variance of the input layer and of the blocks) and re-run this cell
sigma_w2, L = 2.0, 256
q0_here = sigma_w2 * float(x[0] @ x[0]) / x.shape[1]          # Σ⁽⁰⁾(x, x) = σ_w² x·x/d
theta = float(nh.resnet(L, alpha=L ** -0.5, sigma_w=math.sqrt(sigma_w2)).kernel(x).ntk[0, 0])
print(nh._("σ_w² = {sigma_w2:g}, α = 1/√L, L = {depth}: Θ(x, x)/q₀ = {value:.3f}").format(
    sigma_w2=sigma_w2, depth=L, value=theta / q0_here))

# %% tags=["check"]
growth_per_block = math.log(diagonal["α = 1"][6] / diagonal["α = 1"][5]) / (64 - 32)
# Θ = q₀ 2^L (2 + L/2): between L = 32 and 64 log Θ rises by log 2 + log(34/18)/32 per block (rounding only)
nh.check_close("α = 1: growth of log Θ per block, L = 32 → 64 (0.7130)", growth_per_block,
               math.log(2) + math.log(34 / 18) / 32, rtol=1e-10)
nh.check_close("α = 1: that growth, rounded (0.7130)", growth_per_block, 0.7130, atol=0.00005)
nh.check_close("α = 1: that growth / log 2 (2.9 % above)", growth_per_block / math.log(2), 1.029, atol=0.0005)
# the O(1/L) correction at L = 256 is 0.3 %
nh.check_close("α = 1/√L: Θ(x, x)/q₀ at L = 256 (limit 3e)", diagonal["α = 1/√L"][-1] / q0, 3 * math.e,
               rtol=0.01)
nh.check_close("α = 1/L: Θ(x, x)/q₀ at L = 256 (limit 2)", diagonal["α = 1/L"][-1] / q0, 2.0, rtol=0.01)
# the try-it cell at sigma_w2 = 1 (the inputs have x·x/d = 1, so q₀ = σ_w² = 1)
at_one = float(nh.resnet(256, alpha=1 / 16, sigma_w=1.0).kernel(x).ntk[0, 0])
nh.check_close("σ_w² = 1, α = 1/√L, L = 256: Θ(x, x)/q₀ (the try-it cell prints 4.118)", at_one, 4.118,
               rtol=2e-4)
nh.check_close("σ_w² = 1: recursion / closed form",
               at_one / course.closed_form_ntk(256, 1 / 16, 1.0, sigma_w2=1.0), 1.0, rtol=1e-10)
nh.check_close("σ_w² = 1: the limit e^(σ_w²/2)(2 + σ_w²/2)", math.exp(0.5) * 2.5, 4.122, rtol=1e-4)
nh.check_close("L = 1: Θ(x, x)/q₀ = 5 for all three scalings (α = 1)",
               [diagonal[name][0] / q0 for name in scalings],
               [5.0, 5.0, 5.0], rtol=1e-12)
per_block = np.log(diagonal["α = 1"] / q0) / depths
nh.check_close("L = 1: largest stable learning rate 2n/λ_max on the 8 inputs (0.51)", rates["α = 1"][0], 0.51,
               atol=0.005)
nh.check_close("α = 1: 2n/λ_max at L = 4 (0.036)", rates["α = 1"][1], 0.036, atol=0.0005)
nh.check_close("α = 1: 2n/λ_max at L = 16 (3.4·10⁻⁶)", rates["α = 1"][2], 3.4e-6, rtol=0.015)
for L, value, quoted in zip(lr_depths[1:], rates["α = 1/√L"][1:], (0.37, 0.33, 0.31)):
    nh.check_close("α = 1/√L: 2n/λ_max at L = 4, 16, 256 (0.37, 0.33, 0.31)", value, quoted, atol=0.005)
nh.check_that("α = 1/√L: 2n/λ_max falls at every step L = 1 → 4 → 16 → 256",
              all(a > b for a, b in zip(rates["α = 1/√L"], rates["α = 1/√L"][1:])),
              measured=str(np.round(rates["α = 1/√L"], 3)), expected="decreasing")
nh.check_close("α = 1/√L: 2n/λ_max, L = 1 / L = 256 (1.6), against Θ(x, x) at L = 256 / L = 1 (8.13/5)",
               rates["α = 1/√L"][0] / rates["α = 1/√L"][-1],
               diagonal["α = 1/√L"][-1] / diagonal["α = 1/√L"][0],
               rtol=0.01)
nh.check_close("α = 1/√L: that ratio (1.6)", rates["α = 1/√L"][0] / rates["α = 1/√L"][-1], 1.6, atol=0.05)
nh.check_close("α = 1: log(Θ/q₀)/L at L = 1 (log 5 = 1.609)", per_block[0], 1.609, atol=0.0005)
nh.check_close("α = 1: log(Θ/q₀)/L at L = 256 (0.712)", per_block[-1], 0.712, atol=0.0005)
nh.check_close("α = 1, L = 256: Θ(x, x)/q₀ (1.5·10^79)", diagonal["α = 1"][-1] / q0, 1.5e79, rtol=0.05)
nh.check_close("α = 1: the second term log(Θ/q₀)/L − log 2 at L = 1 (0.916)", per_block[0] - math.log(2),
               0.916, atol=0.0005)
nh.check_close("α = 1: the second term at L = 256 (0.019)", per_block[-1] - math.log(2), 0.019, atol=0.0005)
nh.check_close("α = 1/√L: Θ(x, x)/q₀ at L = 256 (8.128)", diagonal["α = 1/√L"][-1] / q0, 8.128, atol=5e-4)
nh.check_close("α = 1: 2n/λ_max at L = 4 / at L = 16 (about 1.1·10⁴)", rates["α = 1"][1] / rates["α = 1"][2],
               1.1e4, rtol=0.05)
for name, quoted in (("α = 1", (3.1, 3.4, 3.6, 2.9)), ("α = 1/√L", (3.14, 3.13, 3.14, 3.15))):
    kappa = [2 * len(inputs) / (rate * course.closed_form_ntk(L, scalings[name](L), 2.0))
             for L, rate in zip(lr_depths, rates[name])]            # λ_max / Θ(x, x); the inputs have q₀ = 2
    nh.check_close("λ_max / Θ(x, x), L = 1, 4, 16, 256, α = 1 (3.1, 3.4, 3.6, 2.9) and 1/√L (3.13–3.15)",
                   kappa, quoted, atol=0.05 if name == "α = 1" else 0.006)
nh.check_close("α = 1: Θ(x, x) at L = 16 / at L = 4 (2¹²·10/4 = 10 240)",
               course.closed_form_ntk(16, 1.0, q0) / course.closed_form_ntk(4, 1.0, q0), 10240, rtol=1e-12)

# %% [markdown]
# **erf grows more slowly.** With erf, $\alpha = 1$ and $\sigma_w^2 = 2$, the growth is slower than exponential.
# Since $\operatorname{erf}^2 \le 1$, each block adds at most 2 to $\Sigma$, and close to 2 once the
# pre-activations are large, so $\Sigma^{(l)} \approx 2l$. Each block multiplies the $\Theta$ carried from below by
# $1 + 2\,\mathbb E[\operatorname{erf}'(u)^2]$, and
# $\mathbb E[\operatorname{erf}'(u)^2] = \frac4\pi\mathbb E[e^{-2u^2}] = \frac{4/\pi}{\sqrt{1 + 4\Sigma}}$ falls
# like $1/\sqrt l$. Added up, $\log\Theta \approx \sum_l \frac{8/\pi}{\sqrt{8l}} \approx \frac{16}{\pi\sqrt8}\sqrt L
# = 1.80\sqrt L$ for large $L$: growth like $e^{c\sqrt L}$. The next cell measures $\log(\Theta/q_0)/\sqrt L$.

# %%
erf_growth = {L: math.log(float(nh.resnet(L, "erf", alpha=1.0).kernel(x).ntk[0, 0]) / q0)
              for L in (25, 100, 400)}
print(nh._("erf, α = 1: log(Θ(x, x)/q₀)/√L at L = 25, 100, 400: {values} (limit 16/(π√8) = 1.80)").format(
    values=", ".join(f"{value / math.sqrt(L):.2f}" for L, value in erf_growth.items())))

# %% tags=["check"]
erf_ratio = [value / math.sqrt(L) for L, value in erf_growth.items()]
nh.check_close("erf, α = 1: log(Θ/q₀)/√L at L = 25, 100, 400 (1.58, 1.69, 1.74)", erf_ratio,
               [1.58, 1.69, 1.74], atol=0.006)
nh.check_that("erf, α = 1: log(Θ/q₀)/√L rises towards 16/(π√8), from below",
              erf_ratio[0] < erf_ratio[1] < erf_ratio[2] < 16 / (math.pi * math.sqrt(8)),
              measured=str(np.round(erf_ratio, 3)), expected="rising, below 1.80")
nh.check_close("16/(π√8) (1.80)", 16 / (math.pi * math.sqrt(8)), 1.80, atol=0.005)
nh.check_close("erf, α = 1: log(Θ/q₀)/L, L = 400 / L = 25 (0.276; a √L law gives 0.25)",
               (erf_growth[400] / 400) / (erf_growth[25] / 25), 0.276, atol=0.005)

# %% [markdown]
# ### The *normalized* kernel: does depth still change anything?
#
# Divide by the diagonal: $\Theta(x, x')/\Theta(x, x)$ for the two inputs 17° apart. In a deep MLP this
# correlation decays with depth, and for every pair of non-parallel inputs it tends to one and the same value,
# whatever their angle ($1/4$ for the ReLU MLP, lesson 02). We say the network **forgets the angle**: its kernel
# no longer tells near inputs from far ones (kernel collapse). The figure compares the three
# scalings with a ReLU MLP of the same depth, counted in hidden layers: `nh.mlp(L, "relu")` has $L$ hidden layers
# ($L + 1$ weight matrices), the ResNet $L$ blocks ($L + 2$ weight matrices: input layer, blocks, readout). A faint line adds an MLP of half that depth, $L/2$ hidden layers (question 1 below says why).

# %%
mlp_correlation = [float(k[0, 1] / k[0, 0]) for k in (nh.mlp(L, "relu").kernel(x).ntk for L in depths)]
half_mlp = [float(k[0, 1] / k[0, 0]) for k in (nh.mlp(L // 2, "relu").kernel(x).ntk for L in depths[1:])]
fig, ax = plt.subplots()
for name in scalings:
    ax.semilogx(depths, correlation[name], "o-", label=f"ResNet, {name}")
ax.semilogx(depths, mlp_correlation, "k--", label=nh._("MLP (no skips)"))
ax.semilogx(depths[1:], half_mlp, "k:", alpha=0.5, label=nh._("MLP with L/2 hidden layers"))
nh.plotting.width_ticks(ax, depths)
ax.set_xlabel(nh._("depth L"))
ax.set_ylabel(nh._("Θ(x, x′) / Θ(x, x), 17° apart"))
ax.set_title(nh._("α = 1 forgets the angle like an MLP of half its depth; α = 1/√L and α = 1/L keep it"))
ax.legend()
plt.show()

# %% [markdown]
# All three ResNet curves start at 0.94, not at $\cos 17° = 0.956$: at $L = 1$ every scaling has $\alpha = 1$, and one
# full-strength block already lowers the correlation a little. With $\alpha = 1/L$ the branches then fade and the
# curve rises back towards the input layer's $\cos 17°$.
#
# **Explain.**
#
# 1. Every block of the $\alpha = 1$ network passes its input on through the skip. Why does it still forget the
#    angle almost like the MLP?
#
# <details><summary>Answer</summary>
#
# Because with $\alpha = 1$ and $\sigma_w^2 = 2$ the branch is as strong as the skip. On the diagonal the branch
# adds $\sigma_w^2\,\mathbb E[\phi\phi] = \Sigma^{(l-1)}$, exactly what the skip carries, so after the block the
# normalized $\Sigma$ is the average of the correlation the skip carries and the one an MLP layer would make of it:
# each block is half an MLP layer (the NTK follows the same pattern). Many half layers still collapse the kernel:
# the $\alpha = 1$ curve runs within 0.02 of the faint MLP with $L/2$ layers at every $L$ from 2 to 256 (0.32 at $L = 256$
# blocks, the MLP with 128 layers 0.31, the one with 256 layers 0.28). The match is close but not exact: averaging
# with the skip is not quite the same map as a whole MLP layer applied half as often.
#
# </details>
#
# 2. Why does the $\alpha = 1/L$ curve end at 0.956, and what does $\alpha = 1/\sqrt L$ settle at?
#
# <details><summary>Answer</summary>
#
# With $\alpha = 1/L$ the branches' total weight $L\alpha^2 = 1/L$ vanishes and the kernel tends to the input
# layer's, $\cos 17° = 0.956$. With $\alpha = 1/\sqrt L$ each block moves the correlation by a step of size
# $\gamma = 1/L$ towards what an MLP layer would make of it, and $L$ such steps add up to a fixed, finite change:
# the correlation settles at a depth-independent, non-degenerate value (0.916–0.917 from $L = 32$ on). Hayou et
# al. (2021) prove such non-degenerate depth limits for branches scaled like $1/\sqrt L$, and Belfer et al. (2021),
# who analyse the spectrum of the ReLU ResNet NTK, show that depending on how the skip and the branch are balanced
# the normalized kernel either becomes spiky with depth, as an MLP's does, or keeps a stable shape; Huang et al. (2020)
# prove that the NTK's limit does not degenerate for branch scales $\alpha = L^{-\beta}$ with $\beta \ge 1/2$
# (in the range they treat), in networks with two-layer branches whose input and output layers (of the whole
# network) are not trained.
#
# </details>

# %% tags=["check"]
last = correlation["α = 1/√L"][-4:]
nh.check_close("L = 1: correlation 0.94 for all three scalings (α = 1)",
               [correlation[name][0] for name in scalings],
               [0.94] * 3, atol=0.005)
nh.check_that("α = 1/L: the correlation rises from L = 1 to 256",
              correlation["α = 1/L"][-1] > correlation["α = 1/L"][0],
              measured=str(np.round(correlation["α = 1/L"][[0, -1]], 3)), expected="rising")
nh.check_between("α = 1/√L: spread of the correlation over L = 32 … 256", last.max() - last.min(), 0, 0.002)
nh.check_close("α = 1/√L: correlation at L = 256 (0.916)", correlation["α = 1/√L"][-1], 0.916, atol=0.0005)
nh.check_close("α = 1: correlation at L = 256 (0.32)", correlation["α = 1"][-1], 0.32, atol=0.005)
nh.check_close("MLP: correlation at L = 256 (0.28)", mlp_correlation[-1], 0.28, atol=0.005)
nh.check_close("MLP with 128 hidden layers: correlation (0.31)", half_mlp[-1], 0.31, atol=0.005)
nh.check_between("α = 1 ResNet against the MLP with L/2 layers, L = 2 … 256: largest gap (within 0.02)",
                 np.abs(correlation["α = 1"][1:] - half_mlp).max(), 0.005, 0.02)
# 1/L from the linear kernel at L = 256: the branches' total weight Lα² is 1/256
nh.check_close("α = 1/L: correlation at L = 256 (cos 17°)", correlation["α = 1/L"][-1],
               math.cos(math.radians(17)), atol=0.005)

# %% [markdown]
# ### Does backpropagation stay bounded? Products of block Jacobians
#
# With $\alpha = 1/\sqrt L$ the kernel stays bounded. Do the gradients? The gradient with respect to an early
# block passes back through every block above it, and backpropagation through block $l$ maps the backward signal
# $\delta \mapsto (I + \alpha J_l)^\top\delta$, where $J_l = \partial g_l/\partial x$ is the branch's Jacobian: a
# product of $L$ matrices, the transpose of $P = \prod_l (I + \alpha J_l)$. A matrix and its transpose have the
# same Frobenius norm, so on random directions $P^\top$ has the same mean-square growth as $P$, which we measure
# by pushing directions forward.
# A common heuristic says that skips make gradients *add*: if each $\Delta_l = \alpha J_l$ is small,
# $\prod_l(I + \Delta_l) \approx I + \sum_l \Delta_l$, so gradients flow additively instead of multiplicatively.
# Two questions: does the product stay bounded, and is it close to that first-order formula
# $I + \alpha\sum_l J_l$? We test both.

# %% [markdown]
# **What a block Jacobian is.** For a ReLU branch $J_l = \frac{\sigma_w}{\sqrt m} W^{(l)} D_l$, with $D_l$ the
# diagonal matrix of the ReLU gates that are open at $x^{(l-1)}$. The $J_l$ are not independent, because $D_l$
# depends on the blocks below. What holds is that $W^{(l)}$ is fresh: given everything below block $l$, $J_l$ has
# mean zero, and $\mathbb E_{W^{(l)}}\|J_l v\|^2 = \sigma_w^2\|D_l v\|^2 \approx c\,\|v\|^2$, with the mean-square
# gain $c = \sigma_w^2\,\mathbb E[\phi'(u)^2]$ ($c = 1$ for ReLU with $\sigma_w^2 = 2$: about half the gates are
# open; for ReLU $\alpha^2 c = \alpha^2\sigma_w^2/2$ is the $\gamma$ of section 4.3.2). Nothing makes $J_l$ itself
# small: its operator norm is of order one at every width.

# %% [markdown]
# **They add in squares.** Push a direction $v$ through the blocks, $v_l = (I + \alpha J_l)\,v_{l-1}$. The fresh
# $W^{(l)}$ makes the cross term vanish on average, so
# $\mathbb E\|v_l\|^2 = \mathbb E\|v_{l-1}\|^2 + \alpha^2\sigma_w^2\,\mathbb E\|D_l v_{l-1}\|^2
# \approx (1 + \alpha^2 c)\,\mathbb E\|v_{l-1}\|^2$, and
#
# $$\mathbb E\bigl\|\textstyle\prod_l(I + \alpha J_l)\,v\bigr\|^2 \approx (1 + \alpha^2 c)^L\,\|v\|^2 ,$$
#
# bounded ($\to e^c$) for $\alpha = 1/\sqrt L$, growing like $(1 + c)^L$ for $\alpha = 1$.

# %% [markdown]
# **What the first-order formula keeps: two blocks.** With $L = 2$,
# $(I + \alpha J_2)(I + \alpha J_1)v = v + \alpha J_1 v + \alpha J_2 v + \alpha^2 J_2 J_1 v$: one term for each
# subset of the blocks, $\{\}$, $\{1\}$, $\{2\}$, $\{1, 2\}$. Their mean squares are about $1$, $\alpha^2 c$,
# $\alpha^2 c$ and $\alpha^4 c^2$, and they simply add (the cross terms average to zero, next paragraph):
# $1 + 2\alpha^2 c + \alpha^4 c^2 = (1 + \alpha^2 c)^2$. The first-order formula $I + \alpha(J_1 + J_2)$ keeps
# the first three terms, $1 + 2\alpha^2 c$, and misses the last one, $\alpha^4 c^2$.

# %% [markdown]
# **Any number of blocks.** The product is a sum over subsets of blocks. Terms with different subsets are
# uncorrelated in the wide limit: a block in one subset but not the other puts its fresh, zero-mean $W^{(l)}$ into
# only one of the two terms, so their product averages to zero over $W^{(l)}$ (for example $\alpha J_1 v$ and
# $\alpha^2 J_2 J_1 v$: their product is linear in $W^{(2)}$). The
# $\binom Lk$ terms with $k$ factors each have mean square about $(\alpha^2 c)^k$. They sum to $(1+\alpha^2 c)^L$,
# of which the first order keeps $1 + L\alpha^2 c$. Everything beyond it has the relative size
#
# $$r = \sqrt{1 - \frac{1 + L\alpha^2 c}{(1+\alpha^2 c)^L}} \;\approx\; \frac{L\alpha^2 c}{\sqrt 2}
#   \quad\text{when } L\alpha^2 c \ll 1 .$$
#
# We measure both laws with real ReLU residual networks of width 256 at initialization: their gates come from
# their own forward pass (`course.jacobian_product` pushes 32 random unit directions, the columns of $V$, through
# the blocks of one network, seed 0). "Beyond first order" is $\|PV - FV\|_F/\|PV\|_F$, with
# $F = I + \alpha\sum_l J_l$ and $\|\cdot\|_F$ the Frobenius norm (the root of the sum of squared entries).

# %%
block_counts = [2, 4, 8, 16, 32, 64, 128, 256]
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
gates = course.first_gates_open(256)
print(nh._("first block of these networks: {fraction:.1%} of the gates open, so its gain c = {gain:.3f}")
      .format(fraction=gates, gain=2 * gates))

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10.4, 4.0))
for name, color in zip(scalings, PALETTE):
    law = [(1 + scalings[name](L) ** 2) ** L for L in block_counts]           # (1 + α²c)^L with c = 1
    for ax in (left,) if name == "α = 1" else (right,):
        ax.plot(block_counts, [p.growth for p in measured[name]], "o", color=color,
                label=nh._("{scaling}: measured").format(scaling=name))
        ax.plot(block_counts, law, "--", color=color,
                label=nh._("{scaling}: (1 + α²)^L").format(scaling=name))
left.set_yscale("log")
left.set_title(nh._("α = 1 follows (1 + α²)^L = 2^L (log scale)"), fontsize=10)
right.axhline(math.e, color="k", ls=":", lw=1, label=nh._("e (limit of α = 1/√L)"))
right.set_title(nh._("linear scale: α = 1/√L levels off near e, α = 1/L near 1"), fontsize=10)
for ax in (left, right):
    ax.set_xscale("log")
    nh.plotting.width_ticks(ax, block_counts)
    ax.set_xlabel(nh._("number of residual blocks L"))
    ax.legend(fontsize="small")
left.set_ylabel(nh._("mean square ‖∏(I+αJ)v‖² of a unit direction"))
fig.suptitle(nh._("Jacobian products stay bounded for α = 1/√L (→ e), grow like 2^L for α = 1"))
plt.show()

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):          # first column of the legend: measured; second: predicted
    ax.loglog(block_counts, [p.beyond_first_order for p in measured[name]], "o", color=color,
              label=nh._("{scaling}: measured").format(scaling=name))
for name, color in zip(scalings, PALETTE):
    ax.loglog(block_counts, predicted[name], "--", color=color,
              label=nh._("{scaling}: predicted r").format(scaling=name))
nh.plotting.width_ticks(ax, block_counts)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel(nh._("part beyond first order"))
ax.set_title(nh._("Of these scalings only α = 1/L becomes first-order as L grows"))
ax.legend(ncol=2, fontsize="small")
plt.show()

# %% [markdown]
# Both laws hold in this network (seed 0) within finite-width scatter: its measured points sit within 8 % of the
# predicted $r$, and for $\alpha = 1/\sqrt L$ and $1/L$ its mean square within 8 % of $(1 + \alpha^2)^L$. The
# predictions take the wide network's gain $c = 1$ (half the gates open), while at width 256 the open fraction
# scatters (51.2 % at the first block, printed above), and each network scatters differently: the one of seed 6
# has a point 12 % off the predicted $r$. With $\alpha = 1$ the product's mean square grows like $2^L$ (within a
# factor of 3 of $2^L$ in this network) and the first order keeps almost none of it.

# %% [markdown]
# 1. **Explain.** From the formula for $r$: where does the $\alpha = 1/\sqrt L$ curve level off as $L \to \infty$,
#    and why does it neither fall like $\alpha = 1/L$ nor rise to 1 like $\alpha = 1$?
#
# <details><summary>Answer</summary>
#
# Because $L\alpha^2 c = c$ stays fixed. The product stays bounded,
# $\|\prod\|^2 \approx (1 + 1/L)^L \|v\|^2 \to e\,\|v\|^2$, but the first order keeps only $1 + L\alpha^2 = 2$ of
# that $e \approx 2.72$, so $r \to \sqrt{1 - 2/e} \approx 0.51$: the measured part beyond first order is 0.523 of the product at $L = 256$
# (predicted 0.513). With $\alpha = 1/L$, $L\alpha^2 c = 1/L$ and the remainder falls like $1/(\sqrt 2\,L)$ (0.003 at
# $L = 256$): the first-order formula becomes exact. With $\alpha = 1$, $(1 + c)^L = 2^L$ dwarfs the $1 + L$ that
# the first order keeps.
#
# </details>
#
# 2. **Predict, then try.** Halve the branch scale: set `alpha = 0.5 / math.sqrt(256)` in the next cell and
#    re-run it. Will the part beyond first order at $L = 256$ be about 0.51, 0.25 or 0.16?
#
# <details><summary>Answer</summary>
#
# About 0.16: now $L\alpha^2 c = 1/4$, so $r \approx \sqrt{1 - 1.25\,e^{-1/4}} = 0.163$ (0.162 at $L = 256$) (the small-$L\alpha^2 c$ rule
# gives $1/(4\sqrt 2) = 0.177$), and the network measures 0.164. Halving $\alpha$ quarters $L\alpha^2 c$ and cuts
# the part beyond first order by about three: the first-order formula is a good approximation only once
# $L\alpha^2 c$ is well below 1.
#
# </details>

# %%
# Try it: change alpha (the branch scale) and re-run this cell: L = 256 blocks of width 256, as above
alpha = 1 / math.sqrt(256)
trial = course.jacobian_product(256, alpha, width=256)
print(nh._("{scaling}, L = 256: beyond first order {measured:.3f} of the product (predicted r = {r:.3f})")
      .format(scaling=f"α = {alpha:.4g}", measured=trial.beyond_first_order,
              r=course.beyond_first_order(256, alpha)))

# %% tags=["check"]
ones = np.ones(len(block_counts))
beyond = {name: np.array([p.beyond_first_order for p in measured[name]]) for name in scalings}
growth = {name: np.array([p.growth / (1 + alpha(L) ** 2) ** L for p, L in zip(measured[name], block_counts)])
          for name, alpha in scalings.items()}
# at width 256 the open-gate fraction is 1/2 ± 0.03 (binomial), the gain 1 ± 0.06; the text: "within 8 %"
# (seed 0: 7.95 % at most)
nh.check_close("α = 1: part beyond first order / r, L = 2 … 256", beyond["α = 1"] / predicted["α = 1"], ones,
               rtol=0.08)
nh.check_close("α = 1/√L: part beyond first order / r, L = 2 … 256",
               beyond["α = 1/√L"] / predicted["α = 1/√L"], ones, rtol=0.08)
nh.check_close("α = 1/L: part beyond first order / r, L = 2 … 256", beyond["α = 1/L"] / predicted["α = 1/L"],
               ones, rtol=0.08)
nh.check_close("α = 1/√L, L = 256: part beyond first order (0.523)", beyond["α = 1/√L"][-1], 0.523,
               atol=0.0005)
nh.check_close("α = 1/√L, L = 256: predicted r (0.513)", predicted["α = 1/√L"][-1], 0.513, atol=0.0005)
nh.check_close("α = 1/L, L = 256: part beyond first order (0.003)", beyond["α = 1/L"][-1], 0.003, atol=0.0005)
nh.check_close("r → √(1 − 2/e) for α = 1/√L (0.51)", math.sqrt(1 - 2 / math.e), 0.51, atol=0.005)
# the product's mean square is about e^c at α = 1/√L; the text: "within 8 %" (seed 0: 7.0 % at most)
nh.check_close("α = 1/√L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256 (within 8 %)", growth["α = 1/√L"],
               ones, rtol=0.08)
nh.check_close("α = 1/L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256 (within 8 %)", growth["α = 1/L"],
               ones, rtol=0.08)
nh.check_that("α = 1: ‖∏(I + αJ)v‖² / 2^L, L = 2 … 256, within a factor of 3 of 1",
              ((1 / 3 <= growth["α = 1"]) & (growth["α = 1"] <= 3)).all(),
              measured=str(np.round(growth["α = 1"], 2)), expected="1/3 … 3")
nh.check_close("open gates at the first block, width 256 (51.2 %)", gates, 0.512, atol=0.0005)

# %% tags=["check"]
# another network (seed 6), the branch Jacobian's norm, and the try-it at half the branch scale
seed_six = np.array([course.jacobian_product(L, L ** -0.5, width=256, seed=6).beyond_first_order
                     for L in block_counts]) / predicted["α = 1/√L"]
nh.check_close("seed 6, α = 1/√L: largest |measured / predicted r − 1| over L = 2 … 256 (12 %)",
               np.abs(seed_six - 1).max(), 0.12, atol=0.005)
# the largest singular value of √(2/m) W D with m/2 open gates tends to 1 + √2 (Marchenko–Pastur edge)
nh.check_close("operator norm of one branch Jacobian at width 1024 (1 + √2 as m → ∞)", norms[-1],
               1 + math.sqrt(2), rtol=0.05)
halved = course.jacobian_product(256, 0.5 / 16, width=256)
nh.check_close("α = 1/(2√L), L = 256: part beyond first order (0.164)", halved.beyond_first_order, 0.164,
               atol=0.0005)
nh.check_close("α = 1/(2√L), L = 256: predicted r (0.162)", course.beyond_first_order(256, 0.5 / 16), 0.162,
               atol=0.0005)
nh.check_close("small-Lα²c rule at Lα²c = 1/4 (0.177)", 1 / (4 * math.sqrt(2)), 0.177, atol=0.0005)

# %% [markdown]
# ## 4.3.3 Where the NTK comes from: blocks add in squares
#
# $\Theta(x, x) = \sum_p (\partial f/\partial p)^2$ is a sum over **parameters** of squared gradients, so it
# splits into one part per layer. Block $l$'s weights get the gradient
# $\partial f/\partial W^{(l)}_{ij} = \frac{\alpha\sigma_w}{\sqrt m}\,\delta_i\,\phi(x^{(l-1)})_j$, with
# $\delta = \partial f/\partial x^{(l)}$ the backward signal. Its square sums to
# $\alpha^2\sigma_w^2\,\|\delta\|^2\,\|\phi(x^{(l-1)})\|^2/m$: the prefactor $\alpha^2\sigma_w^2 = 2\gamma$ times a forward factor
# $\Sigma^{(l-1)}/2 = q_0(1+\gamma)^{l-1}/2$ times a backward factor $\|\delta\|^2 = (1+\gamma)^{L-l}$: at the top,
# $\delta = \partial f/\partial x^{(L)} = w/\sqrt m$ has $\|\delta\|^2 = \|w\|^2/m \to 1$, and each block above $l$
# multiplies it by $1 + \gamma$ (the mean square of the product of Jacobians, previous section). For ReLU without bias this
# gives every block $\gamma\,q_0(1+\gamma)^{L-1}$: each block carries the share
#
# $$\frac{\gamma/(1+\gamma)}{2 + L\gamma/(1+\gamma)}$$
#
# of $\Theta(x, x)$, and the input layer and the readout carry $1/(2 + L\gamma/(1+\gamma))$ each.

# %% [markdown]
# **When it holds, and what it says.** Equal shares need the forward factor $\mathbb E[\phi\phi]$ to grow exactly
# as fast as the backward factor shrinks from block to block. That is the case for ReLU without bias on the
# diagonal $x = x'$, where $\mathbb E[\phi\phi] = \Sigma/2$ and $\mathbb E[\phi'\phi'] = 1/2$; other activations
# break it: for erf the same recursion gives unequal shares (question 5 of "Check your understanding" asks which
# block carries more).
#
# The size of a share depends on $L\gamma$. While $L\gamma$ stays bounded ($\alpha = O(1/\sqrt L)$), the
# denominator stays of order one and a block's share is of order $\gamma = \alpha^2\sigma_w^2/2$: the **square**
# of the branch scale. What happens when $L\gamma$ grows with $L$ ($\alpha = 1$) is question 2 below.
#
# We measure each layer's share in 8 finite networks of width 256 for each $L$, with $\alpha = 1/\sqrt L$
# (`course.block_shares`: one backward pass, the squared gradients grouped by layer).

# %%
share_depths = [2, 4, 8, 16, 32, 64]
shares = {L: [course.block_shares(L, L ** -0.5, inputs[0], width=256, seed=seed) for seed in range(8)]
          for L in share_depths}
closed = {L: course.ntk_shares(L, L ** -0.5) for L in share_depths}
all_blocks = {L: np.mean([s.blocks.sum() for s in shares[L]]) for L in share_depths}
one_block = np.array([all_blocks[L] / L for L in share_depths])

# %%
fig, ax = plt.subplots()
ax.loglog(share_depths, one_block, "o", label=nh._("finite networks (width 256, mean of 8)"))
ax.loglog(share_depths, [closed[L].block for L in share_depths], "-", label=nh._("closed form"))
ax.loglog(share_depths, one_block[0] * (np.array(share_depths) / share_depths[0]) ** -0.5, "k:",
          label=nh._("if it fell like α = 1/√L"))
nh.plotting.width_ticks(ax, share_depths)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel(nh._("one block's share of Θ(x, x)"))
ax.set_title(nh._("Each block's share falls like α² = 1/L, not like α = 1/√L"))
ax.legend()
plt.show()

# %% [markdown]
# Where does the rest of $\Theta$ come from? The closed form splits it between the input layer, all blocks
# together and the readout; the dots are the finite networks' input layer plus blocks. (At $L = 1$, $\alpha = 1$
# again: the single block carries $\frac{1/2}{2 + 1/2} = 0.2$.)

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
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel(nh._("share of Θ(x, x), α = 1/√L"))
ax.set_title(nh._("α = 1/√L: input layer, blocks and readout end with a third each"))
ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()

# %% [markdown]
# 1. **Explain.** Why do the three parts end with a third each, and what has that to do with the limit
#    $3e\,q_0$ of section 4.3.2?
#
# <details><summary>Answer</summary>
#
# With $\alpha = 1/\sqrt L$, $L\gamma/(1+\gamma) \to 1$, so the denominator $2 + L\gamma/(1+\gamma)$ tends to 3 and
# the input layer, all blocks together and the readout get $1/3$ each. In absolute terms each part tends to
# $e\,q_0$: the input layer and the readout carry $q_0(1+\gamma)^L \to e\,q_0$, the blocks
# $L\gamma\,q_0(1+\gamma)^{L-1} \to e\,q_0$, and $3e\,q_0 = e\,q_0 + e\,q_0 + e\,q_0$.
#
# </details>
#
# 2. **Predict, then try.** The next cell prints, for $\alpha = 1/\sqrt L$ at $L = 4$ and $16$, the share of all
#    blocks and of the first and the last block, as means of 8 finite networks, and their scatter. You will set
#    `alpha_of = lambda L: 1.0` and re-run it. Before you do, use the share formula above with $\gamma = 1$:
#    (a) at $L = 16$, what will all blocks together carry, and each single block? As $L$ grows, where does each
#    block's share go? (b) Eight finite networks give block 1 and block 16 mean shares that differ a little.
#    Is that difference a finite-width effect these 8 networks can see, or scatter? What would you need to know
#    to decide?
#
# <details><summary>Answer</summary>
#
# (a) With $\alpha = 1$, $\gamma = 1$, all blocks together carry $\frac{L/2}{2 + L/2} = L/(L + 4)$: 0.50 at
# $L = 4$ and 0.80 at $L = 16$ (the finite networks measure 0.501 and 0.800), and each block $1/(L + 4) = 0.050$
# at $L = 16$. As $L$ grows the blocks take almost all of a $\Theta$ that grows like $2^L(2 + L/2)$, and each
# block's share tends to $1/L$: it is no longer of order $\gamma$.
#
# (b) You need the scatter, which the cell prints. The two mean shares come out as 0.055 for block 1 and 0.050
# for block 16. The total of all blocks scatters by only 3 % from network to network, a single block's share by
# 20 % on average over the 16 blocks, and blocks 1 and 16 by 24 % and 30 %: one network's share of either ranges
# from about 0.03 to 0.08, and each mean of 8 is uncertain by about $\pm 0.005$ (one standard error). The
# difference of the two, $0.005 \pm 0.009$ (from the 8 paired differences), is well below two of its standard
# errors: these 8 networks cannot tell the two blocks apart.
#
# </details>

# %%
# Try it: change alpha_of (the branch scale as a function of L) and re-run this cell
alpha_of = lambda L: L ** -0.5                      # α = 1/√L
for L in (4, 16):
    runs = [course.block_shares(L, alpha_of(L), inputs[0], width=256, seed=seed) for seed in range(8)]
    print(nh._("L = {depth}, α = {alpha:.3g}: all blocks carry {measured:.3f} of Θ(x, x), mean of 8 networks "
               "(closed form {closed:.3f})").format(depth=L, alpha=alpha_of(L),
                                                     measured=np.mean([r.blocks.sum() for r in runs]),
                                                     closed=course.ntk_shares(L, alpha_of(L)).blocks))
    print(nh._("    block 1 carries {first:.3f}, block {depth} {last:.3f} (closed form {closed:.3f} each)")
          .format(first=np.mean([r.blocks[0] for r in runs]), depth=L,
                  last=np.mean([r.blocks[-1] for r in runs]), closed=course.ntk_shares(L, alpha_of(L)).block))
    ends = np.array([[r.blocks[0], r.blocks[-1]] for r in runs])
    spread, gap = ends.std(axis=0, ddof=1), ends[:, 0] - ends[:, 1]
    print(nh._("    scatter over the 8 networks: block 1 {s1:.0%}, block {depth} {s2:.0%}; "
               "standard errors of the means ±{e1:.4f}, ±{e2:.4f}; "
               "block 1 − block {depth} = {gap:+.4f} ± {egap:.4f}").format(
        s1=spread[0] / ends[:, 0].mean(), s2=spread[1] / ends[:, 1].mean(), depth=L,
        e1=spread[0] / math.sqrt(8), e2=spread[1] / math.sqrt(8), gap=gap.mean(),
        egap=gap.std(ddof=1) / math.sqrt(8)))

# %% tags=["check"]
# one network's block total scatters by 8 % at width 256 (α = 1/√L, L = 16), the mean of 8 by about 3 %;
# 10 % is
# three standard errors, and a block share that fell like α = 1/√L would miss by a factor of √L
nh.check_close("α = 1/√L, L = 4: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.286)",
               all_blocks[4], closed[4].blocks, rtol=0.1)
nh.check_close("α = 1/√L, L = 16: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.320)",
               all_blocks[16], closed[16].blocks, rtol=0.1)
slope, closed_slope = (np.polyfit(np.log(share_depths), np.log(y), 1)[0]
                       for y in (one_block, [closed[L].block for L in share_depths]))
# the closed form's slope is −0.92 over L = 2 … 64 (−1 as L → ∞); the O(√L) arithmetic would give −0.5
nh.check_close("log-log slope of one block's share against L", slope, closed_slope, atol=0.08)
# one block of one network is 9 % off the closed form on average (α = 1/√L, L = 16), the mean of 8 networks
# 2.4 % (5.3 % at most): 10 % per block leaves room for 16 blocks
per_block = np.mean([s.blocks for s in shares[16]], axis=0) / closed[16].block
nh.check_close("α = 1/√L, L = 16: each of the 16 blocks' shares / the closed form, mean of 8 networks",
               per_block, np.ones(16), rtol=0.1)
nh.check_close("α = 1/√L, L = 16: input layer + blocks, mean of 8 networks", top[1],
               closed[16].input + closed[16].blocks, rtol=0.1)
limit = course.ntk_shares(10 ** 6, 1e-3)                     # α = 1/√L at L = 10⁶
for part in (limit.input, limit.blocks, limit.readout):
    nh.check_close("α = 1/√L: input layer, all blocks and readout carry 1/3 each as L → ∞", part, 1 / 3,
                   rtol=1e-5)

# %% tags=["check"]
# the conditions: equal shares for ReLU without bias on the diagonal, not for erf
relu_parts = course.recursion_shares(16, 16 ** -0.5, "relu").blocks
nh.check_close("ReLU, α = 1/√L, L = 16: block 1's share / block 16's, the recursion (1)",
               relu_parts[0] / relu_parts[-1], 1.0, rtol=1e-12)
nh.check_close("erf: the recursion's Θ(x, x) is the engine's", course.recursion_shares(16, 0.25, "erf").total,
               float(nh.resnet(16, "erf", alpha=0.25).kernel(inputs[:1]).ntk[0, 0]), rtol=1e-10)
# a block's share: of order γ while Lγ is bounded, about 1/L when Lγ grows
for L in (64, 1024):
    nh.check_close("α = 1/√L, L = 64 and 1024: one block's share / γ (→ 1/3: of order γ)",
                   course.ntk_shares(L, L ** -0.5).block / course.growth_per_block(L ** -0.5), 1 / 3,
                   rtol=0.02)
    nh.check_close("α = 1, L = 64 and 1024: one block's share × L (→ 1: about 1/L)",
                   course.ntk_shares(L, 1.0).block * L, 1.0, rtol=0.07)

# %% tags=["check"]
# the try-it at α = 1: closed form L/(L + 4), the same 8 networks as the cell prints
for L, quoted in ((4, 0.5), (16, 0.8)):
    nh.check_close("α = 1: all blocks' share at L = 4 and 16 (closed form 0.50, 0.80)",
                   course.ntk_shares(L, 1.0).blocks, quoted, rtol=1e-12)
at_alpha_one = {L: np.array([course.block_shares(L, 1.0, inputs[0], width=256, seed=seed).blocks
                             for seed in range(8)]) for L in (4, 16)}
for L, quoted in ((4, 0.501), (16, 0.800)):
    nh.check_close("α = 1: all blocks' share at L = 4 and 16, mean of 8 networks (0.501, 0.800)",
                   at_alpha_one[L].sum(1).mean(), quoted, atol=0.0005)
totals = at_alpha_one[16].sum(1)
nh.check_close("α = 1, L = 16: relative scatter of all blocks' share over the 8 networks (3 %)",
               totals.std(ddof=1) / totals.mean(), 0.03, atol=0.005)
single = at_alpha_one[16]
nh.check_close("α = 1, L = 16: relative scatter of one block's share over 8 networks (20 %, all blocks)",
               np.mean(single.std(axis=0, ddof=1) / single.mean(axis=0)), 0.20, atol=0.01)
ends_at_one = single[:, [0, -1]]
nh.check_close("α = 1, L = 16: block 1's share, mean of 8 networks (0.055)", ends_at_one[:, 0].mean(), 0.055,
               atol=0.0005)
nh.check_close("α = 1, L = 16: block 16's share, mean of 8 networks (0.050)", ends_at_one[:, 1].mean(), 0.050,
               atol=0.0005)
for standard_error in ends_at_one.std(axis=0, ddof=1) / math.sqrt(8):
    nh.check_close("α = 1, L = 16: standard error of block 1's and block 16's mean share (± 0.005)",
                   standard_error, 0.005, atol=0.0007)
relative_ends = ends_at_one.std(axis=0, ddof=1) / ends_at_one.mean(axis=0)
nh.check_close("α = 1, L = 16: relative scatter of block 1's share over 8 networks (24 %)", relative_ends[0],
               0.24, atol=0.005)
nh.check_close("α = 1, L = 16: relative scatter of block 16's share over 8 networks (30 %)", relative_ends[1],
               0.30, atol=0.005)
difference = ends_at_one[:, 0] - ends_at_one[:, 1]
nh.check_close("α = 1, L = 16: block 1 − block 16, mean of 8 networks (0.005)", difference.mean(), 0.005,
               atol=0.0005)
nh.check_close("α = 1, L = 16: standard error of that difference (0.009)",
               difference.std(ddof=1) / math.sqrt(8), 0.009, atol=0.0005)
nh.check_between("α = 1, L = 16: (block 1 − block 16) / its standard error: below 2, no clear difference",
                 abs(difference.mean()) / (difference.std(ddof=1) / math.sqrt(8)), 0.0, 2.0)
nh.check_that("α = 1, L = 16: one network's share of block 1 or 16 (about 0.03 to 0.08)",
              ((0.025 <= ends_at_one) & (ends_at_one <= 0.085)).all(),
              measured=f"{ends_at_one.min():.3f} … {ends_at_one.max():.3f}", expected="0.025 … 0.085")
nh.check_close("α = 1, L = 16: each block's share, closed form 1/(L + 4)", course.ntk_shares(16, 1.0).block,
               0.05, rtol=1e-12)
nh.check_close("α = 1, L = 1: the single block's share (0.2)", course.ntk_shares(1, 1.0).block, 0.2,
               rtol=1e-12)

# %% [markdown]
# ### Finite networks agree
#
# The recursion is an infinite-width statement. We compare it with the empirical NTKs of 8 networks of width
# 1024 with 4 blocks, on the 8 inputs above, for each scaling: how far one network is from the analytic NTK
# (relative Frobenius norm of the difference), and how far the mean of the 8 networks is
# (`course.finite_networks` keeps the 24 empirical NTKs, so asking for them again costs nothing).

# %%
finite = {name: course.finite_networks(name, width=1024) for name in scalings}     # seeds 0 … 7 each
for name, run in finite.items():
    text = nh._("{scaling}: one network is {one:.1%} off the NTK on average ({low:.1%} to {high:.1%} over 8 "
                "seeds), the mean of the 8 networks {mean:.1%}")
    print(text.format(scaling=name, one=run.errors.mean(), low=run.errors.min(), high=run.errors.max(),
                      mean=run.mean_error))

# %% [markdown]
# The mean of 8 networks is 1.9–4.9 % off. How much of that is scatter that more networks would average away? If
# the networks fluctuated independently around the recursion's kernel, the mean of 8 would be off by about one
# network's root-mean-square error divided by $\sqrt 8$: 4.0 %, 3.0 % and 2.2 % for $\alpha = 1$, $1/\sqrt L$
# and $1/L$. The measured 4.9 %, 2.7 % and 1.9 % are close to that (within 25 %): no sign of a bias.
#
# What can they exclude? A bias $b$ of the mean would add in squares to the scatter $s$, giving $\sqrt{b^2 + s^2}$. For
# $\alpha = 1$ the measured 4.9 % leaves room for $b \approx \sqrt{4.9^2 - 4.0^2} = 2.8\,\%$. For the other
# two the measured error is below the scatter estimate; a bias of 2 % would have made it 3.6 % and 3.0 %, 1.3
# and 1.6 times what was measured. So these 8 networks leave room for a bias of up to about 3 % ($\alpha = 1$)
# or 1–2 % (the other two).

# %% [markdown]
# 1. **Explain.** On average, one network is furthest from the NTK with $\alpha = 1$ and closest with
#    $\alpha = 1/L$. What could make a larger branch scale noisier? (Hint: which layers get more of $\Theta(x, x)$ when $\alpha$
#    grows?)
#
# <details><summary>Answer</summary>
#
# A likely reason, which the next figure tests: the larger $\alpha$, the more of the kernel passes through the
# random blocks (at $L = 4$ the blocks carry 0.50, 0.29 and 0.11 of $\Theta(x, x)$, from the closed form of
# section 4.3.3). Each block's random hidden-to-hidden weights add finite-width fluctuations of their own, on top
# of those of the input layer. The ordering is one of averages over 8 seeds: single networks overlap (the ranges
# printed above). For MLPs, Hanin & Nica (2020) show that the NTK's fluctuations grow with the ratio of depth to
# width; Li, Nica & Roy (2021) show that in ResNets, as in MLPs, the ratio of depth to width governs the
# fluctuations of the output at initialization.
#
# </details>

# %% [markdown]
# **Testing that answer.** Split $\Theta(x, x)$ of 8 networks (width 1024, 4 blocks, seeds 0–7, the first of the
# 8 inputs) into the input layer's, all blocks' and the readout's parts, as in section 4.3.3, and subtract from
# each part its infinite-width value. If the answer is right, the blocks' dots spread the most at $\alpha = 1$.

# %%
def layer_parts(run, exact):
    """One network's input-layer, all-blocks and readout parts of Θ(x, x), as fractions of the analytic Θ."""
    return np.array([run.input, run.blocks.sum(), run.readout]) * run.total / exact


deviation = {}
fig, ax = plt.subplots(figsize=(8.6, 4.0))
for i, (name, alpha) in enumerate(scalings.items()):
    exact = course.closed_form_ntk(4, alpha(4), q0=2.0)             # the 8 inputs have q₀ = σ_w² x·x/d = 2
    share = course.ntk_shares(4, alpha(4))
    runs = [course.block_shares(4, alpha(4), inputs[0], width=1024, seed=seed) for seed in range(8)]
    closed_parts = [share.input, share.blocks, share.readout]
    deviation[name] = np.array([layer_parts(r, exact) for r in runs]) - closed_parts
    for j, (field, label, color) in enumerate(layers):              # input layer, all blocks, readout
        ax.plot(np.full(8, i + 0.22 * (j - 1)), deviation[name][:, j], "o", color=color, alpha=0.7,
                label=label if i == 0 else None)
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(range(3), list(scalings))
ax.set_ylabel(nh._("(part − infinite-width part) / Θ(x, x)"))
ax.set_title(nh._("The blocks' part scatters the most at α = 1, where the blocks carry the most"))
ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()
for name in scalings:
    spread = deviation[name].std(axis=0, ddof=1)
    print(nh._("{scaling}: scatter over the 8 networks, as a fraction of Θ(x, x): input layer {input:.1%}, "
               "all blocks {blocks:.1%}, readout {readout:.1%}").format(scaling=name, input=spread[0],
                                                                      blocks=spread[1], readout=spread[2]))

# %% [markdown]
# The blocks' part scatters by 5.0 %, 2.7 % and 1.1 % of $\Theta(x, x)$ for $\alpha = 1$, $1/\sqrt L$ and
# $1/L$: about a tenth of the share it carries (0.50, 0.29, 0.11) in all three. The input layer's and the
# readout's parts scatter by 2–3.5 % in all three. So the extra scatter of a larger $\alpha$ comes from the
# blocks, as the answer said. This is one input and 8 networks (each spread above is uncertain by about a
# quarter of itself), so it supports the answer; it does not prove it.

# %% tags=["check"]
spreads = {name: deviation[name].std(axis=0, ddof=1) for name in scalings}
for name, quoted in zip(scalings, (0.050, 0.027, 0.011)):
    nh.check_close("L = 4: scatter of all blocks' part / Θ(x, x), α = 1, 1/√L, 1/L (5.0, 2.7, 1.1 %)",
                   spreads[name][1], quoted, atol=0.0005)
    nh.check_between("that scatter / all blocks' share (about a tenth)",
                     spreads[name][1] / course.ntk_shares(4, scalings[name](4)).blocks, 0.08, 0.11)
    for value in spreads[name][[0, 2]]:
        nh.check_between("scatter of the input layer's and the readout's parts / Θ(x, x) (2–3.5 %)", value,
                         0.02, 0.035)
nh.check_that("the blocks' part scatters the most at α = 1, the least at α = 1/L",
              spreads["α = 1"][1] > spreads["α = 1/√L"][1] > spreads["α = 1/L"][1],
              measured=str([round(float(v[1]), 4) for v in spreads.values()]), expected="decreasing")
# a standard deviation from 8 Gaussian samples is uncertain by about 1/√(2·7) of itself
nh.check_close("relative uncertainty of a spread from 8 networks (about a quarter)", 1 / math.sqrt(14), 0.25,
               atol=0.03)

# %% [markdown]
# 2. **Predict, then try.** Set `trial_width = 256` in the next cell and re-run it. By what factor will one
#    network's average error grow?
#
# <details><summary>Answer</summary>
#
# By about 2 (1.5–2.0 here). An average over $m$ random units fluctuates like $1/\sqrt m$, and
# $\sqrt{1024/256} = 2$: at width 256 one network is 21.5 %, 14.7 % and 8.8 % off on average, against 10.6 %,
# 8.1 % and 5.9 % at width 1024, ratios 2.0, 1.8 and 1.5. The 1.5 of $\alpha = 1/L$ is about two standard errors
# below 2: a hint, not proof, that its error grows less. Eight seeds per width leave each ratio uncertain by 0.2–0.4 (one standard error, from the
# spread of the 8 networks), so they cannot pin the law down better than that.
#
# </details>

# %%
# Try it: change trial_width and re-run this cell (8 networks per scaling; no other cell uses trial_width)
trial_width = 1024
for name in scalings:
    trial = course.finite_networks(name, width=trial_width)
    print(nh._("{scaling}, width {width}: one network is {one:.1%} off on average, {ratio:.2f} times its "
               "error at width 1024").format(scaling=name, width=trial_width, one=trial.errors.mean(),
                                    ratio=trial.errors.mean() / finite[name].errors.mean()))

# %% tags=["check"]
ones_error = [run.errors.mean() for run in finite.values()]
for name, value, quoted in zip(scalings, ones_error, (0.106, 0.081, 0.059)):
    nh.check_close("width 1024: one network's average error, α = 1, 1/√L, 1/L (10.6 %, 8.1 %, 5.9 %)", value,
                   quoted, atol=0.0005)
means_error = [run.mean_error for run in finite.values()]
for name, value, quoted in zip(scalings, means_error, (0.049, 0.027, 0.019)):
    nh.check_close("width 1024: error of the mean of 8 networks, α = 1, 1/√L, 1/L (4.9 %, 2.7 %, 1.9 %)",
                   value, quoted, atol=0.0005)
# independent scatter around the kernel: the mean of 8 is off by about RMS(one network)/√8
independent = [math.sqrt(np.mean(run.errors ** 2) / 8) for run in finite.values()]
for value, quoted in zip(independent, (0.040, 0.030, 0.022)):
    nh.check_close("RMS error of one network / √8, α = 1, 1/√L, 1/L (4.0 %, 3.0 %, 2.2 %)", value, quoted,
                   atol=0.0005)
for mean, expected in zip(means_error, independent):
    nh.check_between("error of the mean of 8 / (RMS of one / √8): within 25 % of 1", mean / expected,
                     0.75, 1.25)
nh.check_close("α = 1: room for a bias, √(mean error² − (RMS/√8)²) (2.8 %)",
               math.sqrt(means_error[0] ** 2 - independent[0] ** 2), 0.028, atol=0.0015)
for mean, expected, quoted in zip(means_error[1:], independent[1:], (1.3, 1.6)):
    nh.check_close("α = 1/√L, 1/L: with a 2 % bias, the error of the mean / the measured one (1.3, 1.6)",
                   math.sqrt(0.02 ** 2 + expected ** 2) / mean, quoted, atol=0.05)
nh.check_that("one network's average error falls from α = 1 to 1/√L to 1/L (L = 4, width 1024)",
              ones_error[0] > ones_error[1] > ones_error[2], measured=str(np.round(ones_error, 3)),
              expected="decreasing")
for alpha, quoted in zip(scalings.values(), (0.50, 0.29, 0.11)):
    nh.check_close("closed form, L = 4: all blocks' share of Θ(x, x) for α = 1, 1/√L, 1/L (0.50, 0.29, 0.11)",
                   course.ntk_shares(4, alpha(4)).blocks, quoted, atol=0.005)

# %% tags=["check"]
# the try-it at width 256 (same seeds and inputs; computed here whatever trial_width the learner chose)
narrow = [course.finite_networks(name, width=256).errors for name in scalings]
for errors, quoted in zip(narrow, (0.215, 0.147, 0.088)):
    nh.check_close("width 256: one network's average error, α = 1, 1/√L, 1/L (21.5 %, 14.7 %, 8.8 %)",
                   errors.mean(), quoted, atol=0.0005)
error_growth = np.array([e.mean() for e in narrow]) / ones_error
for value, quoted in zip(error_growth, (2.0, 1.8, 1.5)):
    nh.check_close("one network's error, width 256 / width 1024 (2.0, 1.8, 1.5)", value, quoted, atol=0.05)
relative_spread = [(n.std(ddof=1) / n.mean()) ** 2 + (run.errors.std(ddof=1) / run.errors.mean()) ** 2
                   for n, run in zip(narrow, finite.values())]
standard_error = error_growth * np.sqrt(np.array(relative_spread) / 8)
for value in standard_error:
    nh.check_between("standard error of each ratio, from the 8 networks' spread (0.2–0.4)", value, 0.15, 0.45)
nh.check_between("α = 1/L: (2 − its ratio) / its standard error (about 2)",
                 (2 - error_growth[2]) / standard_error[2], 1.5, 2.5)

# %% [markdown]
# ## Explore
#
# The explorer draws the normalized NTK $\Theta(x, x')/\Theta(x, x)$ against the angle between two inputs: at
# depth $L$ (dark), at half that depth (dashed), for one block (faint; at $L = 1$ every scaling has $\alpha = 1$),
# and the linear kernel $\cos\theta$ (dotted). Its title says in one sentence what depth did to the kernel; a
# change it quotes is the largest change from $L/2$ to $L$ blocks. A printed line gives $\Theta(x, x)$ and the
# values at 3°, 90° and 180° (in a static view of the lesson, above the figure). The activations are those with a closed-form kernel (ReLU,
# erf, GELU), so a redraw is quick even at 200 blocks. It starts at $L = 16$, $\alpha = 1/\sqrt L$, ReLU (a
# static view of the lesson shows that setting).

# %% tags=["nbval-ignore-output"]
print(course.explorer_line(16, "α = 1/√L", "relu"))     # the line at the starting setting (for a static view)
nh.widgets.live_figure(course.draw_normalized_ntk, depth=nh.widgets.depth_slider(16, max=200),
                       scaling=nh.widgets.dropdown(nh._("scaling"), "α = 1/√L", options=list(scalings)),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "erf", "gelu"]))

# %% [markdown]
# **Predict, then check.**
#
# 1. Keep $\alpha = 1/\sqrt L$ and ReLU. At $L = 16$ the value at 90° is 0.186. Move the depth to 200: will it
#    change by more or less than 0.01? Predict, then move the slider.
#
# <details><summary>Answer</summary>
#
# Less: it moves only to 0.191. At $L = 16$ the title's change (up to 0.02 from 8 to 16 blocks) is already small;
# at $L = 50$ the title says that 25 → 50 blocks change the kernel by about 0.005, and that it has settled. With
# $\alpha = 1/\sqrt L$ the kernel converges to a depth-independent limit.
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
# almost all of $\Theta$. (At the starting setting, $\alpha = 1/\sqrt L$, the value at 180° is instead negative,
# −0.257, unlike a deep ReLU MLP's: the linear input layer contributes $q_0\cos 180° = -q_0$ to $\Theta(x, x')$,
# and the skips pass its $\Sigma^{(0)}(x, x') = -q_0$ on to the readout.)
#
# </details>
#
# 3. Switch to erf. Before you look: what will the normalized NTK be at 90° and at 180°, at any depth and
#    scaling? (erf is odd, $\operatorname{erf}(-u) = -\operatorname{erf}(u)$, and these networks have no bias.)
#    Then choose $\alpha = 1$ and move the depth from 16 to 50: what happens to inputs only 3° apart? (Hint:
#    $\operatorname{erf}'(u) = \frac{2}{\sqrt\pi}e^{-u^2}$ is a narrow bump, and with $\alpha = 1$ the
#    pre-activations grow block after block.)
#
# <details><summary>Answer</summary>
#
# 0.000 at 90° and −1.000 at 180°, at every setting. At 180°, $x' = -x$: a network built from odd functions and no
# bias is odd, $f(-x) = -f(x)$, so are its parameter gradients, and $\Theta(x, -x) = -\Theta(x, x)$. At 90° the
# input layer's two pre-activations are uncorrelated Gaussians, hence independent, and
# $\mathbb E[\operatorname{erf}(u)\operatorname{erf}(v)] = \mathbb E[\operatorname{erf}(u)]\,
# \mathbb E[\operatorname{erf}(v)] = 0$; so $\Sigma$ stays 0 at 90° block after block, and so does $\Theta$, which
# starts at $\Sigma^{(0)} = 0$ and only adds multiples of $\Theta^{(l-1)}$ and $\mathbb E[\phi\phi]$. (ReLU is not
# odd and $\mathbb E[\operatorname{relu}(u)] > 0$: hence its positive values at 90°.)
#
# With $\alpha = 1$ the value at 3° falls from 0.733 at $L = 16$ to 0.031 at $L = 50$: even near neighbours become
# nearly uncorrelated. $\Sigma$ grows by up to $\sigma_w^2 = 2$ per block (since $\operatorname{erf}^2 \le 1$), so
# the pre-activations grow large, while $\operatorname{erf}'(u) = \frac{2}{\sqrt\pi}e^{-u^2}$ stays a bump of
# width about 1. So $\phi'(u)\phi'(v)$ is sizeable only where $u$ and $v$ are both near 0. When $u = \pm v$
# (that is, $x' = \pm x$) the two land there together whenever $u$ does; when $u$ and $v$ are less than perfectly
# correlated and have a large variance, both near 0 at once is much rarer. So $\mathbb E[\phi'(u)\phi'(v)]$ is
# much larger at $x' = \pm x$ than for any $x'$ not very close to $\pm x$, each block's factor $1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']$ favours the diagonal,
# and over many blocks the diagonal outgrows every other entry.
#
# </details>

# %% tags=["check"]
def explorer(depth, scaling, activation, degrees):
    """The normalized NTK the explorer's line prints at that setting and angle (3°, 90° or 180°)."""
    index = {3: course.AT_3, 90: course.AT_90, 180: course.AT_180}[degrees]
    return float(course.normalized_ntk(depth, scaling, activation)[1][index])


nh.check_close("α = 1/√L, ReLU: normalized NTK at 90°, L = 16 and 200 (0.186, 0.191)",
               [explorer(16, "α = 1/√L", "relu", 90), explorer(200, "α = 1/√L", "relu", 90)], [0.186, 0.191],
               atol=0.0005)
half_change = float((course.normalized_ntk(50, "α = 1/√L", "relu")[1]
                     - course.normalized_ntk(25, "α = 1/√L", "relu")[1]).abs().max())
nh.check_between("α = 1/√L, ReLU: largest change of the kernel from 25 to 50 blocks (0.005)", half_change,
                 0.0045, 0.0055)
change_16 = float((course.normalized_ntk(16, "α = 1/√L", "relu")[1]
                   - course.normalized_ntk(8, "α = 1/√L", "relu")[1]).abs().max())
nh.check_between("α = 1/√L, ReLU: largest change of the kernel from 8 to 16 blocks (0.02, still reshaping)",
                 change_16, 0.015, 0.025)
nh.check_that("α = 1/√L, ReLU: the titles at L = 16 (still reshaping) and L = 50 (settled)",
              course.describe(16, "α = 1/√L", "relu") == nh._(
                  "{half} → {depth} blocks still reshape the kernel (by up to {change:.2f})").format(
                  half=8, depth=16, change=change_16)
              and course.describe(50, "α = 1/√L", "relu") == nh._(
                  "{half} → {depth} blocks change the kernel by {change:.3f} at most: it has settled").format(
                  half=25, depth=50, change=half_change))
nh.check_close("α = 1/√L, ReLU, L = 16: normalized NTK at 180° (negative, −0.257)",
               explorer(16, "α = 1/√L", "relu", 180), -0.257, atol=0.0005)
nh.check_close("α = 1, ReLU: normalized NTK at 3°, L = 16, 100, 200 (0.940, 0.720, 0.582)",
               [explorer(L, "α = 1", "relu", 3) for L in (16, 100, 200)], [0.940, 0.720, 0.582], atol=0.0005)
nh.check_close("α = 1, ReLU, L = 200: normalized NTK at 90° and 180° (about 0.27)",
               [explorer(200, "α = 1", "relu", 90), explorer(200, "α = 1", "relu", 180)], [0.27, 0.27],
               atol=0.006)
def reshaping_title(L):
    """The explorer's title for α = 1, ReLU, L blocks if depth still reshapes the kernel (either language)."""
    change = float((course.normalized_ntk(L, "α = 1", "relu")[1]
                    - course.normalized_ntk(L // 2, "α = 1", "relu")[1]).abs().max())
    return nh._("{half} → {depth} blocks still reshape the kernel (by up to {change:.2f})").format(
        half=L // 2, depth=L, change=change)


nh.check_that("α = 1, ReLU: the title says depth still reshapes the kernel at L = 16, 50, 100, 200",
              all(course.describe(L, "α = 1", "relu") == reshaping_title(L) for L in (16, 50, 100, 200)))
erf_ends = [explorer(L, s, "erf", a) for s in scalings for L in (1, 16, 50, 200) for a in (90, 180)]
nh.check_close("erf: normalized NTK at 90° and 180° (0 and −1), 3 scalings × 4 depths", erf_ends,
               [0.0, -1.0] * 12, atol=1e-6)
nh.check_close("α = 1, erf: normalized NTK at 3°, L = 16 and 50 (0.733, 0.031)",
               [explorer(16, "α = 1", "erf", 3), explorer(50, "α = 1", "erf", 3)], [0.733, 0.031],
               atol=0.0005)

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
# 3. A ResNet keeps the fixed branch scale $\alpha = 0.1$ however deep it is (ReLU, $\sigma_w^2 = 2$, no bias). At
#    $L = 100$ that is $\alpha = 1/\sqrt L$. What is $\Theta(x, x)/q_0$ at $L = 100$, and at $L = 1000$? Does a
#    small fixed $\alpha$ prevent the explosion?
#
# <details><summary>Answer</summary>
#
# $\gamma = 0.01$. At $L = 100$: $1.01^{100}(2 + 100 \cdot 0.01/1.01) = 2.705 \cdot 2.990 = 8.09$, the value of
# $\alpha = 1/\sqrt L$ at that depth. At $L = 1000$: $1.01^{1000}(2 + 9.90) = 20\,959 \cdot 11.90 \approx
# 2.5\cdot 10^5$, where $\alpha = 1/\sqrt L$ gives 8.15. A fixed $\alpha$ only postpones the explosion: $\Theta$
# stays of order $q_0$ while $L\alpha^2$ is of order one, up to about $L = 1/\alpha^2$ blocks, and beyond that it
# grows like $(1 + \alpha^2)^L$. Keeping it bounded at every depth needs $\alpha$ to shrink with $L$.
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
# $L\alpha^2 c \ll 1$; at $\alpha = 1/\sqrt L$, $L\alpha^2 c = c$ and the first-order formula is off by about half
# the product's norm ($r \to \sqrt{1 - 2/e} \approx 0.51$ for $c = 1$).
#
# </details>
#
# 5. For ReLU without bias, why does every block carry the same share of $\Theta(x, x)$, whatever its position
#    in the network? For erf ($\sigma_w^2 = 2$, $q_0 = 2$, $\alpha = 1/\sqrt L$, $L = 16$), which carries more:
#    block 1 or block 16?
#
# <details><summary>Answer</summary>
#
# Block $l$'s squared gradient is a forward factor times a backward factor. The forward signal reaching it has
# grown by $(1+\gamma)^{l-1}$ and the backward signal by $(1+\gamma)^{L-l}$; their product
# $(1+\gamma)^{L-1}$ does not depend on $l$. That uses $\mathbb E[\phi\phi] = \Sigma/2$ and
# $\mathbb E[\phi'\phi'] = 1/2$ on the diagonal, true for ReLU without bias. For erf the two factors no longer
# compensate, and block 1 carries more: erf saturates ($\operatorname{erf}^2 \le 1$), so the forward factor
# $\mathbb E[\phi\phi]$ of block 16 is only 1.12 times block 1's, while block 1's backward factor is still 2.00
# times block 16's. Block 1 carries 1.78 times the share of block 16.
#
# </details>
#
# 6. You train only the input layer and the readout of a ReLU ResNet with $L = 64$ blocks and keep every block
#    frozen at its initial weights. What fraction of $\Theta(x, x)$ is left for $\alpha = 1/\sqrt L$, and for
#    $\alpha = 1$?
#
# <details><summary>Answer</summary>
#
# The NTK sums over the *trained* parameters only, so the blocks' part drops out and
# $2/(2 + L\gamma/(1+\gamma))$ is left. For $\alpha = 1/\sqrt L$, $\gamma = 1/64$ and
# $L\gamma/(1+\gamma) = 64/65$: 0.670 is left, about two thirds (exactly $2/3$ as $L \to \infty$). For
# $\alpha = 1$, $\gamma = 1$: $2/(2 + 32) = 0.059$ is left, because at that scale the blocks carry almost all of
# the kernel.
#
# </details>

# %% tags=["check"]
nh.check_close("question 2: Θ(x, x) at α = 1/2, L = 4, q₀ = 2 (13.67)", course.closed_form_ntk(4, 0.5, 2.0),
               13.67, atol=0.005)
nh.check_close("question 2: the recursion agrees", float(nh.resnet(4, alpha=0.5).kernel(x).ntk[0, 0]),
               course.closed_form_ntk(4, 0.5, 2.0), rtol=1e-10)
fixed = {L: float(nh.resnet(L, alpha=0.1).kernel(x).ntk[0, 0]) / q0 for L in (100, 1000)}
nh.check_close("question 3: α = 0.1, L = 100: Θ(x, x)/q₀ (8.09)", fixed[100], 8.09, atol=0.005)
nh.check_close("question 3: α = 0.1, L = 1000: Θ(x, x)/q₀ (about 2.5·10⁵)", fixed[1000], 2.5e5, rtol=0.01)
nh.check_close("question 3: α = 0.1, L = 1000: the closed form agrees", fixed[1000],
               course.closed_form_ntk(1000, 0.1), rtol=1e-10)
nh.check_close("question 3: α = 1/√L, L = 1000: Θ(x, x)/q₀ (8.15)",
               course.closed_form_ntk(1000, 1000 ** -0.5), 8.15, atol=0.005)
nh.check_close("question 3: 1.01¹⁰⁰⁰ (20 959)", 1.01 ** 1000, 20959, atol=0.5)
erf_parts = course.recursion_shares(16, 16 ** -0.5, "erf").blocks
forward, backward = course.block_factors(16, 16 ** -0.5, "erf")
nh.check_close("question 5: erf, L = 16: forward factor of block 16 / block 1's (1.12)",
               forward[-1] / forward[0], 1.12, atol=0.005)
nh.check_close("question 5: erf, L = 16: backward factor of block 1 / block 16's (2.00)",
               backward[0] / backward[-1], 2.00, atol=0.005)
nh.check_close("question 5: erf, α = 1/√L, L = 16: block 1's share / block 16's, the recursion (1.78)",
               erf_parts[0] / erf_parts[-1], 1.78, atol=0.005)
for alpha, quoted in ((1 / 8, 0.670), (1.0, 0.059)):
    frozen = course.ntk_shares(64, alpha)
    nh.check_close("question 6: L = 64, α = 1/√L and 1: input layer + readout share (0.670, 0.059)",
                   frozen.input + frozen.readout, quoted, atol=0.0005)

# %% [markdown]
# ## Summary
#
# - A residual block passes the kernel on through its skip and adds $\alpha^2$ times its branch's map; for ReLU
#   each block multiplies the scale by $1 + \gamma$, $\gamma = \alpha^2\sigma_w^2/2$.
# - $\alpha = 1$ (ReLU, $\sigma_w^2 = 2$): $\Theta = q_0\,2^L(2 + L/2)$ and the kernel collapses like an MLP's. $\alpha = 1/\sqrt L$: $\Theta$
#   tends to $e^{\sigma_w^2/2}(2 + \sigma_w^2/2)\,q_0$ ($3e\,q_0$ at $\sigma_w^2 = 2$) and a depth-independent
#   kernel. $\alpha = 1/L$: the branches fade, $\Theta \to 2q_0$.
# - Block Jacobians are of order one; their fresh weights make them add in squares, so
#   $\prod_l(I + \alpha J_l)$ stays bounded for $\alpha = 1/\sqrt L$, but only $L\alpha^2 \ll 1$ makes it
#   first-order ($I + \alpha\sum_l J_l$).
# - For ReLU without bias every block carries the same share of $\Theta(x, x)$ (not for erf); while $L\gamma$ stays
#   bounded that share is of order $\alpha^2$, and all blocks together carry $O(1)$.
# - Finite residual networks agree with the recursion: the mean of 8 networks of width 1024 and 4 blocks is
#   1.9–4.9 % off it, about what independent scatter leaves: no sign of a bias, but room for one of up to about
#   3 % ($\alpha = 1$) or 1–2 % (the other two).

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
# is bounded, but the first-order formula is off by about half the product's norm ($r \approx 0.51$; the
# first-order part holds $2/e \approx 74\,\%$ of the mean square). [errata A14](../ERRATA.md#a14)
#
# </details>
#
# <details><summary>§4.3.2: how the NTK grows with depth (errata A15)</summary>
#
# **The text says:** the ResNet NTK accumulates *linearly* over blocks, "never degenerates", and its effective
# depth grows like $L$.
#
# **What is true:** each block multiplies the forward variance and the backward signal by $1 + \gamma$, so for
# ReLU with $\alpha = 1$ and $\sigma_w^2 = 2$ the NTK grows like $2^L$, exponentially, and the normalized kernel
# collapses like an MLP's. With $\alpha = 1/\sqrt L$ it tends to $3e\,q_0$ at $\sigma_w^2 = 2$
# ($e^{\sigma_w^2/2}(2 + \sigma_w^2/2)\,q_0$ in general); with $\alpha = 1/L$ to $2q_0$.
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
# **Next:** [05a · Normalization](05a_normalization.ipynb)
