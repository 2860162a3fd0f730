# %% [markdown]
# # 05a · Normalization: what layer norm keeps, what batch norm couples
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/05a_normalization.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F05a_normalization.ipynb)
#
# *Chapter 4.4.1.*
#
# **You will learn**
# - the infinite-width kernel of **layer norm**: it divides $\Sigma$ and $\Theta$ by the kernel diagonal;
# - **when** that kernel sees only the directions of the inputs (a bias-free, positively homogeneous layer before
#   layer norm), and a network where it does not (a bias before layer norm);
# - why **batch norm** has no kernel of a pair of inputs: its statistics come from a finite batch, so an input's
#   output depends on its batch mates, at every width;
# - what **frozen** batch norm is (at initialization a fixed rescaling with an exact kernel), and how to
#   *estimate* the kernels of batch norm with batch statistics, one batch at a time.
#
# **Prerequisites:** lessons 01–02 (the NNGP $\Sigma$, the NTK $\Theta$ and their recursion). Previous lesson:
# [04 · Residual networks](04_resnet.ipynb).

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course import normalization as course     # this lesson's experiments, diagram and explorers

nh.plotting.use_style()

# %% [markdown]
# ## The idea in one picture
#
# Layer norm rescales each input by statistics of its *own* units, and at infinite width those statistics are
# the kernel diagonal, so layer norm turns into a fixed rescaling of the kernel. Batch norm rescales each unit by
# statistics of the *batch*, and the batch does not grow with the width, so an input's output depends on which
# inputs share its batch.

# %%
course.idea_diagram()
plt.show()

# %% [markdown]
# Each row of the table is one input's pre-activations, each column one unit. Layer norm averages along a row:
# $m$ numbers, which concentrate as $m \to \infty$. Batch norm averages down a column: $B$ numbers, one per
# input of the batch, and $B$ stays what it is however wide the network gets.
#
# ## 4.4.1 Layer norm: a kernel map
#
# At infinite width layer norm divides $\Sigma$ and $\Theta$ by the kernel diagonal.
#
# Layer norm maps the pre-activations $z \in \mathbb R^m$ of one input to
# $\operatorname{LN}(z)_i = (z_i - \mu)/\sqrt{s^2 + \epsilon}$, with $\mu = \frac1m\sum_i z_i$ and
# $s^2 = \frac1m\sum_i (z_i - \mu)^2$ (this package's `nh.layer_norm()`, $\epsilon = 10^{-5}$). Right after the
# first dense layer, at initialization, the $z_i(x)$ are independent over the units, with mean 0 and variance
# $\Sigma(x, x)$; after a deeper dense layer the same holds given the layer below, with its empirical
# $\hat\Sigma(x, x)$, which tends to $\Sigma(x, x)$. As $m \to \infty$ the law of large numbers gives $\mu \to 0$
# and $s^2 \to \Sigma(x, x)$: layer norm becomes the fixed rescaling
# $z(x) \mapsto z(x)/\sqrt{\Sigma(x,x) + \epsilon}$, one number per input, and $\Sigma$ is rescaled by it:
#
# $$\Sigma(x,x') \mapsto \frac{\Sigma(x,x')}{\sqrt{(\Sigma(x,x)+\epsilon)(\Sigma(x',x')+\epsilon)}}.$$
#
# For $\Theta$ we need the Jacobian of layer norm. With $\hat z = (z - \mu\mathbf 1)/s$ (and $\epsilon$ set aside),
#
# $$\frac{\partial \operatorname{LN}(z)}{\partial z} = \frac1s\Big(I - \tfrac1m \mathbf 1\mathbf 1^\top
#   - \tfrac1m \hat z\hat z^\top\Big) = \frac1s\,(I - P),$$
#
# where $P$ projects onto the two directions $\mathbf 1$ and $\hat z$. The parameters before layer norm act through
# $z$; their NTK is the $m \times m$ matrix $\hat\Theta_z(x, x') = \frac{\partial z(x)}{\partial \theta}
# \frac{\partial z(x')}{\partial \theta}^{\!\top}$, which tends to $\Theta(x, x')\,I$. After layer norm it is
#
# $$\frac{(I - P)\,\hat\Theta_z(x, x')\,(I - P')}{s\,s'} \;\to\; \frac{\Theta(x, x')}{s\,s'}\,(I - P)(I - P'),
#   \qquad s\,s' \to \sqrt{\Sigma(x,x)\,\Sigma(x',x')}.$$
#
# The matrix $(I - P)(I - P')$ is not close to $I$: it removes two directions completely. But the next dense layer
# does not see it as a matrix. Its weights are fresh and independent of everything before, so in the limit it
# sees only the normalized trace $\frac1m\operatorname{tr}\big[(I - P)(I - P')\big] = 1 - O(1/m)$: the trace is
# $m - 4 + \operatorname{tr}(PP')$, between $m - 4$ and $m - 2$. In this lesson's networks a ReLU sits between
# layer norm and the next dense layer, which then sees $\frac1m\operatorname{tr}\big[D(I - P)(I - P')D'\big]$,
# with $D, D'$ the diagonal matrices of the ReLU's derivatives at $x$ and $x'$. Expanding $(I - P)(I - P')$ leaves
# $\frac1m\operatorname{tr}(DD')$, the ReLU's usual term, plus three matrices of rank at most 2 and norm at most 1,
# which change the trace by at most 6. Put differently, the vector that backpropagation brings to layer norm is
# asymptotically orthogonal to $\mathbf 1$ and to $\hat z$, so removing those two directions costs nothing in the
# limit. Hence
#
# $$\Theta(x,x') \mapsto \frac{\Theta(x,x')}{\sqrt{(\Sigma(x,x)+\epsilon)(\Sigma(x',x')+\epsilon)}}.$$
#
# This is the layer-norm rule of neural-tangents' `stax.LayerNorm` (Novak et al. 2020); the Tensor Programs
# framework covers it (Yang 2020, Tensor Programs II). Like `stax.LayerNorm`, this lesson leaves out layer norm's
# learned gain (initialized to 1) and shift (initialized to 0). They do not change $\Sigma$ at initialization, but
# they are parameters too and add their own terms to $\Theta$: the gain's gradient is the normalized
# pre-activation, the shift's is 1, as for a bias.
#
# ### When does the kernel see only directions?
#
# Layer norm erases the scale of an input only if nothing before it, a bias in particular, breaks the input's
# homogeneity.
#
# Scale one input by $a > 0$. Layer norm removes any positive factor: $\operatorname{LN}(c\,z) =
# \operatorname{LN}(z)$ for $c > 0$ (up to $\epsilon$). Take a serial network in which the input reaches the rest
# only through this layer norm (no skip connection around it: in a pre-LN residual block $x$ also bypasses layer
# norm). If the layers *before* layer norm are **positively homogeneous** in the input,
# $z(ax;\theta) = a^k z(x;\theta)$ for every value of the parameters $\theta$, then $f(ax;\theta) = f(x;\theta)$
# for every $\theta$. Two functions of $\theta$ that are equal have equal gradients, so
# $\Theta(ax, x') = \Theta(x, x')$: exactly (up to $\epsilon$), at every width, not only in the limit. That is
# the case when layer norm follows a bias-free dense layer (the same argument covers a stack of bias-free layers
# whose activations are positively homogeneous).
#
# A **bias before layer norm** breaks it: $z(ax) = a\,Wx + b$ is not a multiple of $z(x) = Wx + b$. So does any
# layer before layer norm that is not positively homogeneous. The kernel with layer norm then still depends on the
# input norms, through what the layers before layer norm did to them.
#
# The lesson uses four sets of inputs, all on the sphere $x \cdot x/d = 1$ in $d = 5$ dimensions:
#
# | inputs | $x \cdot x'/d$ | used in |
# |---|---|---|
# | a pair at an acute angle | 0.295 | the first figure, the finite networks' ratios |
# | a nearly opposite pair | −0.74 | the scale explorer, check-your-understanding questions 2 and 3 |
# | 8 random inputs | various | the width sweep of finite networks |
# | $x_1$ and random batch mates | various | the batch-norm sections |
#
# Experiment: the network is dense($\sigma_w = 1.4$, bias $\sigma_b$) → [layer norm] → ReLU → dense(1) (readout
# $\sigma_w = 1$, no bias), at infinite width. Take two inputs with $x \cdot x/d = 1$ ($d = 5$) at an acute angle,
# so that their kernel is clearly positive, scale $x$ by $a$ from $1/4$ to $4$, and plot
# $\Theta(ax, x')/\Theta(x, x')$ for four networks: with and without layer norm, with $\sigma_b = 0$ and
# $\sigma_b = 0.5$.

# %%
ratios, bases = {}, {}
for name, bias, with_ln in [(nh._("ReLU, no bias"), 0.0, False), (nh._("ReLU + bias σ_b = 0.5"), 0.5, False),
                            (nh._("layer norm, no bias before it"), 0.0, True),
                            (nh._("layer norm, bias σ_b = 0.5 before it"), 0.5, True)]:
    theta, bases[name] = course.kernel_vs_scale(bias, with_layer_norm=with_ln, pair="aligned")
    ratios[name] = theta / bases[name]                                  # Θ(a x, x′) / Θ(x, x′) for every a
fig, ax = plt.subplots()
for name, ratio in ratios.items():
    ax.plot(course.SCALES, ratio, "o-", ms=4, label=name)
ax.set_xscale("log")
ax.set_yscale("log")
nh.plotting.width_ticks(ax, [0.25, 0.5, 1, 2, 4])
ax.set_yticks([0.25, 0.5, 1, 2, 4], ["1/4", "1/2", "1", "2", "4"])
ax.yaxis.set_minor_formatter(plt.NullFormatter())
ax.set_xlabel(nh._("scale a of the first input"))
ax.set_ylabel("Θ(a x, x′) / Θ(x, x′)")
ax.set_title(nh._("Layer norm erases the scale only when no bias comes before it"))
ax.legend(fontsize="small")
plt.show()

# %% tags=["check"]
relu_names, ln_names = list(ratios)[:2], list(ratios)[2:]
nh.check_close("the two inputs: x·x′/d (0.295)", float(course.ALIGNED[0] @ course.ALIGNED[1]) / course.D,
               0.295, atol=0.0005)
nh.check_close("Θ(x, x′) of the four networks, in the legend's order (0.642, 0.841, 0.328, 0.381)",
               list(bases.values()), [0.642, 0.841, 0.328, 0.381], atol=0.0005)
nh.check_between("all four networks: smallest Θ(a x, x′) over a (positive)",
                 min(float((ratio * bases[name]).min()) for name, ratio in ratios.items()), 0.1, np.inf)
# no bias: the ReLU network is homogeneous of degree 1 in x (rounding only)
nh.check_close("ReLU, no bias: Θ(a x, x′)/Θ(x, x′) = a", ratios[relu_names[0]], course.SCALES, rtol=1e-10)
# layer norm after a bias-free layer: a changes only the ε term, 1e-5 against Σ(ax, ax) ≥ 0.12
nh.check_close("layer norm, no bias before it: the ratio is 1 for every a", ratios[ln_names[0]],
               np.ones_like(course.SCALES), atol=1e-4)
biased = ratios[ln_names[1]]
nh.check_close("layer norm, bias 0.5 before it: the ratio at a = 1/4 and 4 (1.11, 0.88)", biased[[0, -1]],
               [1.111, 0.880], atol=0.0005)
nh.check_between("layer norm, bias 0.5 before it: largest ratio over a (1.114)", float(biased.max()),
                 1.1, 1.12)
nh.check_that("layer norm, bias 0.5 before it: the ratio is above 1 for a < 1, below 1 for a > 1",
              bool(np.all(biased[:8] > 1) and np.all(biased[9:] < 1)))
nh.check_close("ReLU + bias: the ratio at a = 1/4 and 4 (0.46, 3.33)", ratios[relu_names[1]][[0, -1]],
               [0.456, 3.33], atol=0.005)
gap_to_diagonal = ratios[relu_names[1]] - course.SCALES
nh.check_that("ReLU + bias: the ratio is above a for every a < 1 and below a for every a > 1",
              bool(np.all(gap_to_diagonal[:8] > 0) and np.all(gap_to_diagonal[9:] < 0)))

# %% [markdown]
# Read the four curves (both axes are logarithmic). Without a bias the ReLU network is homogeneous,
# $\Theta(ax, x') = a\,\Theta(x, x')$: the diagonal. Layer norm after a bias-free layer turns that diagonal into
# the constant 1. With a bias before layer norm the curve is nearly flat but not flat: above 1 for $a < 1$, below
# 1 for $a > 1$, from about 1.1 down to about 0.9, so the kernel still sees the scale of $x$. The ReLU network
# with a bias and no layer norm is not homogeneous either: it stays above the diagonal at small $a$ (its bias
# keeps a floor under $\Theta$) and below it at large $a$.
#
# ## Explore: where the bias sits
#
# The explorer moves the bias before and after layer norm, for a harder pair: two inputs ($x \cdot x/d = 1$) that
# point in nearly opposite directions, $x \cdot x'/d = -0.74$, so $\Theta(x, x')$ is small and negative. It
# draws $\Theta(ax, x')$ itself against $a$, for the network dense($\sigma_w = 1.4$, $\sigma_b$ before) → layer norm
# → ReLU → dense(1, $\sigma_b$ after) (solid) and for the same network without layer norm (dashed); a dotted line
# marks each one's value at $a = 1$. The title gives how much the layer-norm curve varies over $a \in [1/4, 4]$,
# relative to the kernel's size $\sqrt{\Theta(x,x)\,\Theta(x',x')}$, and below it three of its values. That size
# is $1 + \sigma_b^2$ (the bias after) at every setting: layer norm right after the first dense layer gives
# $\Sigma(x, x) = 1$ whatever the bias before it, the ReLU and the readout then give
# $\Theta(x, x) = \tfrac12 \cdot 1 + \tfrac12 = 1$, and the readout's bias adds $\sigma_b^2$. With no bias after
# layer norm the relative variation is the absolute one. The explorer starts with no bias at all.

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_scale,
                       bias_before=nh.widgets.sigma_slider(nh._("σ_b before layer norm"), 0.0, max=2.0),
                       bias_after=nh.widgets.sigma_slider(nh._("σ_b after layer norm"), 0.0, max=2.0))

# %% [markdown]
# **Predict, then check.**
#
# 1. At the start the solid curve is flat and $\Theta(x, x')$ is negative: the two inputs point in nearly opposite
#    directions. Raise the bias before layer norm to 0.5: what sign will $\Theta(x/4, x')$ have, and why?
#
# <details><summary>Answer</summary>
#
# Positive: the solid curve crosses zero between $a = 0.5$ and $a = 0.6$ and ends at about $+0.1$ at $a = 1/4$.
# For small $a$ the bias dominates $z(ax) = aWx + b$, so layer norm returns nearly $b$ normalized: almost the same
# vector for every small input, whatever its direction. $x'$ shares that bias, so to the layers after layer norm
# the small input and $x'$ look partly alike.
#
# </details>
#
# 2. Set the bias before layer norm back to 0 and raise the bias *after* it (in the readout) to 1. Will the solid
#    curve depend on $a$?
#
# <details><summary>Answer</summary>
#
# No: it stays flat, and moves up by $\sigma_b^2 = 1$ (in the NTK parameterization, which this course uses, the
# readout's bias has the gradient $\sigma_b$ at every input, so it adds $\sigma_b^2$ to every entry of $\Theta$).
# What comes after layer norm sees only the normalized vector, the same for $ax$ as for $x$, so
# $f(ax;\theta) = f(x;\theta)$ still holds for every $\theta$. The dashed curve is not flat: without layer norm
# and without a bias before it, $\Theta(ax, x') = a\,\Theta_0(x, x') + 1$, with $\Theta_0$ the kernel without any
# bias, a straight line in $a$ with a negative slope.
#
# </details>
#
# 3. Set the bias after layer norm back to 0 and push the bias before it from 0.5 to 2. Will the kernel depend on
#    $a$ more, or less? And why is $\Theta(x, x')$ at $a = 1$ now positive?
#
# <details><summary>Answer</summary>
#
# More: the variation in the title grows from 0.16 to 0.57. With $\sigma_b = 2$ the bias outweighs the weights for
# $x'$ too (per unit, variance $\sigma_b^2 = 4$ against $\sigma_w^2 = 1.96$), so even at $a = 1$ both inputs are
# mostly the shared bias after layer norm, and $\Theta(x, x') \approx 0.42$. The smaller $a$, the more $x$ looks
# like the bias, and the larger the kernel. The title's $\Theta(4x, x')$ equals the $\Theta(x/4, x')$ of
# question 1's setting ($\sigma_b = 0.5$), and not by chance: since $z(ax) = a\,(Wx + b/a)$ and layer norm
# removes the factor $a$, scaling $x$ by $a$ acts like dividing its bias by $a$. Both settings give the same pair
# of layer-norm inputs, one with bias 0.5 and one with bias 2, with the roles of $x$ and $x'$ swapped (they have
# the same norm).
#
# </details>

# %% tags=["check"]
def explorer_theta(before, after, with_ln=True):
    theta, base = course.kernel_vs_scale(before, after, with_layer_norm=with_ln)
    return [float(theta[0]), base, float(theta[-1])]            # a = 1/4, 1, 4


start = course.kernel_vs_scale(0.5)[0]
nh.check_that("explorer, start: Θ(a x, x′) is positive at a = 0.5 and negative at a = 0.59",
              start[4] > 0 > start[5], measured=start[4:6].round(4), expected="> 0, < 0")
nh.check_close("explorer, start: Θ(x, x′) and Θ(x/4, x′) (−0.038, +0.101)",
               explorer_theta(0.5, 0)[1::-1], [-0.038, 0.101], atol=0.0005)
nh.check_close("the explorer's pair: x·x′/d (−0.74)", float(course.PAIR[0] @ course.PAIR[1]) / course.D,
               -0.74, atol=0.005)
nh.check_close("explorer, no bias: Θ(a x, x′) at a = 1/4, 1, 4 (flat at −0.0666)", explorer_theta(0, 0),
               [-0.0666] * 3, atol=5e-5)
nh.check_between("explorer, no bias: variation over a (3e-6, from ε)", course.flatness(0, 0), 1e-6, 5e-6)
nh.check_close("explorer, bias 1 after layer norm: flat at −0.0666 + 1", explorer_theta(0, 1), [0.9334] * 3,
               atol=5e-5)
plain = course.kernel_vs_scale(0, 1, with_layer_norm=False)[0]
nh.check_close("explorer, bias 1 after, no layer norm: Θ(a x, x′) = a Θ₀(x, x′) + 1 (Θ₀ = −0.130)",
               plain, course.SCALES * explorer_theta(0, 0, with_ln=False)[1] + 1, rtol=1e-10)
nh.check_close("explorer, bias before 0.5 and 2: variation over a (0.16, 0.57)",
               [course.flatness(0.5, 0), course.flatness(2, 0)], [0.16, 0.57], atol=0.005)
nh.check_close("explorer, bias 2 before: Θ(a x, x′) at a = 1/4, 1, 4 (0.668, 0.419, 0.101)",
               explorer_theta(2, 0), [0.668, 0.419, 0.101], atol=0.0005)
nh.check_close("explorer: Θ(4x, x′) at bias 2 equals Θ(x/4, x′) at bias 0.5 (up to ε)",
               explorer_theta(2, 0)[2], explorer_theta(0.5, 0)[0], rtol=1e-4)

# %% [markdown]
# ### At finite width
#
# Finite networks keep the invariance exactly, and approach the infinite-width kernel like $m^{-1/2}$.
#
# The argument above holds for each finite network, not only in the limit: for the first figure's inputs and the
# bias-free network, the empirical NTK (autograd, one network) gives $\Theta(4x, x') / \Theta(x, x') = 1$ at every
# width, up to $\epsilon$. With the bias before layer norm the ratios of six networks (seeds 0–5) scatter around
# the infinite-width value, less and less from width 256 to 1024 to 4096 (the figure's widths); the cell prints
# them.
#
# The figure compares whole kernels: 8 inputs with $x \cdot x/d = 1$, the $8 \times 8$ empirical NTK $\hat\Theta$
# of 4 networks per width (the first figure's networks with layer norm), and its relative error
# $\lVert \hat\Theta - \Theta \rVert_F / \lVert \Theta \rVert_F$ (Frobenius norms, against the infinite-width
# kernel $\Theta$), averaged over the 4 networks.

# %%
seeds = range(6)
theta_biased, base_biased = course.kernel_vs_scale(0.5, pair="aligned")
limit = float(theta_biased[-1] / base_biased)
print(nh._("infinite width, bias before layer norm: Θ(4x, x′)/Θ(x, x′) = {limit:.2f}").format(limit=limit))
finite = {width: {bias: np.array([course.finite_ntk_ratio(bias, width, seed=seed, pair="aligned")
                                  for seed in seeds])
                  for bias in (0.0, 0.5)} for width in (256, 1024, 4096)}
for width, ratio in finite.items():
    values = ", ".join(f"{v:.2f}" for v in ratio[0.5])
    print(nh._("width {width}: without a bias before layer norm, Θ(4x, x′)/Θ(x, x′) − 1 is at most "
               "{dev:.0e}; with one, seeds 0–5 give {values}").format(
        width=width, dev=float(np.abs(ratio[0.0] - 1).max()), values=values))
inputs = nh.sphere(8, d=course.D, seed=1)
sweep_widths = [256, 1024, 4096]
sweeps = {bias: nh.width_sweep(course.ln_network(bias), inputs, widths=sweep_widths, seeds=4)
          for bias in (0.0, 0.5)}
fig, ax = plt.subplots()
slopes = {bias: nh.plotting.loglog_fit(ax, sweep_widths, sweep.errors.mean(1),
                                       label=nh._("σ_b = {bias} before layer norm").format(bias=bias))
          for bias, sweep in sweeps.items()}
nh.plotting.width_ticks(ax, sweep_widths)
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative error of the empirical NTK"))
ax.set_title(nh._("Finite networks approach the layer-norm kernel like $m^{-1/2}$, bias or not"))
ax.legend()
plt.show()

# %% tags=["check"]
# the invariance of the bias-free network is exact up to ε (1e-5 against Σ(x, x) = 1.96)
nh.check_between("finite, no bias before layer norm: largest |Θ(4x, x′)/Θ(x, x′) − 1|, 18 networks (3e-6)",
                 max(float(np.abs(finite[w][0.0] - 1).max()) for w in finite), 1e-6, 5e-6)
nh.check_close("infinite width, bias before layer norm: the limit of the ratio (0.88)", limit, 0.880,
               atol=0.0005)
nh.check_close("finite, bias before layer norm: median of 6 networks' ratios, widths 256, 1024, 4096 "
               "(0.880, 0.888, 0.890)", [float(np.median(finite[w][0.5])) for w in finite],
               [0.880, 0.888, 0.890], atol=0.0005)
nh.check_close("finite, bias before layer norm: range of the 6 ratios, widths 256, 1024, 4096 (0.073, 0.046, "
               "0.016)", [float(np.ptp(finite[w][0.5])) for w in finite], [0.073, 0.046, 0.016], atol=0.0005)
nh.check_close("the layer-norm network's Θ(x, x) and Θ(x′, x′) (1)",
               course.ln_network(0.5).kernel(course.ALIGNED).ntk.diagonal(), [1.0, 1.0], atol=1e-4)
# the spread of an empirical NTK falls like m^(-1/2); 4 networks per width leave about ± 0.1 in the slope
nh.check_between("finite, no bias before layer norm: slope of the error in m (about −0.5)",
                 slopes[0.0], -0.65, -0.35)
nh.check_between("finite, bias 0.5 before layer norm: slope of the error in m (about −0.5)",
                 slopes[0.5], -0.65, -0.35)
# a wrong limit would leave an error that stops falling: at m = 4096 it must be below 3 × m^(-1/2) from 256
nh.check_between("finite, both networks: largest error at m = 4096 over 3 × (error at 256) × (256/4096)^½",
                 max(float(sweep.errors.mean(1)[-1] / (3 * sweep.errors.mean(1)[0] / 4))
                     for sweep in sweeps.values()), 0, 1)

# %% [markdown]
# ## Batch norm couples the batch
#
# With batch statistics an input's output depends on its batch mates at every width, so there is no kernel of a
# pair of inputs.
#
# Batch norm normalizes each unit $i$ over the batch: with $\mu_i = \frac1B\sum_{b} z_i(x_b)$ and
# $s_i^2 = \frac1B\sum_b (z_i(x_b) - \mu_i)^2$ over the $B$ inputs of the batch, input $x_b$ gets
# $(z_i(x_b) - \mu_i)/\sqrt{s_i^2 + \epsilon}$. This is a smooth function of every input and every weight. But the
# statistics are averages over $B$ inputs, not over $m$ units: as $m \to \infty$ they stay random, and they
# depend on every member of the batch. So the output for one input depends on its batch mates, and there is no
# kernel $\Theta(x, x')$ of a pair of inputs. The infinite-width limit exists for a whole batch at once, with
# kernels that depend on the batch (the forward kernel $\Sigma$: Yang et al. 2019; the NTK: Yang 2020, Tensor
# Programs II). In eval mode the statistics are fixed numbers, each unit's running mean and variance: batch norm
# is then an affine map of each input on its own, **frozen** batch norm, and a kernel of a pair of inputs exists.
# At initialization the running statistics are 0 and 1 for every unit, so frozen batch norm is the fixed map
# $z \mapsto z/\sqrt{1 + \epsilon}$ and the recursion applies exactly: $\Sigma \mapsto \Sigma/(1 + \epsilon)$ and
# $\Theta \mapsto \Theta/(1 + \epsilon)$. (Once the statistics differ from unit to unit, as after training, the
# kernel is no longer this simple rescaling.)
#
# Experiment: one network, dense($\sigma_w = 1.4$) → batch norm → ReLU → dense(1), no biases, width 1024. Keep
# the input $x_1$ fixed, put it in 200 batches of $B = 8$ whose 7 other members are drawn anew each time,
# uniformly on the sphere $x \cdot x/d = 1$ ($d = 5$), and
# record $f(x_1)$; then the same with frozen statistics.

# %%
coupled = course.batch_outputs(1024, 8)
frozen = course.batch_outputs(1024, 8, frozen=True)
large = course.batch_outputs(1024, 2048, resamples=2)             # two batches of 2048: near the B → ∞ limit
fig, ax = plt.subplots()
ax.hist(coupled.numpy(), bins=30, alpha=0.7,
        label=nh._("batch statistics, B = 8: mean {mean:.2f}, std {spread:.3f}").format(
            mean=float(coupled.mean()), spread=float(coupled.std())))
ax.axvline(float(frozen[0]), color=nh.plotting.PALETTE[1], lw=2,
           label=nh._("frozen statistics: {value:.2f} in every batch (std {spread:.0f})").format(
               value=float(frozen[0]), spread=float(frozen.std())))
ax.axvline(float(large.mean()), color=nh.plotting.PALETTE[2], lw=2, ls="--",
           label=nh._("batch statistics, B = 2048: {value:.2f}").format(value=float(large.mean())))
ax.set_xlabel(nh._("f(x₁) for {n} different batches").format(n=course.RESAMPLES))
ax.set_ylabel(nh._("count"))
ax.set_ylim(top=ax.get_ylim()[1] * 1.4)                           # room for the legend above the bars
ax.set_title(nh._("f(x₁) moves with its batch mates; frozen, it is one value, not their mean"))
ax.legend(fontsize="small", loc="upper left")
plt.show()

# %% tags=["check"]
coupled_rms = float(coupled.pow(2).mean().sqrt())
nh.check_between("batch statistics: std of f(x₁) over the batches, relative to its RMS (above 0.1)",
                 float(coupled.std()) / coupled_rms, 0.1, np.inf)
nh.check_close("frozen statistics: f(x₁) is the same in every batch (std relative to |f|)",
               float(frozen.std() / frozen.abs().max()), 0.0, atol=1e-12)
nh.check_close("f(x₁): mean over batches of 8, frozen, two batches of 2048 (−1.16, −1.41, −1.23, −1.21)",
               [float(coupled.mean()), float(frozen[0]), float(large[0]), float(large[1])],
               [-1.16, -1.41, -1.23, -1.21], atol=0.005)
# a unit's variance over the sphere, σ_w² ‖w_i‖²/d, for the 1024 units of the histogram's network
unit_norms = course.bn_network().network(course.D, width=1024, seed=0)[0].weight.detach().pow(2).sum(1)
nh.check_close("d = 5: the units' variances σ_w² ‖w_i‖²/d, mean (1.96) and std over mean (√(2/5) = 0.63)",
               [float(course.SIGMA_W ** 2 * unit_norms.mean() / course.D),
                float(unit_norms.std() / unit_norms.mean())], [1.96, 0.632], atol=0.06)

# %% [markdown]
# The frozen line is not the centre of the histogram. Frozen at initialization (mean 0, variance 1) is not
# defined as the average of the outputs with batch statistics, nor as their limit of large batches, and in general
# it equals neither: as $B \to \infty$ batch norm subtracts each unit's mean over the whole input distribution
# (here 0) and divides by its standard deviation there (the square root of a variance near
# $\Sigma(x, x) = 1.96$ that differs from unit to unit), not by 1. It differs a lot: over the sphere, unit $i$'s
# variance is $\sigma_w^2\lVert w_i\rVert^2/d$, and with $d = 5$ the squared norm $\lVert w_i\rVert^2$ is
# chi-square with 5 degrees of freedom, whose standard deviation is $\sqrt{2/5} = 63\,\%$ of its mean. Two
# batches of 2048 agree with each other and not with the frozen value.
#
# So the package gives batch norm with batch statistics no kernel: asking for one raises `nh.NoClosedForm`, with
# the two ways out. One is frozen statistics. The other is to *estimate* the kernels of one batch from an ensemble
# of finite networks, with error bars (here 16 networks of width 256). The cell does both on the same batch,
# $x_1$ and 5 batch mates, all with $x \cdot x/d = 1$, and then puts $x_1$ in a second batch with other mates.
# For this network, with one hidden layer, the estimate's mean does not depend on the width: each unit's batch
# norm uses only that unit's weights and the batch, the units are independent and alike, so the empirical NTK is
# $\frac1m$ times a sum of $m$ independent per-unit terms, whose mean is the same at every $m$. The width only
# changes the spread from network to network, and more networks shrink the standard error. The cell repeats the
# first batch at width 1024 to show it.

# %%
bn, frozen_bn = course.bn_network(), course.bn_network(frozen=True)
try:
    bn.kernel(course.X1)
except nh.NoClosedForm:
    print(nh._("bn.kernel(...) raises nh.NoClosedForm: batch statistics have no closed form"))
batches = [course.batch_with_x1(6, resample) for resample in (0, 1)]
exact_frozen = frozen_bn.kernel(batches[0]).ntk
estimates = [nh.monte_carlo_kernel(bn, batch, width=256, n_networks=16) for batch in batches]
wider = nh.monte_carlo_kernel(bn, batches[0], width=1024, n_networks=16)
frozen_estimate = nh.monte_carlo_kernel(frozen_bn, batches[0], width=256, n_networks=16)
print(nh._("frozen, exact: Θ(x, x) = {values} for the 6 inputs of the batch").format(
    values=", ".join(f"{v:.3f}" for v in exact_frozen.diagonal())))
print(nh._("frozen, Monte Carlo: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f}" for v in frozen_estimate.ntk.diagonal())))
print(nh._("batch statistics, Monte Carlo: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f} ± {e:.2f}" for v, e in zip(estimates[0].ntk.diagonal(),
                                                         estimates[0].ntk_sem.diagonal()))))
print(nh._("batch statistics, Monte Carlo at width 1024: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f} ± {e:.2f}" for v, e in zip(wider.ntk.diagonal(), wider.ntk_sem.diagonal()))))
print(nh._("x₁ in the other batch, batch statistics: Θ(x₁, x₁) = {value:.2f} ± {sem:.2f}, against "
           "{first:.2f} ± {first_sem:.2f} in the first").format(value=float(estimates[1].ntk[0, 0]),
                                                  sem=float(estimates[1].ntk_sem[0, 0]),
                                                  first=float(estimates[0].ntk[0, 0]),
                                                  first_sem=float(estimates[0].ntk_sem[0, 0])))

# %% tags=["check"]
# frozen at mean 0 and variance 1: the kernel without batch norm, its first layer's Σ and Θ divided by 1 + ε
nh.check_close("frozen batch norm: Θ(x₁, x₁) equals the kernel with Σ, Θ of the first layer divided by 1 + ε",
               float(exact_frozen[0, 0]),
               float(nh.serial(nh.dense(sigma_w=course.SIGMA_W / (1 + 1e-5) ** 0.5), nh.relu(),
                               nh.dense(1)).kernel(course.X1).ntk[0, 0]), rtol=1e-12)
nh.check_close("frozen batch norm: Θ(x, x) is 1.96 for all 6 inputs", exact_frozen.diagonal(), [1.96] * 6,
               atol=1e-4)
frozen_z = (frozen_estimate.ntk - exact_frozen) / frozen_estimate.ntk_sem
nh.check_between("frozen batch norm: largest gap Monte Carlo − exact NTK, in standard errors (36 entries)",
                 float(frozen_z.abs().max()), 0, 4)
batch_diagonal = estimates[0].ntk.diagonal()
nh.check_close("batch statistics: Θ(x, x) of the 6 inputs, lowest and highest (1.04, 1.32)",
               [float(batch_diagonal.min()), float(batch_diagonal.max())], [1.04, 1.32], atol=0.005)
nh.check_between("batch statistics: highest Θ(x, x) of the batch below the frozen 1.96, in standard errors",
                 float((1.96 - batch_diagonal.max()) / estimates[0].ntk_sem.diagonal().max()), 4, np.inf)
population = nh.serial(nh.dense(sigma_w=course.SIGMA_W / (1.96 + 1e-5) ** 0.5), nh.relu(), nh.dense(1))
nh.check_close("reference frozen at the population statistics (mean 0, variance 1.96): Θ(x, x) = 1.00",
               float(population.kernel(course.X1).ntk[0, 0]), 1.0, atol=1e-4)
nh.check_between("batch statistics: lowest Θ(x, x) of the batch over the reference 1.00 (1.04, above 1)",
                 float(batch_diagonal.min()), 1.0, 1.1)
# a unit's batch variance, averaged over the weights: (1/B) tr[(I − 11ᵀ/B) Σ], Σ the batch's 6 × 6 kernel
batch_sigma = course.SIGMA_W ** 2 * batches[0] @ batches[0].T / course.D
centred = torch.eye(6, dtype=batch_sigma.dtype) - 1 / 6
nh.check_close("the batch's variance per unit, averaged over the weights, over the population's 1.96 (0.87)",
               float(torch.trace(centred @ batch_sigma) / 6 / 1.96), 0.87, atol=0.005)
# one hidden layer: the mean kernel is the same at every width, so the two estimates agree within their SE
width_z = (wider.ntk.diagonal() - batch_diagonal) / (wider.ntk_sem.diagonal() ** 2
                                                     + estimates[0].ntk_sem.diagonal() ** 2).sqrt()
nh.check_between("Monte Carlo, width 1024 against width 256: largest gap of the 6 Θ(x, x), in combined SE",
                 float(width_z.abs().max()), 0, 3)
nh.check_between("width 1024: highest Θ(x, x) of the batch below the frozen 1.96, in standard errors",
                 float((1.96 - wider.ntk.diagonal().max()) / wider.ntk_sem.diagonal().max()), 4, np.inf)
wide_diagonal = wider.ntk.diagonal()
nh.check_between("width 1024: highest minus lowest Θ(x, x) of the batch, in standard errors (still apart)",
                 float((wide_diagonal.max() - wide_diagonal.min()) / wider.ntk_sem.diagonal().max()),
                 3, np.inf)
gap = float(estimates[1].ntk[0, 0] - estimates[0].ntk[0, 0])
combined = float(estimates[0].ntk_sem[0, 0] ** 2 + estimates[1].ntk_sem[0, 0] ** 2) ** 0.5
nh.check_between("batch statistics: Θ(x₁, x₁) in the two batches differs by more than 3 combined SE",
                 gap / combined, 3, np.inf)

# %% [markdown]
# Frozen, the six inputs share one kernel diagonal, $\Theta(x, x) = 1.96$, because they have the same norm; the
# Monte Carlo estimate of the frozen network agrees with it within a few standard errors. With batch statistics the
# diagonal is much lower, and it differs from input to input of the same norm.
#
# Most of the drop is the division. Batch norm divides each unit by its batch standard deviation, where frozen
# batch norm divides by 1; the infinite-width network frozen at the population statistics (mean 0, variance 1.96)
# has $\Theta(x, x) = 1.00$, and the batch's diagonal, 1.04 to 1.32, lies above it. (This batch's variance per
# unit is smaller than the population's, on average over the weights 0.87 of it, since it is measured from the
# batch's own mean; a smaller divisor raises the kernel, but this lesson does not derive the batch's kernel from
# it.) The differences from input to input are the batch's doing too: each unit's statistics are those of six
# inputs, not of the whole distribution, and how the normalization treats an input depends on where it sits among
# its batch mates. Put $x_1$ in another batch and
# its $\Theta(x_1, x_1)$ moves by several error bars: the batch coupling, seen in the kernel. At width 1024 the
# diagonal agrees with width 256 within the error bars (both estimate the same mean), still far below 1.96 and
# still different from input to input.
#
# ## Explore: width and batch size
#
# The explorer lets you test whether width or batch size tames the coupling.
#
# The explorer repeats the experiment for one network at the width and batch size you choose: the histogram of
# $f(x_1)$ over 200 batches with batch statistics, and the one value with frozen statistics (the vertical line).
# The title gives the spread (standard deviation) over the batches, and its second line the mean, the spread and
# the frozen value. Each width is a different random network (seed 0).

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_batch, width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       batch_size=nh.widgets.int_slider(nh._("batch size"), 8, min=2, max=64))

# %% [markdown]
# **Predict, then check.**
#
# 1. Keep the batch size at 8 and move the width from 64 to 4096, 64 times as many units. The readout averages
#    over more and more units: will the spread of $f(x_1)$ fall by a factor 8, or stay roughly constant?
#
# <details><summary>Answer</summary>
#
# Roughly constant: it moves between about 0.18 and 0.23, and not even downward at every step. Averaging over
# more units does not help, because every unit is normalized with the same batch: when the batch mates change,
# all units move together, and their average moves with them. Each unit's statistics still average over 8 inputs,
# whatever the width; more units give more such statistics, not better ones. What changes from width to width is
# mostly the random network (each width is a new one): for seeds 1–3 the spreads range from 0.17 to 0.43, and
# none falls by more than a factor 2 from width 64 to 4096. Watch the frozen line too: at width 256 it happens
# to sit at the histogram's mean, at the other three widths it does not.
#
# </details>
#
# 2. At width 256, move the batch size from 8 to 32. By how much will the spread change?
#
# <details><summary>Answer</summary>
#
# It falls to 0.45 of its value. The batch statistics are averages over $B$ inputs, so their
# fluctuations, and with them those of $f(x_1)$, fall roughly like $B^{-1/2}$: a factor $1/2$ for 4 times the
# batch. Only $B \to \infty$ removes the coupling; then batch norm divides by the statistics of the whole input
# distribution, fixed numbers again, but not the frozen 0 and 1 of initialization (the dashed line of the
# histogram, for batches of 2048, is not the frozen one).
#
# </details>
#
# 3. Set the batch size to 2. What can batch norm hand the ReLU for $x_1$, unit by unit? (Hint: the batch is
#    $x_1$ and one batch mate $x_2$.)
#
# <details><summary>Answer</summary>
#
# About $\pm 1$: with two inputs, $\mu_i$ is their midpoint and $s_i$ half their distance, so $x_1$ gets
# $\pm 1$ (up to $\epsilon$): $+1$ if $z_i(x_1) > z_i(x_2)$, $-1$ otherwise. Of the 256 units, 98 % get a value
# within 0.01 of $\pm 1$. Unit by unit, the network sees only which of the two inputs is larger, and the spread
# is the largest of all batch sizes.
#
# </details>

# %% tags=["check"]
def spread(width, batch_size):
    return float(course.batch_outputs(width, batch_size).std())


nh.check_close("batch explorer, batch 8: spread at widths 64, 256, 1024, 4096",
               [spread(w, 8) for w in (64, 256, 1024, 4096)], [0.226, 0.196, 0.204, 0.179], atol=0.0005)
other_seeds = np.array([[float(course.batch_outputs(w, 8, seed=seed).std()) for w in (64, 256, 1024, 4096)]
                        for seed in (1, 2, 3)])
nh.check_close("batch 8, seeds 1–3: smallest and largest spread over widths 64 to 4096 (0.165, 0.427)",
               [float(other_seeds.min()), float(other_seeds.max())], [0.165, 0.427], atol=0.0005)
falls = [spread(64, 8) / spread(4096, 8), *(other_seeds[:, 0] / other_seeds[:, -1])]
nh.check_between("batch 8, seeds 0–3: largest fall of the spread, width 64 → 4096 (8 for m^(-1/2))",
                 float(max(falls)), 0, 2)
nh.check_close("batch explorer, width 256: spread at batch 32 (0.088)", spread(256, 32), 0.088, atol=0.0005)
means = {w: float(course.batch_outputs(w, 8).mean()) for w in (64, 256, 1024, 4096)}
frozen_values = {w: float(course.batch_outputs(w, 8, frozen=True)[0]) for w in means}
nh.check_between("batch 8, width 256: |frozen − mean over the batches| (small, 0.002)",
                 abs(frozen_values[256] - means[256]), 0, 0.01)
nh.check_between("batch 8, widths 64, 1024, 4096: smallest |frozen − mean over the batches| (above 0.1)",
                 min(abs(frozen_values[w] - means[w]) for w in (64, 1024, 4096)), 0.1, np.inf)
nh.check_close("batch explorer, width 256: spread ratio batch 32 / batch 8 (0.45)",
               spread(256, 32) / spread(256, 8), 0.45, atol=0.005)
units = course.unit_outputs(256, 2)
nh.check_close("batch 2: share of units that batch norm maps within 0.01 of ±1 (98 %)",
               float((units.abs() > 0.99).double().mean()), 0.98, atol=0.005)
nh.check_close("batch explorer, width 256: spread at batch 2 (0.281)", spread(256, 2), 0.281, atol=0.0005)
nh.check_that("batch explorer, width 256: batch 2 has the largest spread of batch sizes 2, 4, 8, 16, 32, 64",
              spread(256, 2) == max(spread(256, b) for b in (2, 4, 8, 16, 32, 64)))

# %% [markdown]
# ## Check your understanding
#
# 1. Before layer norm, $\Sigma(x,x) = 2$, $\Sigma(x',x') = 8$, $\Sigma(x,x') = -2$ and $\Theta(x,x') = -3$. What are
#    $\Sigma(x,x')$ and $\Theta(x,x')$ after it (ignore $\epsilon$)?
#
# <details><summary>Answer</summary>
#
# Both are divided by $\sqrt{2 \cdot 8} = 4$: $\Sigma(x,x') = -0.5$ and $\Theta(x,x') = -0.75$. The diagonal
# becomes $\Sigma(x,x) = \Sigma(x',x') = 1$, so after layer norm $\Sigma$ is a correlation.
#
# </details>
#
# 2. Two bias-free networks with layer norm: dense → ReLU → dense → layer norm → ReLU → dense, and
#    dense → tanh → dense → layer norm → ReLU → dense. In which is $\Theta(ax, x') = \Theta(x, x')$ for all
#    $a > 0$?
#
# <details><summary>Answer</summary>
#
# Only in the first. Bias-free dense layers and ReLU are positively homogeneous, so what reaches layer norm is
# $a$ times what $x$ gives, for every weight. $\tanh(au) \neq a^k\tanh(u)$: with $\tanh$ before layer norm the ratio
# is $0.949$ at $a = 1/4$ and $0.994$ at $a = 4$ (the explorer's inputs).
#
# </details>
#
# 3. A bias-free ReLU network without normalization: what is $\Theta(ax, bx')$ for $a, b > 0$, in terms of
#    $\Theta(x, x')$? And with layer norm after its first layer?
#
# <details><summary>Answer</summary>
#
# $ab\,\Theta(x, x')$: the network is positively homogeneous of degree 1, $f(ax) = a f(x)$, so each gradient
# scales by $a$ and their inner product by $ab$. The kernel is homogeneous, not scale invariant. With layer norm
# after the first layer, $\Theta(ax, bx') = \Theta(x, x')$: now it is scale invariant.
#
# </details>
#
# 4. The explorer stops at batch size 2. What would batch norm with batch statistics hand the ReLU for a batch of
#    one input, and what would the network dense → batch norm → ReLU → dense(1) (no biases) compute?
#
# <details><summary>Answer</summary>
#
# Zero for every unit: with one input, $\mu_i = z_i(x_1)$, so $z_i(x_1) - \mu_i = 0$ and the output is
# $0/\sqrt{0 + \epsilon} = 0$. The ReLU gives 0 and the network outputs 0 for every input and every weight: it
# computes nothing, and its NTK is 0. (This is why PyTorch's `BatchNorm1d` in training mode refuses an input of
# shape $(1, C)$, in which each channel has a single value; `BatchNorm2d` accepts one image, whose channels have
# $H \cdot W$ values each.) The $\epsilon$ keeps it finite; without it the map would be $0/0$.
#
# </details>
#
# 5. Frozen batch norm with running mean 0 and running variance 4 for every unit follows a bias-free dense layer
#    with $\Sigma(x, x) = 2$ and $\Theta(x, x') = 1$. What are $\Sigma(x, x)$ and $\Theta(x, x')$ after it
#    (ignore $\epsilon$), and does the output for $x$ depend on the batch?
#
# <details><summary>Answer</summary>
#
# It is the fixed map $z \mapsto z/2$, the same for every input, so both kernels are divided by 4:
# $\Sigma(x, x) = 0.5$ and $\Theta(x, x') = 0.25$, as if the dense layer's $\sigma_w$ were halved. Its output for
# $x$ depends on $x$ and the weights only, not on the batch, so a kernel of a pair of inputs exists.
#
# </details>

# %% tags=["check"]
# question 1's division rule, on the package's kernels of dense → ReLU → dense before and after layer norm
stack = [nh.dense(sigma_w=course.SIGMA_W), nh.relu(), nh.dense(sigma_w=course.SIGMA_W)]
pair = torch.cat([course.PAIR[:1], 2 * course.PAIR[1:]])                 # Σ(x, x) = 1.92, Σ(x′, x′) = 7.68
before, after = nh.serial(*stack).kernel(pair), nh.serial(*stack, nh.layer_norm()).kernel(pair)
divisor = float(((before.nngp[0, 0] + 1e-5) * (before.nngp[1, 1] + 1e-5)) ** 0.5)
nh.check_close("question 1: Σ(x, x′) after layer norm is Σ(x, x′) / √((Σ(x, x)+ε)(Σ(x′, x′)+ε))",
               float(after.nngp[0, 1]), float(before.nngp[0, 1]) / divisor, rtol=1e-10)
nh.check_close("question 1: Θ(x, x′) after layer norm is Θ(x, x′) / √((Σ(x, x)+ε)(Σ(x′, x′)+ε))",
               float(after.ntk[0, 1]), float(before.ntk[0, 1]) / divisor, rtol=1e-10)
nh.check_close("question 1: after layer norm Σ(x, x) = Σ(x′, x′) = 1 (up to ε)", after.nngp.diagonal(),
               [1.0, 1.0], atol=1e-5)
tanh_ln = nh.serial(nh.dense(sigma_w=course.SIGMA_W), nh.tanh(), nh.dense(sigma_w=course.SIGMA_W),
                    nh.layer_norm(), nh.relu(), nh.dense(1))
relu_ln = nh.serial(nh.dense(sigma_w=course.SIGMA_W), nh.relu(), nh.dense(sigma_w=course.SIGMA_W),
                    nh.layer_norm(), nh.relu(), nh.dense(1))
x, x_other = course.PAIR[:1], course.PAIR[1:]


def scale_ratio(net, a):
    return float(net.kernel(a * x, x_other).ntk / net.kernel(x, x_other).ntk)


nh.check_close("question 2: ReLU before layer norm: ratio at a = 1/4 and 4", [scale_ratio(relu_ln, a)
               for a in (0.25, 4)], [1.0, 1.0], atol=1e-4)
nh.check_close("question 2: tanh before layer norm: ratio at a = 1/4 and 4 (0.949, 0.994)",
               [scale_ratio(tanh_ln, a) for a in (0.25, 4)], [0.949, 0.994], atol=0.0005)
relu_plain = nh.serial(nh.dense(sigma_w=course.SIGMA_W), nh.relu(), nh.dense(1))
nh.check_close("question 3: bias-free ReLU: Θ(2x, 3x′) / Θ(x, x′) = 6",
               float(relu_plain.kernel(2 * x, 3 * x_other).ntk / relu_plain.kernel(x, x_other).ntk), 6.0,
               rtol=1e-10)
ln_first = course.ln_network(0.0)
nh.check_close("question 3: with layer norm after the first layer: Θ(2x, 3x′) / Θ(x, x′) = 1",
               float(ln_first.kernel(2 * x, 3 * x_other).ntk / ln_first.kernel(x, x_other).ntk), 1.0,
               atol=1e-4)
halved = nh.dense(sigma_w=course.SIGMA_W / 2).kernel(course.PAIR)          # z/2 after a bias-free dense layer
full = nh.dense(sigma_w=course.SIGMA_W).kernel(course.PAIR)
nh.check_close("question 5: dividing z by 2 divides Σ(x, x) and Θ(x, x′) by 4",
               [float(halved.nngp[0, 0] / full.nngp[0, 0]), float(halved.ntk[0, 1] / full.ntk[0, 1])],
               [0.25, 0.25], rtol=1e-10)
alone = course.bn_network().network(course.D, width=256, seed=0)
with torch.no_grad():
    alone_units, alone_output = alone[1](alone[0](course.X1)), alone(course.X1)
nh.check_close("question 4: batch of one: what batch norm hands the ReLU, and f(x₁)",
               [float(alone_units.abs().max()), float(alone_output.abs().max())], [0.0, 0.0], atol=1e-12)

# %% [markdown]
# ## Summary
#
# - At infinite width layer norm's statistics are the kernel diagonal: right after a dense layer it divides
#   $\Sigma$ and $\Theta$ by $\sqrt{\Sigma(x,x)\,\Sigma(x',x')}$ (plus $\epsilon$), and the recursion goes on.
# - The kernel then sees only the directions of the inputs **if** what feeds layer norm is positively homogeneous
#   (bias-free dense layers and ReLUs) and the input reaches the rest only through layer norm (a serial network,
#   no skip connection around it): then $f(ax;\theta) = f(x;\theta)$ for every $\theta$, at every width.
# - A bias (or $\tanh$) before layer norm lets the input's scale back in, a little for inputs with a clearly
#   positive kernel, enough to flip its sign for nearly opposite ones. In such a serial network, biases after
#   layer norm do not.
# - Batch norm with batch statistics is smooth but couples the batch: an input's output and its kernel move with
#   its batch mates, and the spread does not shrink with the width, so there is no kernel of a pair of inputs;
#   its kernels can be estimated by Monte Carlo, one batch at a time, with error bars.
# - Frozen batch norm is an affine map of each input, with a kernel; at initialization (statistics 0 and 1) it
#   divides $\Sigma$ and $\Theta$ by $1+\epsilon$.

# %% [markdown]
# ## For readers of chapter 4
#
# <details><summary>§4.4.1: batch norm is "non-smooth"; layer norm "fits the NTK framework better" (errata A17)</summary>
#
# **The text says:** batch norm introduces non-smoothness when its statistics change; layer norm, which uses only
# the statistics of the input itself, fits the NTK framework better.
#
# **What is true:** batch norm is smooth whenever the batch variance plus $\epsilon$ is positive. Its problem is
# the **finite batch**: the statistics do not average out as the width grows, so an input's output depends on
# the other members of its batch (section "Batch norm couples the batch": the spread does not shrink with the
# width), and the kernel depends on the batch (Yang et al. 2019). Frozen statistics make it an affine map.
# Layer norm does have a kernel map, and it makes the kernel depend on the directions alone when what comes before
# it is positively homogeneous (no bias, and ReLU, or any positively homogeneous activation, rather than $\tanh$)
# and the input reaches the rest only through layer norm (section "When does the kernel see only directions?").
# [errata A17](../ERRATA.md#a17)
#
# </details>
#
# <details><summary>§4.5.1: ReLU kernels are "scale invariant" (errata A24)</summary>
#
# **The text says:** on the unit sphere the ReLU kernels depend only on the angle between the inputs, and this
# gives them a scale invariance; the text writes the property as $\Theta(ax, bx') \neq ab\,\Theta(x, x')$, i.e. it
# claims that the kernel does *not* scale with the norms of the inputs.
#
# **What is true:** without biases a ReLU network is positively homogeneous, and so is its kernel:
# $\Theta(ax, bx') = ab\,\Theta(x, x')$ for $a, b > 0$ (the "ReLU, no bias" line of the first figure; question 3).
# Only the normalized kernel, or layer norm after bias-free dense and ReLU layers, is scale invariant (after
# dense → $\tanh$ → dense → layer norm it is not, question 2); a bias breaks homogeneity.
# [errata A24](../ERRATA.md#a24)
#
# </details>
#
# **Next:** [05b · Parameterization](05b_parameterization.ipynb)
