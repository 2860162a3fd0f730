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
# Layer norm maps the pre-activations $z \in \mathbb R^m$ of one input to
# $\operatorname{LN}(z)_i = (z_i - \mu)/\sqrt{s^2 + \epsilon}$, with $\mu = \frac1m\sum_i z_i$ and
# $s^2 = \frac1m\sum_i (z_i - \mu)^2$ (this package's `nh.layer_norm()`, without the learned gain and shift,
# $\epsilon = 10^{-5}$). Right after the first dense layer, at initialization, the $z_i(x)$ are independent over the
# units, with mean 0 and variance $\Sigma(x, x)$; after a deeper dense layer the same holds given the layer below,
# with its empirical $\hat\Sigma(x, x)$, which tends to $\Sigma(x, x)$. As $m \to \infty$ the law of large numbers
# gives $\mu \to 0$ and $s^2 \to \Sigma(x, x)$: layer norm becomes the fixed rescaling
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
# The entries of $P$ and $P'$ are $O(1/m)$, so $(I - P)(I - P')$ is the identity up to $O(1/m)$ in each entry, and
# in the limit
#
# $$\Theta(x,x') \mapsto \frac{\Theta(x,x')}{\sqrt{(\Sigma(x,x)+\epsilon)(\Sigma(x',x')+\epsilon)}}.$$
#
# This is the layer-norm rule of neural-tangents' `stax.LayerNorm` (Novak et al. 2020); the Tensor Programs
# framework covers it (Yang 2020, Tensor Programs II).
#
# ### When does the kernel see only directions?
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
# Experiment: two inputs $x, x'$ ($x \cdot x/d = 1$, $d = 5$) that point in nearly opposite directions
# ($x \cdot x'/d = -0.74$). Scale $x$ by $a$ from $1/4$ to $4$ and plot $\Theta(ax, x')/\Theta(x, x')$ for four
# networks: a ReLU network with and without a bias in its first layer, and the same two with layer norm after the
# first layer. For all four, $\Theta(x, x')$ is **negative** (the legend gives it): a ratio above 1 means that
# $\Theta(ax, x')$ is more negative than $\Theta(x, x')$, a negative ratio that $\Theta(ax, x')$ is positive.

# %%
ratios, bases = {}, {}
for name, bias, with_ln in [(nh._("ReLU, no bias"), 0.0, False), (nh._("ReLU + bias"), 0.5, False),
                            (nh._("layer norm, no bias before it"), 0.0, True),
                            (nh._("layer norm, bias σ_b = 0.5 before it"), 0.5, True)]:
    theta, bases[name] = course.kernel_vs_scale(bias, with_layer_norm=with_ln)   # Θ(a x, x′) per a; Θ(x, x′)
    ratios[name] = theta / bases[name]
fig, ax = plt.subplots()
for name, ratio in ratios.items():
    ax.plot(course.SCALES, ratio, "o-", ms=4,
            label=nh._("{name}: Θ(x, x′) = {base:.3f}").format(name=name, base=bases[name]))
ax.axhline(0, color="k", lw=0.5)
ax.set_xscale("log")
nh.plotting.width_ticks(ax, [0.25, 0.5, 1, 2, 4])
ax.set_xlabel("scale a of the first input")
ax.set_ylabel("Θ(a x, x′) / Θ(x, x′)")
ax.set_title(nh._("Layer norm erases the scale only when no bias comes before it"))
ax.legend(fontsize="small")
plt.show()

# %% tags=["check"]
relu_names, ln_names = list(ratios)[:2], list(ratios)[2:]
# no bias: the ReLU network is homogeneous of degree 1 in x (rounding only)
nh.check_close("ReLU, no bias: Θ(a x, x′)/Θ(x, x′) = a", ratios[relu_names[0]], course.SCALES, rtol=1e-10)
# layer norm after a bias-free layer: a changes only the ε term, 1e-5 against Σ(ax, ax) ≥ 0.12
nh.check_close("layer norm, no bias before it: the ratio is 1 for every a", ratios[ln_names[0]],
               np.ones_like(course.SCALES), atol=1e-4)
biased = ratios[ln_names[1]]
nh.check_close("layer norm, bias 0.5 before it: the ratio at a = 1/4, 1, 4 (−2.66, 1, 1.55)",
               biased[[0, 8, -1]], [-2.66, 1.0, 1.55], atol=0.005)
nh.check_that("layer norm, bias before it: the ratio is negative at a = 0.5 and positive at a = 0.59",
              biased[4] < 0 < biased[5], measured=biased[4:6].round(3), expected="< 0, > 0")
nh.check_between("ReLU + bias: largest relative gap between the ratio and a (above 0.1)",
                 float(np.abs(ratios[relu_names[1]] / course.SCALES - 1).max()), 0.1, np.inf)
nh.check_close("the two inputs: x·x′/d (−0.74)", float(course.PAIR[0] @ course.PAIR[1]) / course.D, -0.74,
               atol=0.005)
nh.check_close("Θ(x, x′) of the four networks, in the legend's order (−0.130, −0.084, −0.067, −0.038)",
               list(bases.values()), [-0.130, -0.084, -0.067, -0.038], atol=0.0005)
nh.check_close("layer norm, bias before it: Θ(x/4, x′) (+0.101)",
               float(course.kernel_vs_scale(0.5)[0][0]), 0.101, atol=0.0005)
nh.check_close("ReLU + bias: the ratio at a = 1/4 and 4 (−1.09, 5.87)", ratios[relu_names[1]][[0, -1]],
               [-1.09, 5.87], atol=0.005)

# %% [markdown]
# Read the four curves. Without a bias the ReLU network is homogeneous: $\Theta(ax, x') = a\,\Theta(x, x')$, a
# straight line of slope 1 in $a$ (curved here only because the $a$-axis is logarithmic). Layer norm after a
# bias-free layer turns that line into the constant 1. With a bias of $\sigma_b = 0.5$ before layer norm the
# ratio runs from $-2.66$ at $a = 1/4$ to $1.55$ at $a = 4$, and changes sign between $a = 0.5$ and
# $a = 0.6$. Why so far from 1? The two inputs are nearly opposite, so $\Theta(x, x') = -0.038$ is small and
# negative, and the ratio divides by it; meanwhile $\Theta(ax, x')$ itself changes sign, to
# $\Theta(x/4, x') = +0.101$ (why, is the third question at the explorer below). The ReLU network with a bias
# and no layer norm swings too, from $-1.09$ at $a = 1/4$ to $5.87$ at $a = 4$: there $\Theta(4x, x') = -0.495$,
# far more negative than $\Theta(x, x') = -0.084$.
#
# ## Explore: where the bias sits
#
# The explorer draws $\Theta(ax, x')$ itself against $a$ (not the ratio, whose denominator can pass through
# zero), for the network dense($\sigma_b$ before) → layer norm → ReLU → dense(1, $\sigma_b$ after) (solid) and for
# the same network without layer norm (dashed); a dotted line marks each one's value at $a = 1$. The title gives
# how much the layer-norm curve varies over $a \in [1/4, 4]$, relative to the kernel's size
# $\sqrt{\Theta(x,x)\,\Theta(x',x')}$, and on its second line the layer-norm curve's values at $a = 1$, $1/4$
# and $4$. It starts at the counterexample above: $\sigma_b = 0.5$ before layer norm, no bias after it.

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_scale,
                       bias_before=nh.widgets.sigma_slider(nh._("σ_b before layer norm"), 0.5, max=2.0),
                       bias_after=nh.widgets.sigma_slider(nh._("σ_b after layer norm"), 0.0, max=2.0))

# %% [markdown]
# **Predict, then check.**
#
# 1. Move the bias before layer norm to 0. What will the solid curve do, and the dashed one?
#
# <details><summary>Answer</summary>
#
# The solid curve becomes flat at $\Theta(x, x') = -0.0666$: the title says it varies by $3\cdot 10^{-6}$, the
# effect of $\epsilon$. The dashed curve (no layer norm, no bias) is $a\,\Theta(x, x')$ with its own
# $\Theta(x, x') = -0.130$: from $-0.033$ at $a = 1/4$ to $-0.52$ at $a = 4$.
#
# </details>
#
# 2. Keep no bias before layer norm and raise the bias *after* it (in the readout) to 1. Will the solid curve
#    start to depend on $a$?
#
# <details><summary>Answer</summary>
#
# No: it stays flat and moves up by $\sigma_b^2 = 1$, to $0.9334$ (in the NTK parameterization, which this course
# uses, the readout's bias has the gradient $\sigma_b = 1$ at every input, so it adds $\sigma_b^2$ to every entry
# of $\Theta$). What comes after layer
# norm sees only the normalized vector, the same for $ax$ as for $x$, so $f(ax;\theta) = f(x;\theta)$ still holds
# for every $\theta$. The dashed curve is not flat: there $\Theta(ax, x') = a\,\Theta_0(x, x') + 1$, with
# $\Theta_0(x, x') = -0.130$ the kernel without any bias, from $0.967$ at $a = 1/4$ to $0.478$ at $a = 4$.
#
# </details>
#
# 3. Set the bias after layer norm back to 0 and push the bias before it from 0.5 to 2. Will the kernel depend on
#    $a$ more, or less? What does layer norm make of a small input, and why is $\Theta(x/4, x')$ positive although
#    $x$ and $x'$ point in nearly opposite directions?
#
# <details><summary>Answer</summary>
#
# More: the title's variation grows from 0.16 to 0.57. With $\sigma_b = 2$ the bias dominates $z(ax) = aWx + b$
# for small $a$, so layer norm returns nearly $b$ normalized: almost the same vector for every small input,
# whatever its direction. $x'$ shares that bias, so the small input and $x'$ look alike to the layers after layer
# norm and their kernel is positive: $\Theta(x/4, x') = 0.668$, against $0.419$ at $a = 1$ and $0.101$ at $a = 4$
# (at $\sigma_b = 0.5$ it was $+0.101$ at $a = 1/4$, for the same reason).
#
# </details>

# %% tags=["check"]
def explorer_theta(before, after, with_ln=True):
    theta, base = course.kernel_vs_scale(before, after, with_layer_norm=with_ln)
    return [float(theta[0]), base, float(theta[-1])]            # a = 1/4, 1, 4


nh.check_close("explorer, no bias: Θ(a x, x′) at a = 1/4, 1, 4 (flat at −0.0666)", explorer_theta(0, 0),
               [-0.0666] * 3, atol=5e-5)
nh.check_between("explorer, no bias: variation over a (3e-6, from ε)", course.flatness(0, 0), 1e-6, 5e-6)
nh.check_close("explorer, no layer norm, no bias: Θ(a x, x′) at a = 1/4, 1, 4 (−0.033, −0.130, −0.52)",
               explorer_theta(0, 0, with_ln=False), [-0.033, -0.130, -0.52], atol=0.003)
nh.check_close("explorer, bias 1 after layer norm: flat at 0.9334", explorer_theta(0, 1), [0.9334] * 3,
               atol=5e-5)
nh.check_close("explorer, bias 1 after, no layer norm: 0.967 at a = 1/4, 0.478 at a = 4",
               explorer_theta(0, 1, with_ln=False)[::2], [0.967, 0.478], atol=0.001)
nh.check_close("explorer, bias before 0.5 and 2: variation over a (0.16, 0.57)",
               [course.flatness(0.5, 0), course.flatness(2, 0)], [0.16, 0.57], atol=0.005)
nh.check_close("explorer, bias 2 before: Θ(a x, x′) at a = 1/4, 1, 4 (0.668, 0.419, 0.101)",
               explorer_theta(2, 0), [0.668, 0.419, 0.101], atol=0.0005)

# %% [markdown]
# ### Finite networks agree, and keep the invariance exactly (up to $\epsilon$)
#
# The argument above holds for each finite network, not only in the limit: for the bias-free network the
# empirical NTK (autograd, one network) gives $\Theta(4x, x') / \Theta(x, x') = 1$ at every width, up to a
# change of $3 \cdot 10^{-6}$ from $\epsilon$. With the bias before layer norm the limit is $1.55$, but the ratio
# of one finite network is a poor probe of it: its denominator $\Theta(x, x') = -0.038$ is small, while a finite
# network's kernel differs from the limit by an amount of order $m^{-1/2}$ times the kernel's diagonal (here
# $\Theta(x, x) = 1$). So the ratio scatters widely from one network to the next; the cell prints it for 6
# networks (seeds 0–5) at widths 64 and 1024.
#
# The figure compares whole kernels instead: 8 inputs with $x \cdot x/d = 4$, the $8 \times 8$ empirical NTK
# $\hat\Theta$ of 4 networks per width, and its relative error
# $\lVert \hat\Theta - \Theta \rVert_F / \lVert \Theta \rVert_F$ (Frobenius norms, against the infinite-width
# kernel $\Theta$), averaged over the 4 networks. To vary the setting, the networks of the figure also have a readout bias $\sigma_b = 0.5$
# (`course.ln_network(bias, 0.5)`).

# %%
seeds = range(6)
limit = float(course.kernel_vs_scale(0.5)[0][-1] / course.kernel_vs_scale(0.5)[1])
print(nh._("infinite width, bias before layer norm: Θ(4x, x′)/Θ(x, x′) = {limit:.2f}").format(limit=limit))
finite = {width: {bias: np.array([course.finite_ntk_ratio(bias, width, seed=seed) for seed in seeds])
                  for bias in (0.0, 0.5)} for width in (64, 1024)}
for width, ratio in finite.items():
    values = ", ".join(f"{v:.2f}" for v in ratio[0.5])
    print(nh._("width {width}: without a bias before layer norm, Θ(4x, x′)/Θ(x, x′) − 1 is at most "
               "{dev:.0e}; with one, seeds 0–5 give {values} (median {median:.2f})").format(
        width=width, dev=float(np.abs(ratio[0.0] - 1).max()), values=values,
        median=float(np.median(ratio[0.5]))))
inputs = nh.sphere(8, d=course.D, seed=1) * 2
sweep_widths = [256, 1024, 4096]
sweeps = {bias: nh.width_sweep(course.ln_network(bias, 0.5), inputs, widths=sweep_widths, seeds=4)
          for bias in (0.0, 0.5)}
fig, ax = plt.subplots()
slopes = {bias: nh.plotting.loglog_fit(ax, sweep_widths, sweep.errors.mean(1),
                                       label=nh._("bias {bias} before layer norm").format(bias=bias))
          for bias, sweep in sweeps.items()}
nh.plotting.width_ticks(ax, sweep_widths)
ax.set_xlabel("width m")
ax.set_ylabel(nh._("relative error of the empirical NTK"))
ax.set_title(nh._("Finite networks approach the layer-norm kernel like $m^{-1/2}$, bias or not"))
ax.legend()
plt.show()

# %% tags=["check"]
# the invariance of the bias-free network is exact up to ε (1e-5 against Σ(x, x) = 1.96)
nh.check_between("finite, no bias before layer norm: largest |Θ(4x, x′)/Θ(x, x′) − 1|, 12 networks (3e-6)",
                 max(float(np.abs(finite[w][0.0] - 1).max()) for w in finite), 1e-6, 5e-6)
nh.check_close("infinite width, bias before layer norm: the limit of the ratio (1.55)", limit, 1.552,
               atol=0.0005)
nh.check_close("finite, bias before layer norm: median of 6 networks' ratios, widths 64, 1024 (1.45, 1.81)",
               [float(np.median(finite[w][0.5])) for w in finite], [1.45, 1.81], atol=0.005)
nh.check_close("finite, bias before layer norm: the smallest ratio at width 64 (−18.44)",
               float(finite[64][0.5].min()), -18.44, atol=0.005)
nh.check_close("the layer-norm network's Θ(x, x) and Θ(x′, x′) (1)",
               course.ln_network(0.5).kernel(course.PAIR).ntk.diagonal(), [1.0, 1.0], atol=1e-4)
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
# Experiment: one network, dense → batch norm → ReLU → dense(1), width 1024. Keep the input $x_1$ fixed, put it in
# 200 batches of $B = 8$ whose 7 other members are drawn anew each time, and record $f(x_1)$; then the same with
# frozen statistics.

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
ax.set_ylabel("count")
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

# %% [markdown]
# The frozen line is not the centre of the histogram: $-1.41$ against a mean of $-1.16$ over the batches of 8.
# Frozen at initialization (mean 0, variance 1) is not defined as the average of the outputs with batch
# statistics, nor as their limit of large batches, and in general it equals neither: as $B \to \infty$ batch norm divides each unit by its mean and variance over the
# whole input distribution, here 0 and a variance near $\Sigma(x, x) = 1.96$ that differs from unit to unit, not
# by 0 and 1. Two batches of 2048 give $-1.23$ and $-1.21$, close to each other and far from $-1.41$.
#
# So the package gives batch norm with batch statistics no kernel: asking for one raises `nh.NoClosedForm`, with
# the two ways out. One is frozen statistics. The other is to *estimate* the kernels of one batch from an ensemble
# of finite networks, with error bars (here 16 networks of width 256). The cell does both on the same batch,
# $x_1$ and 5 batch mates, all with $x \cdot x/d = 1$, and then puts $x_1$ in a second batch with other mates.

# %%
bn, frozen_bn = course.bn_network(), course.bn_network(frozen=True)
try:
    bn.kernel(course.X1)
except nh.NoClosedForm:
    print(nh._("bn.kernel(...) raises nh.NoClosedForm: batch statistics have no closed form"))
batches = [course.batch_with_x1(6, resample) for resample in (0, 1)]
exact_frozen = frozen_bn.kernel(batches[0]).ntk
estimates = [nh.monte_carlo_kernel(bn, batch, width=256, n_networks=16) for batch in batches]
frozen_estimate = nh.monte_carlo_kernel(frozen_bn, batches[0], width=256, n_networks=16)
print(nh._("frozen, exact: Θ(x, x) = {values} for the 6 inputs of the batch").format(
    values=", ".join(f"{v:.3f}" for v in exact_frozen.diagonal())))
print(nh._("frozen, Monte Carlo: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f}" for v in frozen_estimate.ntk.diagonal())))
print(nh._("batch statistics, Monte Carlo: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f} ± {e:.2f}" for v, e in zip(estimates[0].ntk.diagonal(),
                                                         estimates[0].ntk_sem.diagonal()))))
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
gap = float(estimates[1].ntk[0, 0] - estimates[0].ntk[0, 0])
combined = float(estimates[0].ntk_sem[0, 0] ** 2 + estimates[1].ntk_sem[0, 0] ** 2) ** 0.5
nh.check_between("batch statistics: Θ(x₁, x₁) in the two batches differs by more than 3 combined SE",
                 gap / combined, 3, np.inf)

# %% [markdown]
# Frozen, the six inputs have the same kernel diagonal, $\Theta(x, x) = 1.96$, because they have the same norm;
# the Monte Carlo estimate of the frozen network agrees with it within about two standard errors. With batch
# statistics the diagonal is lower, and it differs from input to input of the same norm (1.04 to 1.32, error bars
# about 0.05):
# how large an input's kernel is depends on where it sits among its batch mates. Put $x_1$ in another batch and
# its $\Theta(x_1, x_1)$ moves from 1.16 to 1.39, by 3.5 times the combined error bar. That is the batch coupling,
# seen in the kernel.
#
# ## Explore: width and batch size
#
# The explorer repeats the experiment for one network at the width and batch size you choose: the histogram of
# $f(x_1)$ over 200 batches with batch statistics, and the one value with frozen statistics (the vertical line).
# The title gives the spread (standard deviation) over the batches, and its second line the mean, the spread and
# the frozen value. Each width is a different random network (seed 0).

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_batch, width=nh.widgets.width_slider(256, options=(64, 256, 1024, 4096)),
                       batch_size=nh.widgets.int_slider(nh._("batch size"), 8, min=2, max=64))

# %% [markdown]
# **Predict, then check.**
#
# 1. Keep the batch size at 8 and move the width from 64 to 4096: 64 times as many units. By what factor will the
#    spread of $f(x_1)$ change, and will it fall at every step? (Fluctuations that shrink like $m^{-1/2}$, as layer
#    norm's statistics do, would fall by a factor 8.)
#
# <details><summary>Answer</summary>
#
# By a factor 0.79, not 1/8: 0.226, 0.196, 0.204 and 0.179 at widths 64, 256, 1024 and 4096, and not at every
# step (it rises from 256 to 1024). Each unit's statistics average over the 8 inputs of the batch, whatever the
# width; more units give more such statistics, not better ones. What changes from width to width is mostly the
# random network: for seeds 1–3 the spreads range from 0.17 to 0.43, and none shrinks like $m^{-1/2}$ (the largest
# fall from width 64 to 4096 is a factor 1.8, not 8).
#
# </details>
#
# 2. Back at width 256, move the batch size from 8 to 32. By how much will the spread change?
#
# <details><summary>Answer</summary>
#
# It falls from 0.196 to 0.088, to 0.45 of its value. The batch statistics are averages over $B$ inputs, so their
# fluctuations, and with them those of $f(x_1)$, fall roughly like $B^{-1/2}$: a factor $1/2$ for 4 times the
# batch. Only $B \to \infty$ removes the coupling; then batch norm divides by the statistics of the whole input
# distribution, fixed numbers again, but not the frozen 0 and 1 of initialization (the histogram section: $-1.22$
# for batches of 2048 against the frozen $-1.41$).
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
# is the largest yet: 0.281, against 0.196 at batch size 8.
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
# is $0.949$ at $a = 1/4$ and $0.994$ at $a = 4$ (the inputs of the lesson).
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
# computes nothing, and its NTK is 0. (This is why deep-learning libraries refuse a batch of one in training
# mode.) The $\epsilon$ keeps it finite; without it the map would be $0/0$.
#
# </details>
#
# 5. What does frozen batch norm at initialization (mean 0, variance 1) do to the kernels, and why can it have a
#    kernel when batch norm with batch statistics cannot?
#
# <details><summary>Answer</summary>
#
# It divides $\Sigma$ and $\Theta$ by $1 + \epsilon$: it is the fixed map $z \mapsto z/\sqrt{1 + \epsilon}$, applied
# to each input on its own. Its output for $x$ depends on $x$ and the weights only, so a kernel of a pair of
# inputs exists. With batch statistics the output depends on the other inputs of the batch too.
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
# - A bias (or $\tanh$) before layer norm lets the input's scale back in: $\Theta(ax,x')/\Theta(x,x') = -2.66$, 1,
#   $1.55$ at $a = 1/4$, 1, 4 in this lesson's example. In such a serial network, biases after layer norm do not.
# - Batch norm with batch statistics is smooth but couples the batch: an input's output and its kernel move with
#   its batch mates (for batches of 8 the spread of $f(x_1)$ is about 0.2 for this network, 0.17–0.43 for three
#   other seeds, and in none does it shrink like $m^{-1/2}$ from width 64 to 4096), so there is no kernel of a
#   pair of inputs; its kernels can be estimated by Monte Carlo, one batch at a time.
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
