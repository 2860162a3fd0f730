# %% [markdown]
# # 01 · The neural tangent kernel: a wide network learns like its linearization
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/01_ntk_basics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F01_ntk_basics.ipynb)
#
# *Overview text §1–3 and §9.* This course accompanies chapter 4 of a Chinese textbook and an NTK overview text;
# headings such as "(overview §2)" name the section a cell covers. You do not need either text: everything is
# explained here, and the last section is only for readers of those texts.
#
# **You will learn**
# - to read a network near its random initialization as a **linear model in its parameters**, whose kernel is
#   the neural tangent kernel (NTK);
# - to predict with the NTK how one gradient step on one input moves the output on every input;
# - to compute the NTK of a PyTorch model (in eval mode) in ten lines of `torch.func`;
# - why the kernel stays fixed while a wide network trains (lazy weights), and under which conditions;
# - what a wide network converges to: its random starting function plus kernel regression on the residuals.
#
# **Prerequisites:** backpropagation, gradient descent, kernel regression and Gaussian processes at the level
# of a first ML course; lesson 00 (notation: width $m$, the NTK parameterization).

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
import torch
from torch.func import functional_call, jacrev, vmap

import ntk_helpers as nh
from ntk_helpers.course import linearization

nh.plotting.use_style()

# %% [markdown]
# ## The idea in one picture
#
# Near its random initialization $\theta_0$, a wide network behaves like its first-order Taylor expansion in
# the parameters: a **linear model** whose features are the gradients $\nabla_\theta f(x;\theta_0)$. The
# kernel of those features is the NTK, $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$, and it says
# how much a gradient step on one input $x_i$ moves the output on any other input $x$.
#
# Left: take one input $x_i$ and the gradient $g = \nabla_\theta f(x_i;\theta_0)$ of the output there, and move
# the parameters along a straight line, to $\theta_0 + s\,g/\lvert g\rvert^2$. The linear model's output changes
# by exactly $g\cdot s\,g/\lvert g\rvert^2 = s$: its graph is the diagonal, the *tangent* (hence the name). The
# curves are the real change of $f(x_i)$ for a narrow and a wide one-hidden-layer ReLU network.
# Right: the NTK $\Theta(x, x_i)$ of the wide network, for inputs $x$ around a circle.

# %%
angles, x_circle = nh.circle(64)                 # 64 inputs on a circle in R², |x|² = 2
degrees = np.degrees(angles.numpy())
i = 16                                           # the input x_i at 90°
relu_net = nh.mlp(1, "relu", sigma_b=0.1)        # one hidden ReLU layer, NTK parameterization
shifts = np.linspace(-6, 6, 49)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
for width in (16, 4096):
    path = linearization.gradient_path(relu_net.network(2, width=width, seed=0), x_circle[i:i + 1], shifts)
    left.plot(shifts, path, lw=3, alpha=0.8, label=nh._("network, width {width}").format(width=width))
left.plot(shifts, shifts, "k--", lw=1.5, label=nh._("linear model (tangent)"))
left.set_xlabel(nh._(r"$s$: parameters moved to $\theta_0 + s\,g/|g|^2$"))
left.set_ylabel(nh._("change of f(x_i)"))
left.set_title(nh._("A wide network stays on its tangent"))
left.legend()
column = nh.empirical_ntk(relu_net.network(2, width=4096, seed=0), x_circle, x_circle[i:i + 1])[:, 0]
parts = relu_net.kernel(x_circle, x_circle[i:i + 1])                # infinite width, one hidden layer
right.plot(degrees, column.numpy(), lw=2.5, label=nh._("Θ(x, x_i), width 4096"))
right.axvline(90, color="gray", ls=":", lw=1)
right.axhline(0, color="gray", lw=0.8)
right.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
right.set_ylabel(r"$\Theta(x, x_i)$")
right.set_title(nh._("A step on x_i moves f most near x_i, and lowers it a little beyond 120°"), fontsize=10)
right.legend(fontsize=8, loc="upper right")
plt.show()

# %% [markdown]
# On the right the kernel is largest at $x_i$ and its neighbours, and slightly **negative** (down to about
# $-0.3$, against $3.9$ at $x_i$) for inputs more than about $115°$ away ($118°$ at infinite width): a step
# that raises $f(x_i)$ lowers $f$ a little there. Opposite $x_i$ (at 270°) it climbs back towards 0, to
# $-0.09$. §4 explains this shape from the two layers of the network.

# %% tags=["check"]
away = np.minimum(np.abs(degrees - 90), 360 - np.abs(degrees - 90))  # angle between x and x_i
nh.check_between("idea picture: the smallest Θ(x, x_i) of the width-4096 network (quoted -0.3)",
                 column.min(), -0.35, -0.25)
nh.check_between("idea picture: Θ(x_i, x_i) of the width-4096 network (quoted 3.9)", column[i], 3.85, 3.95)
nh.check_between("width 4096: the smallest angle to x_i at which Θ(x, x_i) < 0 (quoted about 115°)",
                 away[(column < 0).numpy()].min(), 110, 118)
nh.check_between("infinite width: the smallest angle to x_i at which Θ(x, x_i) < 0 (quoted 118°)",
                 away[(parts.ntk[:, 0] < 0).numpy()].min(), 117, 119)
nh.check_that("infinite width: Θ(x, x_i) < 0 at every angle from 120° to 180° away from x_i",
              (parts.ntk[:, 0][torch.from_numpy(away >= 120)] < 0).all(),
              measured=float(parts.ntk[:, 0][torch.from_numpy(away >= 120)].max()), expected="< 0")
nh.check_close("idea picture: Θ(x, x_i) opposite x_i (quoted -0.09)", column[48], -0.09, atol=0.005)
nh.check_that("idea picture: Θ climbs back between its minimum and the input opposite x_i",
              column[48] > column.min() + 0.15, measured=float(column[48] - column.min()), expected="> 0.15")

# %% [markdown]
# ## 1. The network as a linear model (overview §2)
#
# Write $f(x;\theta)$ for a network with parameters $\theta\in\mathbb R^P$ and one output. Its first-order
# Taylor expansion around the initialization $\theta_0$ is
#
# $$f^\text{lin}(x;\theta) \;=\; f(x;\theta_0) + \nabla_\theta f(x;\theta_0)\cdot(\theta-\theta_0).$$
#
# It is linear in $\theta$, with a fixed feature map $\phi(x) = \nabla_\theta f(x;\theta_0)\in\mathbb R^P$
# and a fixed offset $f_0(x) = f(x;\theta_0)$. The kernel of these features is the **neural tangent kernel**
# of the network at its initialization,
#
# $$\hat\Theta_0(x, x') \;=\; \phi(x)\cdot\phi(x')
#   \;=\; \sum_{p=1}^{P} \frac{\partial f(x;\theta_0)}{\partial\theta_p}\,
#   \frac{\partial f(x';\theta_0)}{\partial\theta_p}.$$
#
# **Three kernels, three names.** The hat marks the kernel of one network with its random weights:
# $\hat\Theta_0$ at the initialization $\theta_0$, and $\hat\Theta_t$ with the gradients at $\theta_t$, after
# $t$ steps of training. $\Theta_\infty$, without a hat, is the deterministic limit of $\hat\Theta_0$ as the
# width grows (§5). For the linear model $f^\text{lin}$ the kernel is $\hat\Theta_0$ at every $t$.

# %% [markdown]
# **How training moves the outputs.** Train on $n$ inputs $x_1,\dots,x_n$ with the squared loss
# $\mathcal L = \frac1{2n}\sum_{i=1}^n (f(x_i)-y_i)^2$. Its gradient is
# $\nabla_\theta\mathcal L = \frac1n\sum_i \nabla_\theta f(x_i)\,r_i$, with residuals $r_i = f(x_i)-y_i$. Under
# gradient flow $\dot\theta = -\eta\,\nabla_\theta \mathcal L$ the chain rule gives the output's velocity on any
# input $x$:
#
# $$\frac{d}{dt} f(x) \;=\; \nabla_\theta f(x)\cdot\dot\theta
#   \;=\; -\frac{\eta}{n}\sum_{i} \nabla_\theta f(x)\cdot\nabla_\theta f(x_i)\; r_i
#   \;=\; -\frac{\eta}{n}\sum_i \hat\Theta_t(x, x_i)\, r_i .$$
#
# The parameters have disappeared: the outputs move through the kernel. In particular, **one gradient step of
# size $\eta$ on one input $x_i$** (loss $\frac12 r_i^2$) changes the output on every input by
#
# $$\Delta f(x) \;\approx\; -\eta\,\hat\Theta_0(x, x_i)\,r_i ,$$
#
# exactly for $f^\text{lin}$, approximately for the network. §3 tests this prediction.

# %% [markdown]
# **Where the linear model's training goes.** For $f^\text{lin}$ the kernel stays $\hat\Theta_0$, and the
# dynamics can be solved. Let $J$ be the $n\times P$ Jacobian of the training inputs $X$ at $\theta_0$ and
# $\hat\Theta_0 = JJ^\top$ their $n\times n$ Gram matrix, and **assume $\hat\Theta_0$ is invertible** (it is for
# the inputs of this lesson; §8 shows when it is not). A gradient-descent step of size $\eta$ multiplies the
# residuals by $I - \eta\hat\Theta_0/n$, so after $t$ steps
#
# $$f^\text{lin}_t(X) \;=\; y + \Bigl(I - \tfrac{\eta}{n}\hat\Theta_0\Bigr)^{t}\bigl(f_0(X) - y\bigr)$$
#
# (under gradient flow, $e^{-\eta\hat\Theta_0 t/n}$ in place of the power).

# %% [markdown]
# **From the training inputs to any input.** Each step moves $\theta$ by $-\frac\eta n J^\top r$, a combination of
# the rows of $J$. So $\theta_t - \theta_0 = J^\top a$ for some $a\in\mathbb R^n$. On the training inputs this
# gives $f^\text{lin}_t(X) - f_0(X) = JJ^\top a = \hat\Theta_0 a$, so
# $a = \hat\Theta_0^{-1}(f^\text{lin}_t(X) - f_0(X))$; on any input, $f^\text{lin}_t(x) - f_0(x) = \phi(x)\cdot J^\top a = \hat\Theta_0(x,X)\,a$.
# For $\eta < 2n/\lambda_\max$ the residuals go to 0, and the end point is
#
# $$f_\infty(x) \;=\; f_0(x) \;+\; \hat\Theta_0(x, X)\,\hat\Theta_0^{-1}\bigl(y - f_0(X)\bigr).$$
#
# That is kernel regression without a ridge term (it interpolates the training data) fitted to the
# **residuals** $y - f_0$, plus the random start $f_0$. §6 puts a network next to this formula; lesson 07
# works out the dynamics.

# %% [markdown]
# ## 2. The NTK in ten lines of `torch.func`
#
# The definition is all we need: stack the per-input gradients into a Jacobian $J$ of shape $(n, P)$, then
# $\Theta = J J^\top$. `jacrev` differentiates a function of the parameters, `vmap` maps it over the inputs,
# and `functional_call` runs the model with the parameters we pass in. This works for an `nn.Module` with one
# output **in eval mode**: call `model.eval()` first. In training mode dropout draws random masks and batch
# normalization updates its running statistics, and the `torch.func` transforms refuse both (each raises an
# error): `vmap` rejects dropout's random masks, `jacrev` the in-place update of batch normalization's
# statistics.

# %%
def ntk(model, x1, x2):
    """The empirical NTK Θ(x1, x2) = J(x1) J(x2)ᵀ of a model with one output."""
    params = {name: p.detach() for name, p in model.named_parameters()}

    def f(p, x):                                           # one input -> one number
        return functional_call(model, p, (x.unsqueeze(0),)).squeeze()

    def jacobian(x):                                       # (n, P): one row of gradients per input
        rows = vmap(jacrev(f), in_dims=(None, 0))(params, x)           # {name: (n, *shape)}
        return torch.cat([row.flatten(1) for row in rows.values()], dim=1)

    return jacobian(x1) @ jacobian(x2).T

# %%
x = nh.sphere(16, d=4, seed=0)                             # 16 inputs in R⁴, |x|² = d
architecture = nh.mlp(3, "relu", sigma_w=math.sqrt(2), sigma_b=0.1)   # 3 hidden ReLU layers
model = architecture.network(4, width=512, seed=0).eval()    # eval mode (this network has no dropout anyway)
theta = ntk(model, x, x)                                   # (16, 16)
print(nh._("parameters: {count}").format(count=sum(p.numel() for p in model.parameters())))
print(theta[:4, :4].numpy().round(3))

# %% [markdown]
# `nh.empirical_ntk(model, x)` computes the same matrix faster and in bounded memory (for the package's own
# networks it never stores a Jacobian); the rest of the lessons use it. The check below compares the two.

# %% tags=["check"]
reference = nh.empirical_ntk(model, x)
# Two float64 computations of the same sums: they agree to rounding error, far below 1e-10 of the largest.
nh.check_close("ten-line NTK = nh.empirical_ntk", theta, reference, rtol=1e-10)
nh.check_close("the NTK Gram matrix is symmetric", theta, theta.T, rtol=1e-12)
eigenvalues = nh.eigenvalues(theta)
nh.check_that("the NTK Gram matrix is positive semi-definite", eigenvalues[-1] >= -1e-12 * eigenvalues[0],
              measured=float(eigenvalues[-1]), expected=">= -1e-12 × the largest eigenvalue")
nh.check_that("the 16 random inputs: the NTK Gram matrix is invertible",
              eigenvalues[-1] > 1e-6 * eigenvalues[0],
              measured=float(eigenvalues[-1] / eigenvalues[0]), expected="> 1e-6")
with torch.random.fork_rng():                                # leaves the global seed as it was
    torch.manual_seed(0)
    plain = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).double()
with_dropout = torch.nn.Sequential(plain[0], plain[1], torch.nn.Dropout(0.5), plain[2])
try:
    ntk(with_dropout.train(), x, x)
    refused = False
except RuntimeError:
    refused = True
nh.check_that("a model with dropout in training mode: vmap raises an error", refused, measured=refused,
              expected=True)
nh.check_close("the same model in eval mode: its NTK is that of the model without dropout",
               ntk(with_dropout.eval(), x, x), ntk(plain, x, x), rtol=1e-12)
with_batchnorm = torch.nn.Sequential(plain[0], torch.nn.BatchNorm1d(8).double(), plain[1], plain[2])
try:
    ntk(with_batchnorm.train(), x, x)
    refused_bn = False
except RuntimeError:
    refused_bn = True
nh.check_that("a model with batch normalization in training mode: jacrev raises an error", refused_bn,
              measured=refused_bn, expected=True)

# %% [markdown]
# ## 3. One gradient step, predicted by the kernel
#
# Now the central experiment. We ask one-hidden-layer ReLU networks of width 16, 256 and 4096 to raise their
# output at $x_i$ (the input at 90° on the circle) by one unit: one gradient step with $\eta = 1$ on the loss
# $\frac12(f(x_i) - y_i)^2$ with $y_i = f_0(x_i) + 1$, so $r_i = -1$. On each of the 64 inputs of the circle we
# compare the actual change $\Delta f(x)$ with the kernel's prediction $-\eta\,\hat\Theta_0(x,x_i)\,r_i$
# (each network's own NTK at initialization). "Off by" in the titles is their relative distance,
# $\lVert\Delta f - \text{prediction}\rVert / \lVert\text{prediction}\rVert$ with 2-norms over the 64 inputs,
# the measure of lesson 00; the rest of this lesson uses it too.

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharex=True, sharey=True)
for ax, width in zip(axes, (16, 256, 4096)):
    step = linearization.one_step(relu_net.network(2, width=width, seed=0), x_circle, i, lr=1.0)
    ax.plot(step.predicted, step.actual, "o", ms=4)
    top = step.predicted.max()
    ax.plot([0, top], [0, top], "k--", lw=1, label=nh._("actual = predicted"))
    ax.set_title(nh._("width {width}: off by {gap}").format(width=width, gap=linearization.percent(step.gap)))
    ax.set_xlabel(r"$-\eta\,\hat\Theta_0(x, x_i)\,r_i$")
axes[0].set_ylabel(nh._("actual change Δf(x)"))
axes[0].legend(loc="upper left")
fig.suptitle(nh._("One step on x_i: the wider the network, the closer it follows the kernel"))
plt.show()

# %% [markdown]
# Every input moves, most of all $x_i$ and its neighbours (the largest predicted change is
# $\hat\Theta_0(x_i,x_i)$, about 4: with $\eta = 1$ the step overshoots the requested unit), and the few inputs
# with a negative kernel move down a little. The kernel predicts which inputs move and in which direction, with
# one exception at width 16: an input predicted to move by $-0.075$ moves by $+0.009$. (At width 4096 one input
# has a prediction of $-0.00001$, practically zero, and moves by $+0.0001$.) Only in the width-16 network do the
# dots stray visibly from the dashed line.
#
# **Explain.** Why does the width-16 network miss the kernel's prediction when the wide one does not? (Look at
# the picture at the top.)
#
# <details><summary>Answer</summary>
#
# The prediction is first order: it uses the gradients at $\theta_0$, and the step changes those gradients. The
# step moves the parameters by $\eta\,\lvert r_i\rvert\,g$, which is the point $s = \hat\Theta_0(x_i, x_i)$ of the
# top-left picture: $s = 5.1$ for this width-16 network, $4.2$ and $3.9$ for the wider ones. There the width-16
# curve already lies well above its tangent, while the width-4096 curve is still on it. §4 measures why: the
# wider the network, the less each weight, and so each gradient, moves.
#
# </details>

# %% tags=["check"]
steps = {w: linearization.one_step(relu_net.network(2, width=w, seed=0), x_circle, i, lr=1.0)
         for w in (16, 256, 4096)}
gaps = [steps[w].gap for w in (16, 256, 4096)]
nh.check_that("one step: the gap to the kernel's prediction shrinks with the width",
              gaps[0] > gaps[1] > gaps[2],
              measured=str(np.round(gaps, 4)), expected="decreasing")
for w, quoted in ((16, 5.1), (256, 4.2), (4096, 3.9)):          # the Θ(x_i, x_i) the answer quotes
    nh.check_close("one step: Θ(x_i, x_i), as quoted", steps[w].predicted[i], quoted, atol=0.05)
for w in (16, 4096):           # the step is the point s = Θ(x_i, x_i) of the top-left picture, exactly
    on_path = linearization.gradient_path(relu_net.network(2, width=w, seed=0), x_circle[i:i + 1],
                                          [steps[w].predicted[i]])
    nh.check_close("one step: the change at x_i = the top-left curve at s = Θ(x_i, x_i)", steps[w].actual[i],
                   on_path[0], rtol=1e-9)
wrong_way = {w: np.sign(steps[w].actual) != np.sign(steps[w].predicted) for w in (16, 256, 4096)}
nh.check_that("one step: inputs moving against the kernel's sign at widths 16, 256, 4096 (quoted 1, 0, 1)",
              [int(wrong_way[w].sum()) for w in (16, 256, 4096)] == [1, 0, 1],
              measured=str([int(wrong_way[w].sum()) for w in (16, 256, 4096)]), expected="[1, 0, 1]")
nh.check_close("one step, width 16: that input's predicted and actual change, as quoted",
               [steps[16].predicted[wrong_way[16]][0], steps[16].actual[wrong_way[16]][0]], [-0.075, 0.009],
               atol=0.0005)
nh.check_close("one step, width 4096: that input's predicted and actual change, as quoted",
               [steps[4096].predicted[wrong_way[4096]][0], steps[4096].actual[wrong_way[4096]][0]],
               [-0.00001, 0.0001], atol=0.00001)
nh.check_between("top-left picture: width 16 at s = Θ(x_i, x_i) lies above its tangent by",
                 steps[16].actual[i] - steps[16].predicted[i], 0.5, 1.5)

# %% [markdown]
# ### Explore: the size of the step
#
# Pick a width, a step size $\eta$, an activation and the seed of the random initialization. The dots are the
# actual change $\Delta f(x)$ around the circle, the line the kernel's prediction; the title says whether they
# agree and how far apart they are.

# %% tags=["nbval-ignore-output"]
def draw_one_step(width, step_size, activation, seed):
    net = nh.mlp(1, activation, sigma_b=0.1).network(2, width=width, seed=seed)
    step = linearization.one_step(net, x_circle, i, lr=step_size)
    fig, ax = plt.subplots(figsize=(7.6, 4.0))
    ax.plot(degrees, step.predicted, "k-", lw=1.5, label=r"$-\eta\,\hat\Theta_0(x, x_i)\,r_i$")
    ax.plot(degrees, step.actual, "o", ms=4, label=nh._("actual change Δf(x)"))
    ax.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
    ax.set_ylabel(nh._("change of f(x)"))
    ax.set_title(linearization.one_step_title(step, width))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))


nh.widgets.live_figure(
    draw_one_step,
    width=nh.widgets.width_slider(256, options=(16, 64, 256, 1024, 4096, 16384)),
    step_size=nh.widgets.sigma_slider(nh._("step size η"), 1.0, min=0.25, max=2.0, step=0.25),
    activation=nh.widgets.activation_dropdown("relu"),
    seed=nh.widgets.int_slider(nh._("seed"), 0, min=0, max=7),
)

# %% [markdown]
# **Predict, then check.**
#
# 1. Width 256, erf: set the step size to 0.25, then 1, then 2. The prediction grows in proportion to $\eta$.
#    Does the gap? Then ReLU.
#
# <details><summary>Answer</summary>
#
# Erf: yes, 0.49 %, 2.1 %, 4.8 %. The error of a first-order Taylor expansion is of second order, $O(\eta^2)$,
# so relative to the $O(\eta)$ change it is $O(\eta)$. Small steps follow the kernel better; gradient flow
# (infinitesimal steps) is the cleanest case. ReLU does not follow this rule: 1.0 %, 2.0 %, 2.4 %, already
# twice erf's gap at the smallest step and growing more slowly than $\eta$. A ReLU bends only at 0, so its
# error comes mostly from the hidden units whose input crosses 0 during the step (at $\eta = 0.01$ no input
# crosses, and the gap is only 0.0015 %). A test: take the same step, but keep every unit's on/off pattern
# of $\theta_0$ (`linearization.frozen_pattern_step`). The gap at $\eta$ = 0.25, 1, 2 drops from 1.0, 2.0,
# 2.4 % to 0.04, 0.15, 0.31 %, and what is left grows in proportion to $\eta$, like erf's. Why the crossing part
# grows more slowly than $\eta$ is not explained here.
#
# </details>
#
# 2. Two rates are candidates for how the gap falls with the width $m$. **$m^{-1/2}$:** each weight moves by
#    $O(1/\sqrt m)$ (§4), so the gradients change by that much. **$1/m$:** every unit's share of the error
#    carries its random readout weight $v_j$, so the shares have random signs and largely cancel in the sum. For
#    16 times the width, that is 4 or 16 times smaller. Predict which one erf ($\eta = 1$) follows, then set
#    width 256 and 4096 at the seeds 0, 1 and 2. Then ReLU.
#
# <details><summary>Answer</summary>
#
# Erf follows $1/m$, but only on average. At seed 0 it falls 37 times (2.1 % → 0.057 %), at seeds 1 and 2 only
# 3.8 and 2.6 times: over the seeds 0–7 the ratio ranges from 2.6 to 42, and the mean gap shrinks 14 times, close
# to the 16 of $1/m$. ReLU: 6 times at seed 0 (2.0 % → 0.31 %), 5.4 to 15 over the seeds, 8 times for the
# mean, between the two rates. Its error comes mostly from the units whose input crosses 0 (answer 1), which
# the cancellation argument does not cover. A narrow network's error depends on its random start; only an
# average over seeds shows the rate.
#
# </details>
#
# 3. Width 256, erf, seed 0: look at the input opposite to $x_i$ (270°). What does the step do there? Then
#    ReLU.
#
# <details><summary>Answer</summary>
#
# With erf, $f$ at 270° goes **down** by almost as much as $f(x_i)$ goes up: the kernel there is $-0.97$ times
# $\hat\Theta_0(x_i, x_i)$. Erf is odd, so with its small bias the network is nearly odd, $f(-x)\approx -f(x)$,
# and raising $f(x_i)$ lowers $f(-x_i)$. With ReLU the opposite input barely moves: its kernel value is about
# $-2\,\%$ of $\hat\Theta_0(x_i, x_i)$, as in the idea picture ($-0.09$ against $3.9$). The kernel, not the
# step, decides which inputs move together.
#
# </details>

# %% tags=["check"]
# Every number the answers quote, at the explorer's setting (seed 0 unless said): measured / quoted is 1 to
# within the rounding of the quoted digits. The labels name the answers, not their numbers.
def explorer_step(activation, width, lr=1.0, seed=0):
    net = nh.mlp(1, activation, sigma_b=0.1).network(2, width=width, seed=seed)
    return linearization.one_step(net, x_circle, i, lr=lr)


gaps_by_lr = {activation: np.array([explorer_step(activation, 256, lr).gap for lr in (0.25, 1.0, 2.0)])
              for activation in ("erf", "relu")}
nh.check_close("answer 1: erf, width 256, the gap at η = 0.25, 1, 2 / the quoted one", gaps_by_lr["erf"]
               / [0.0049, 0.021, 0.048], np.ones(3), atol=0.05)
nh.check_close("answer 1: ReLU, width 256, the gap at η = 0.25, 1, 2 / the quoted one", gaps_by_lr["relu"]
               / [0.010, 0.020, 0.024], np.ones(3), atol=0.05)
nh.check_between("answer 1: ReLU / erf gap at η = 0.25 (about twice)",
                 gaps_by_lr["relu"][0] / gaps_by_lr["erf"][0], 1.8, 2.4)
nh.check_that("answer 1: ReLU's gap grows more slowly than η (from η = 1 to 2: less than twice)",
              gaps_by_lr["relu"][2] < 2 * gaps_by_lr["relu"][1],
              measured=float(gaps_by_lr["relu"][2] / gaps_by_lr["relu"][1]), expected="< 2")
nh.check_close("answer 1: ReLU, width 256, the gap at η = 0.01 / the quoted one",
               explorer_step("relu", 256, lr=0.01).gap / 0.000015, 1, atol=0.05)


def crossings(lr, width=256, seed=0):
    """How many (hidden unit, input) pairs of the ReLU explorer network change the sign of their input."""
    net = nh.mlp(1, "relu", sigma_b=0.1).network(2, width=width, seed=seed)
    with torch.no_grad():
        before = net[0](x_circle) > 0
    gradient = torch.autograd.grad(net(x_circle[i:i + 1]).reshape(()), list(net.parameters()))
    with torch.no_grad():                                    # the explorer's step: residual -1, size lr
        for p, g in zip(net.parameters(), gradient):
            p += lr * g
        return int(((net[0](x_circle) > 0) != before).sum())


nh.check_that("answer 1: ReLU, width 256, at η = 0.01 no hidden unit's input crosses 0",
              crossings(0.01) == 0, measured=crossings(0.01), expected=0)
frozen_gaps = np.array([linearization.frozen_pattern_step(nh.mlp(1, "relu", sigma_b=0.1).network(
    2, width=256, seed=0), x_circle, i, lr=lr).gap for lr in (0.25, 1.0, 2.0)])
nh.check_close("answer 1: ReLU, width 256, frozen on/off pattern, the gap at η = 0.25, 1, 2 / the quoted one",
               frozen_gaps / [0.0004, 0.0015, 0.0031], np.ones(3), atol=0.05)
nh.check_close("answer 1: frozen pattern, the gap at η = 1 and 2 / at η = 0.25 (in proportion to η)",
               frozen_gaps[1:] / frozen_gaps[0], [4, 8], rtol=1e-6)
seed_gaps = {a: np.array([[explorer_step(a, w, seed=s).gap for s in range(8)] for w in (256, 4096)])
             for a in ("relu", "erf")}
ratios = {a: g[0] / g[1] for a, g in seed_gaps.items()}
nh.check_close("answer 2: ReLU, seed 0, gap at widths 256 and 4096 / the quoted one",
               seed_gaps["relu"][:, 0] / [0.020, 0.0031], np.ones(2), atol=0.05)
nh.check_close("answer 2: erf, seed 0, gap at widths 256 and 4096 / the quoted one",
               seed_gaps["erf"][:, 0] / [0.021, 0.00057], np.ones(2), atol=0.05)
nh.check_close("answer 2: erf, gap at width 256 / gap at 4096, seeds 0, 1, 2 / the quoted ratios",
               ratios["erf"][:3] / [37, 3.8, 2.6], np.ones(3), atol=0.03)
nh.check_close("answer 2: ReLU, gap at width 256 / gap at 4096, seed 0 (the quoted ratio)",
               ratios["relu"][0] / 6, 1, atol=0.08)
nh.check_close("answer 2: erf, smallest and largest ratio over seeds 0-7 / the quoted ones",
               [ratios["erf"].min() / 2.6, ratios["erf"].max() / 42], np.ones(2), atol=0.03)
nh.check_close("answer 2: ReLU, smallest and largest ratio over seeds 0-7 / the quoted ones",
               [ratios["relu"].min() / 5.4, ratios["relu"].max() / 15], np.ones(2), atol=0.03)
nh.check_close("answer 2: erf, mean gap over seeds 0-7 at width 256 / at 4096 (the quoted ratio)",
               seed_gaps["erf"][0].mean() / seed_gaps["erf"][1].mean() / 14, 1, atol=0.04)
nh.check_close("answer 2: ReLU, mean gap over seeds 0-7 at width 256 / at 4096 (the quoted ratio)",
               seed_gaps["relu"][0].mean() / seed_gaps["relu"][1].mean() / 8, 1, atol=0.07)
opposite = 48                                                        # the input at 270°
erf_step = explorer_step("erf", 256)
nh.check_close("answer 3: erf, Θ(-x_i, x_i) / Θ(x_i, x_i), as quoted",
               erf_step.predicted[opposite] / erf_step.predicted[i], -0.97, atol=0.005)
relu_step = explorer_step("relu", 256)
relu_share = np.array([relu_step.predicted[opposite] / relu_step.predicted[i],      # width 256
                       float(column[opposite] / column[i]),                               # width 4096
                       float(parts.ntk[opposite, 0] / parts.ntk[i, 0])])                  # infinite width
nh.check_that("answer 3: ReLU, Θ(-x_i, x_i) / Θ(x_i, x_i) at widths 256, 4096 and infinite width, as quoted",
              ((relu_share > -0.03) & (relu_share < -0.012)).all(),
              measured=str(np.round(relu_share, 4)), expected="between -0.03 and -0.012")

# %% [markdown]
# ## 4. Why the kernel stays fixed: lazy weights (overview §3.3)
#
# Look at the size of each piece in the one-hidden-layer network of the NTK parameterization,
# $f(x) = \frac{\sigma_w}{\sqrt m}\sum_{j=1}^m v_j\,\phi(z_j)$ with pre-activations
# $z_j = \frac{\sigma_w}{\sqrt d}\,w_j\cdot x + \sigma_b b_j$ and all weights drawn from $\mathcal N(0,1)$.
#
# - **Each weight gets a small gradient.** $\partial f/\partial v_j = \sigma_w\phi(z_j)/\sqrt m$ and
#   $\partial f/\partial w_j$ carry the factor $1/\sqrt m$. A gradient step moves each weight by
#   $O(\eta/\sqrt m)$, while the weight itself is of order 1.
# - **The function still moves by $O(1)$.** To first order the change is
#   $\Delta f = \nabla_\theta f\cdot\Delta\theta = -\eta\,r\,\lvert\nabla_\theta f\rvert^2 = -\eta\,r\,\Theta(x,x)$:
#   about $m$ tiny pushes, all in the direction that lowers the loss, add up to a change of order 1.
# - **So the features barely change.** The features $\partial f/\partial\theta_p$ depend on the weights through
#   $\phi(z_j)$ and $\phi'(z_j)$, and each $z_j$ moved by $O(1/\sqrt m)$. The kernel, a sum of products of the
#   features, moves by at most $O(1/\sqrt m)$ relative to its size (Lee et al. 2019 prove this bound for smooth
#   activations).
#
# As $m\to\infty$ the weights and the kernel freeze while the function learns: **lazy training** (Chizat,
# Oyallon & Bach 2019). In deeper networks the $m\times m$ hidden weight matrices move even less per entry,
# $O(1/m)$ (lesson 05b).

# %% [markdown]
# **The shape of the idea picture, layer by layer.** With the gradients above (and readout bias
# $\sigma_b c$, first-layer biases $\sigma_b b_j$), the kernel is a sum of two parts:
#
# $$\hat\Theta_0(x,x') =
#   \underbrace{\frac{\sigma_w^2}{m}\sum_j \phi(z_j)\phi(z_j') + \sigma_b^2}_{\text{readout part}}
#   \;+\; \underbrace{\frac{\sigma_w^2}{m}\sum_j v_j^2\,\phi'(z_j)\phi'(z_j')\,
#   \Bigl(\frac{\sigma_w^2\,x\cdot x'}{d} + \sigma_b^2\Bigr)}_{\text{first-layer part}},$$
#
# with $z_j = z_j(x)$, $z_j' = z_j(x')$. As $m\to\infty$ the averages over units become expectations. For ReLU
# the readout part is never negative (ReLU outputs are not); it is the covariance of the random output $f_0$ at
# the two inputs, the NNGP kernel $\Sigma$ (§5). In the first-layer part $\phi'(z_j)\phi'(z_j')$ is 1 for a
# unit active on both inputs and 0 otherwise, so that part is $\sigma_w^2\,x\cdot x'/d + \sigma_b^2$ (negative
# beyond about $90°$) weighted by the share of units active on both inputs. Below: the two parts at infinite
# width for the network of the idea picture ($\sigma_w = \sqrt 2$, $\sigma_b = 0.1$, $d = 2$).

# %%
readout_part, first_layer_part = parts.nngp[:, 0], parts.ntk[:, 0] - parts.nngp[:, 0]
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(degrees, parts.ntk[:, 0].numpy(), lw=2.5, label=nh._("Θ(x, x_i), infinite width"))
ax.plot(degrees, readout_part.numpy(), lw=1.5, label=nh._("readout part (infinite width)"))
ax.plot(degrees, first_layer_part.numpy(), lw=1.5, label=nh._("first-layer part (infinite width)"))
ax.axvline(90, color="gray", ls=":", lw=1)
ax.axhline(0, color="gray", lw=0.8)
ax.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
ax.set_ylabel(r"$\Theta(x, x_i)$")
ax.set_title(nh._("Beyond 120° the first layer's negative part outweighs the readout's"), fontsize=10)
ax.legend(fontsize=8, loc="upper right")
plt.show()

# %% [markdown]
# From about $120°$ on, the negative first-layer part wins, and $\Theta$ dips below 0. Opposite $x_i$ (at 270°)
# almost no unit is active on both inputs (none without the bias), so the negative part shrinks to a quarter of
# its extreme and $\Theta$ climbs back towards 0.

# %% tags=["check"]
nh.check_that("infinite width: the readout part of Θ(x, x_i) is >= 0 at every angle",
              (readout_part >= 0).all(), measured=float(readout_part.min()), expected=">= 0")
nh.check_that("infinite width: the first-layer part is negative wherever x is more than 90° from x_i",
              (first_layer_part[torch.from_numpy(away > 90)] < 0).all(),
              measured=float(first_layer_part[torch.from_numpy(away > 90)].max()), expected="< 0")
wide_net = relu_net.network(2, width=4096, seed=0)
with torch.no_grad():
    hidden = wide_net[0](x_circle)                                   # pre-activations, (64, 4096)
both = ((hidden > 0).double() @ (hidden[i] > 0).double()) / 4096     # share active on x and x_i
# The formula's first-layer part with the width-4096 network's shares (v_j² averages to 1): near the limit.
# The shares fluctuate by about 1/√4096, so this tests the x·x_i term; the σ_b² term (at most 0.02) is below
# its resolution.
from_shares = 2.0 * both * (2.0 * (x_circle @ x_circle[i]) / 2 + 0.01)
nh.check_close("width-4096 shares in the formula vs the first-layer part at infinite width", from_shares,
               first_layer_part, rtol=0.05)
nh.check_between("width 4096: share of hidden units active on both x_i and the input opposite it",
                 float(both[48]), 0, 0.05)
nh.check_between("infinite width: first-layer part opposite x_i / its most negative value (a quarter)",
                 float(first_layer_part[48] / first_layer_part.min()), 0.2, 0.3)

# %% [markdown]
# The measurement: networks of width 64 to 4096 (two seeds each) are asked to change their outputs on 7 inputs of
# the circle by the same function, $\sin 2\alpha$ at angle $\alpha$ (targets $y = f_0 + \sin 2\alpha$, so every
# network has the same distance to travel), and trained for 100 steps of gradient descent with $\eta = 1$. Then
# we measure, relative to where they started: how far the weights moved ($W$ is all weight matrices taken
# together, one Frobenius norm, biases left out), how far the NTK moved (its $7\times 7$ Gram matrix on the
# training inputs), and what share of the requested change the function made on those inputs.

# %%
lazy_architecture = nh.mlp(1, "relu", sigma_b=0.1)          # the question below swaps in "erf"
angles_7, x_7 = nh.circle(7)                                # 7 equally spaced inputs (no opposite pairs)
lazy = linearization.lazy_sweep(lazy_architecture, x_7, torch.sin(2 * angles_7), widths=[64, 256, 1024, 4096],
                                lr=1.0, steps=100, seeds=2)
fig, ax = plt.subplots()
nh.plotting.loglog_fit(ax, lazy.widths, lazy.function_change.mean(1),
                       label=nh._("function: |f_T − f_0| / |y − f_0|"))
nh.plotting.loglog_fit(ax, lazy.widths, lazy.weight_change.mean(1),
                       label=nh._("weights: |W_T − W_0| / |W_0|"))
nh.plotting.loglog_fit(ax, lazy.widths, lazy.kernel_change.mean(1), label=nh._("NTK: |Θ_T − Θ_0| / |Θ_0|"))
nh.plotting.width_ticks(ax, lazy.widths)
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative change during training"))
ax.set_title(nh._("Wider: the weights and the kernel move less, the function just as much"))
ax.legend(loc="lower left")
plt.show()

# %% [markdown]
# Every ReLU network made the full change in the 100 steps (the top line is flat at 1). The weights moved less
# the wider the network, with slope $-1/2$ in $\log m$: four times the width, half the movement. The NTK moved
# even less, with slope $-0.70$: steeper than the $-1/2$ of Lee et al.'s bound (proved for smooth activations),
# which is only an upper bound.
#
# **Predict, then check.** Two slopes are candidates for the NTK. **$-1/2$**, Lee et al.'s bound: the weights
# move by $O(1/\sqrt m)$, and so could the features. **$-1$**: the first-order change of each unit's
# contribution to the kernel carries the unit's random readout weight $v_j$, so these changes have random signs
# and cancel in the sum over units (as in question 2 of the first explorer). In the cell above, replace `"relu"`
# by `"erf"` and re-run it. Which slope does erf come near? (Set it back to `"relu"` afterwards.)
#
# <details><summary>Answer</summary>
#
# Near $-1$: $-0.88$, as Dyer & Gur-Ari (2020) conjecture for smooth activations (proved by Huang & Yau 2020):
# during training the NTK moves only by $O(1/m)$. ReLU, whose derivative jumps at 0, falls in between at these
# widths (with the seeds 2 and 3 instead of 0 and 1: $-0.89$ for erf, $-0.75$ for ReLU).
# The weights move like $m^{-1/2}$ with either activation (erf: slope $-0.48$). The top line dips below 1: the
# erf networks learn this target more slowly and make 85–93 % of the change in the 100 steps, at every width.
# Dividing each kernel change by the share of the change made moves the slope only from $-0.88$ to $-0.89$.
#
# </details>

# %% tags=["check"]
# Slopes of the seed means over widths 64-4096; two seeds per width scatter the NTK slope by about ±0.1.
nh.check_close("ReLU: every network made the requested change", lazy.function_change, np.ones((4, 2)),
               atol=1e-3)
nh.check_between("slope of the weight change against the width", lazy.slope("weight_change"), -0.6, -0.4)
nh.check_between("slope of the NTK change against the width (steeper than -1/2)", lazy.slope("kernel_change"),
                 -1.0, -0.55)
nh.check_close("ReLU: slope of the NTK change, as quoted", lazy.slope("kernel_change"), -0.70, atol=0.005)
lazy_erf = linearization.lazy_sweep(nh.mlp(1, "erf", sigma_b=0.1), x_7, torch.sin(2 * angles_7),
                                    widths=[64, 256, 1024, 4096], lr=1.0, steps=100, seeds=2)
nh.check_close("the answer: erf, slope of the NTK change, as quoted", lazy_erf.slope("kernel_change"), -0.88,
               atol=0.005)
nh.check_close("the answer: erf, slope of the weight change, as quoted", lazy_erf.slope("weight_change"),
               -0.48, atol=0.005)
nh.check_between("the answer: erf, the smallest share of the change made in 100 steps, as quoted",
                 lazy_erf.function_change.min(), 0.845, 0.85)
nh.check_between("the answer: erf, the largest share of the change made in 100 steps, as quoted",
                 lazy_erf.function_change.max(), 0.925, 0.935)
per_change = nh.loglog_slope(lazy_erf.widths, (lazy_erf.kernel_change / lazy_erf.function_change).mean(1))
nh.check_close("the answer: erf, slope of the NTK change per share of the change made, as quoted", per_change,
               -0.89, atol=0.005)
other_seeds = {a: [linearization.lazy_run(nh.mlp(1, a, sigma_b=0.1).network(2, width=w, seed=s), x_7,
                                          torch.sin(2 * angles_7), lr=1.0, steps=100).kernel_change
                   for w in (64, 256, 1024, 4096) for s in (2, 3)] for a in ("erf", "relu")}
other_slopes = [nh.loglog_slope([64, 256, 1024, 4096], np.reshape(other_seeds[a], (4, 2)).mean(1))
                for a in ("erf", "relu")]
nh.check_close("the answer: seeds 2 and 3, slope of the NTK change, erf and ReLU, as quoted", other_slopes,
               [-0.89, -0.75], atol=0.005)

# %% [markdown]
# ## 5. What is proved, and when the NTK stays fixed (overview §3.1)
#
# §4 gave the argument and the measurement; here is what is proved. Let the width $m$ of the hidden layers
# grow, the depth fixed, in the NTK parameterization (lesson 00).
#
# 1. **At initialization** the output $f_0$ becomes a centred Gaussian process with the NNGP kernel $\Sigma$
#    (Neal 1996; Lee et al. 2018; Matthews et al. 2018), and the random kernel $\hat\Theta_0$ a **deterministic**
#    kernel $\Theta_\infty$ (Jacot et al. 2018, Thm 1), which lesson 02 computes layer by layer.
# 2. **During training**, up to any finite time $T$, the kernel $\hat\Theta_t$ stays at $\Theta_\infty$, and the
#    outputs follow kernel gradient descent with this fixed kernel (Jacot et al. 2018, Thm 2). The linearization
#    follows kernel gradient descent with $\hat\Theta_0\to\Theta_\infty$ from the same $f_0$, so the network and
#    its linearization agree in the limit.
# 3. **For the squared loss** the network stays close to its linearization, trained by the same gradient
#    descent: $\sup_{t\ge 0}\lvert f_t(x) - f^\text{lin}_t(x)\rvert = O(m^{-1/2})$, uniformly over all times
#    (Lee et al. 2019, Thm 2.1, with high probability over the initialization).
#
# Statements 2 and 3 are proved for **smooth** activations; the ReLU networks of §3, §4 and §6 need other proofs
# (next block).

# %% [markdown]
# <details><summary>The exact hypotheses, and what is proved for ReLU</summary>
#
# - Thm 1 needs a Lipschitz activation (ReLU is one). In Thm 1 and Thm 2 Jacot et al. let the widths grow one
#   layer after another; the same limit holds when all grow together (Yang 2019; Arora et al. 2019).
# - Thm 2 assumes an activation that is twice differentiable with a bounded second derivative, and a training
#   signal (the gradient of the loss with respect to the outputs) that stays bounded up to $T$: the squared
#   loss, and also cross-entropy.
# - Lee et al.'s Thm 2.1 assumes $\phi'$ Lipschitz, a positive definite Gram matrix $\Theta_\infty(X,X)$ of the
#   training inputs, and a learning rate below $2/(\lambda_\min+\lambda_\max)$ of that matrix (in their
#   normalization of the loss).
# - Both exclude ReLU, whose derivative jumps at 0. For ReLU networks, results of the same kind come from other
#   work, under other hypotheses: Du et al. (2019) for one hidden layer with a fixed readout layer (gradient
#   descent reaches zero training loss while the Gram matrix stays near its limit), Arora et al. (2019) for deep
#   networks with a small output scale (the trained network is close to kernel regression with $\Theta_\infty$
#   on $y$).
# - All are statements about fixed inputs (a finite set, or a bounded domain), not uniform over all of input
#   space.
#
# </details>

# %% [markdown]
# ### The conditions
#
# The argument of §4 used three things; drop one and the kernel can move.
#
# - **The NTK parameterization**: the $1/\sqrt m$ sits in the forward pass, so each weight's gradient is
#   $O(1/\sqrt m)$ and the kernel $O(1)$.
# - **A learning rate fixed as $m$ grows, and small enough** for gradient descent to be stable (for our loss,
#   below $2n/\lambda_\max$ of the Gram matrix; lesson 07).
# - **A finite training time, at a fixed depth.** For the squared loss Lee et al. (2019) extend the result to all
#   times; §7 measures what depth does at finite width.
#
# The **loss is not among the conditions**: the finite-time result holds for cross-entropy as for the squared
# loss, which only adds the closed form of §1. And width alone does not freeze the kernel: under the
# *maximal-update parameterization* μP, which scales the readout and the learning rates differently, a network
# of any width learns features and its kernel moves by $O(1)$ (Yang & Hu 2021; lesson 05b).

# %% [markdown]
# **The standard parameterization.** An MLP in the standard parameterization puts no $1/\sqrt m$ in front and
# draws its weights from $\mathcal N(0, 1/\text{fan-in})$ (LeCun's initialization, set explicitly below:
# PyTorch's default `nn.Linear` draws from $U(\pm 1/\sqrt{\text{fan-in}})$, a third of that variance). It
# computes the same random functions as the NTK parameterization, but its $m$ readout weights each have an
# $O(1)$ gradient, so its NTK grows like $m$. Our ten-line `ntk` works on it too (it has no dropout or batch
# normalization, so training and eval mode compute the same):

# %%
def standard_mlp(width, seed=0):
    """An MLP in the standard parameterization, weights N(0, 1/fan-in) (LeCun), no biases."""
    generator = torch.Generator().manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(4, width, bias=False, dtype=torch.float64), torch.nn.ReLU(),
                              torch.nn.Linear(width, 1, bias=False, dtype=torch.float64))
    with torch.no_grad():
        for layer in (net[0], net[2]):
            layer.weight.normal_(0, layer.in_features ** -0.5, generator=generator)
    return net


sp_widths = [64, 256, 1024, 4096]
sp_kernels = [ntk(standard_mlp(m), x, x) for m in sp_widths]
ntk_standard = [float(k.diagonal().mean()) for k in sp_kernels]
ntk_ntk_param = [float(ntk(nh.mlp(1, "relu", sigma_w=1.0).network(4, width=m), x, x).diagonal().mean())
                 for m in sp_widths]
for m, a, b in zip(sp_widths, ntk_standard, ntk_ntk_param):
    line = nh._("width {width:>4}: mean Θ(x, x) standard {standard:7.1f}, divided by m {scaled:.2f}; "
                "NTK parameterization {ntk:.2f}")
    print(line.format(width=m, standard=a, scaled=a / m, ntk=b))

# %% [markdown]
# The standard network's kernel grows in proportion to $m$; the NTK parameterization's stays put. Gradient
# descent is stable only for $\eta < 2n/\lambda_\max$, and $\lambda_\max$ grows like $m$ too: at a fixed
# learning rate a wide enough standard network diverges.
#
# A learning rate $\eta_0/m$ makes it train with the kernel $\Theta/m$, which is fixed in the limit too: the
# standard parameterization is then lazy as well. But $\Theta/m$ settles near 0.5, not at the NTK
# parameterization's 1.0: it is a **different kernel**. The first layer has fan-in $d = 4$, not $m$; its
# gradients add up to $O(1)$ while the readout layer's add up to $O(m)$, so after the division by $m$ the first
# layer (and any bias) contributes only $O(1/m)$ and barely learns, and $\Theta/m$ tends to the readout layer's
# part alone (Lee et al. 2019, in their appendix on the standard parameterization; Sohl-Dickstein et al. 2020).
# The $\Theta_\infty$ of the theorems, which lesson 02 computes, is the NTK parameterization's.

# %% tags=["check"]
# Log-log slopes over widths 64-4096 with one seed; ±0.1 covers the random fluctuation of the diagonal mean.
nh.check_close("standard parameterization: slope of the NTK against the width",
               nh.loglog_slope(sp_widths, ntk_standard), 1.0, atol=0.1)
nh.check_close("standard parameterization: slope of the NTK against the width (quoted 0.98)",
               nh.loglog_slope(sp_widths, ntk_standard), 0.98, atol=0.005)
nh.check_close("NTK parameterization: slope of the NTK against the width",
               nh.loglog_slope(sp_widths, ntk_ntk_param), 0.0, atol=0.1)
limit_sp = nh.mlp(1, "relu", sigma_w=1.0).kernel(x)                  # NTK parameterization, σ_w = 1, no bias
distance = lambda a, b: float((a - b).norm() / b.norm())
# One seed at width 4096: Θ/m is within 10 % of the readout part (measured 7 %), 40 % and more from Θ_∞.
nh.check_between("standard, width 4096: Θ/m vs the readout part of the NTK parameterization's limit",
                 distance(sp_kernels[-1] / sp_widths[-1], limit_sp.nngp), 0, 0.1)
nh.check_between("standard, width 4096: Θ/m vs the NTK parameterization's Θ_∞", 
                 distance(sp_kernels[-1] / sp_widths[-1], limit_sp.ntk), 0.35, 0.55)
nh.check_between("standard, width 4096: mean Θ(x, x)/m (quoted near 0.5)", ntk_standard[-1] / sp_widths[-1],
                 0.45, 0.55)
nh.check_close("NTK parameterization's Θ_∞(x, x) (quoted 1.0)", limit_sp.ntk.diagonal(), torch.ones(16),
               rtol=1e-9)
with torch.random.fork_rng():                                         # leaves the global seed as it was
    torch.manual_seed(0)
    default_layer = torch.nn.Linear(1000, 1000)
nh.check_close("PyTorch's default nn.Linear: weight variance × fan-in (a third)",
               float(default_layer.weight.detach().var()) * 1000, 1 / 3, rtol=0.01)

# %% [markdown]
# ## 6. Learning a function, seen through the kernel (overview §3.2)
#
# Now the whole of training. A one-hidden-layer ReLU network of width 4096 learns 7 points of a function on the
# circle, by gradient descent with $\eta = 1$. Next to it runs its linearization, with no training at all: the
# gradient-descent recursion of the linear model, solved in §1,
# $f^\text{lin}_t(X) = y + (I - \eta\hat\Theta_0/n)^t\,(f_0(X) - y)$, with the network's own $\hat\Theta_0$ and
# $f_0$, and carried to the other inputs by $\hat\Theta_0(x,X)\hat\Theta_0^{-1}$.
# Left: the two at a few steps (thick: the network; dashes of the same colour: the linearization). Middle: where
# training ends, after 400 steps. Right: the difference between the two end points of the middle panel.

# %%
width = 4096
angles_eval, x_eval = nh.circle(128)
targets = torch.sin(angles_7) + 0.5 * torch.cos(2 * angles_7)
picture = linearization.training_picture(relu_net.network(2, width=width, seed=0), x_7, targets, x_eval,
                                         lr=1.0, steps=400)
fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4.2),
                                         gridspec_kw={"width_ratios": [1.2, 1.2, 1]})
eval_degrees, train_degrees = np.degrees(angles_eval.numpy()), np.degrees(angles_7.numpy())
shown = (0, 1, 2, 20)
colours = dict(zip(shown, nh.plotting.PALETTE))
for step in shown:
    left.plot(eval_degrees, picture.network[step], color=colours[step], lw=3.5, alpha=0.55,
              label=nh._("step {step}").format(step=step))
    left.plot(eval_degrees, picture.linearized[step], "--", color=colours[step], lw=1.3)
left.plot([], [], color="gray", lw=3.5, alpha=0.55, label=nh._("network"))
left.plot([], [], "--", color="gray", lw=1.3, label=nh._("linearization"))
middle.plot(eval_degrees, picture.network[-1], color=nh.plotting.PALETTE[4], lw=3.5, alpha=0.55,
            label=nh._("network, step 400"))
middle.plot(eval_degrees, picture.with_offset, "--", color="k", lw=1,
            label=nh._("$f_0$ + kernel regression on $y - f_0$"))
middle.plot(eval_degrees, picture.without_offset, color=nh.plotting.PALETTE[5],
            label=nh._("kernel regression on $y$ (same $\\hat\\Theta_0$)"))
middle.plot(eval_degrees, picture.network[0], ":", color=colours[0], label=nh._("random start $f_0$"))
for ax in (left, middle):
    ax.plot(train_degrees, targets, "ks", ms=6)
    ax.set_ylim(-2.4, 2.4)                                           # room for the legends above the curves
left.set_ylabel("f(x)")
left.set_title(nh._("The network learns like its linearization"))
middle.set_title(nh._("It ends at f₀ + kernel regression on the residuals"))
left.legend(fontsize=9, ncol=3, loc="upper center")
middle.legend(fontsize=8, ncol=2, loc="upper center")
right.plot(eval_degrees, picture.network[-1] - picture.without_offset, color=nh.plotting.PALETTE[4], lw=3.5,
           alpha=0.55, label=nh._("network − kernel regression on $y$"))
right.plot(eval_degrees, picture.with_offset - picture.without_offset, "--", color="k", lw=1,
           label=nh._("what $f_0$ leaves: $f_0(x) - \\hat\\Theta_0(x,X)\\hat\\Theta_0^{-1}f_0(X)$"))
right.plot(train_degrees, np.zeros(7), "ks", ms=6)
right.axhline(0, color="gray", lw=0.8)
right.set_title(nh._("The trace of f₀: zero at the training points, not between"), fontsize=10)
right.legend(fontsize=8, loc="upper center")
right.set_ylim(-0.5, 0.6)
for ax in (left, middle, right):
    ax.set_xlabel(nh._("angle of x (degrees)"))
plt.show()
print(nh._("largest gap, network vs linearization: {gap:.3f}; end point vs f₀ + kernel regression: {end:.3f}")
      .format(gap=picture.gap, end=np.abs(picture.network[-1] - picture.with_offset).max()))

# %% [markdown]
# Left: the network and its linearization lie on top of each other at every step, also between the training
# points (black squares). Step 1 overshoots the targets: along the top eigenvector of $\hat\Theta_0(X,X)$ each
# step multiplies the residual by $1 - \eta\lambda_\max/n$, and here $\eta\lambda_\max/n = 1.26$, so that part
# of the residual flips sign and shrinks fourfold per step (stable, since $1.26 < 2$; lesson 07). Gradient flow
# would never flip a sign: it multiplies that part by $e^{-\eta\lambda_\max t/n} > 0$. By step 20 the curve is
# within 0.03 of where it ends at step 400.

# %% [markdown]
# Middle: the network interpolates the 7 points, and between them it follows $f_0$ plus kernel regression on the
# residuals, not kernel regression on $y$ alone (both with the network's own $\hat\Theta_0$). Right: it keeps a
# trace of its random start, the part of $f_0$ that kernel regression on $f_0(X)$ does not explain, zero at the
# training points and up to 0.25 between them. Averaged over many initializations ($\mathbb E f_0 = 0$), and with
# $\hat\Theta_0\approx\Theta_\infty$ for a wide network, the end point approaches plain kernel regression
# $\Theta_\infty(x,X)\Theta_\infty(X,X)^{-1}y$ (Lee et al. 2019; lesson 07); one network keeps its own $f_0$.
#
# **Predict, then check.** In the cell above set `width = 64` and re-run it (then set it back to 4096). Will the
# dashes still lie on the thick lines? Will the end point still be $f_0$ plus kernel regression on the residuals?
#
# <details><summary>Answer</summary>
#
# No to both. The printed line says it: the largest gap between the network and its linearization grows from
# 0.011 to 0.197, and the end point misses $f_0$ + kernel regression (with the network's own $\hat\Theta_0$) by
# up to 0.169 between the training points. The narrow network still fits the 7 points, but its kernel moved
# while it trained (§4), so the fixed-kernel formula no longer describes where it ends.
#
# </details>

# %% tags=["check"]
# Largest |network - linearization| over all 401 steps and 128 inputs (quoted 0.011; Lee et al.'s O(m^-1/2) is
# proved for smooth activations, this ReLU network is consistent with it), against targets of size about 1.
nh.check_close("network vs its linearization, largest gap during training, as quoted", picture.gap, 0.011,
               atol=0.0005)
nh.check_close("the end point is f_0 + kernel regression on y - f_0", picture.network[-1],
               picture.with_offset, atol=0.03)
nh.check_between("f_0 + regression on residuals vs regression on y: largest difference",
                 np.abs(picture.with_offset - picture.without_offset).max(), 0.1, 2)
top = float(nh.eigenvalues(nh.empirical_ntk(relu_net.network(2, width=width, seed=0), x_7))[0])
nh.check_close("η λ_max / n on the 7 training inputs, as quoted", 1.0 * top / 7, 1.26, atol=0.005)
nh.check_between("step 20 vs step 400: largest difference (quoted within 0.03)",
                 np.abs(picture.network[20] - picture.network[400]).max(), 0, 0.03)
trace = picture.with_offset - picture.without_offset                # f_0 - (kernel regression on f_0(X))
nh.check_close("right panel: the largest trace of f_0 between the training points (quoted 0.25)",
               np.abs(trace).max(), 0.25, atol=0.005)
trace_at_train = linearization.training_picture(relu_net.network(2, width=width, seed=0), x_7, targets, x_7,
                                                lr=1.0, steps=0)
nh.check_close("right panel: the trace of f_0 is zero at the training points",
               trace_at_train.with_offset - trace_at_train.without_offset, np.zeros(7), atol=1e-8)
# Width 64, evaluated on the 128 inputs of the figure and then on the 7 training inputs.
narrow = linearization.training_picture(relu_net.network(2, width=64, seed=0), x_7, targets,
                                        torch.cat([x_eval, x_7]), lr=1.0, steps=400)
nh.check_close("the answer: width 64, network vs its linearization, largest gap, as quoted",
               np.abs(narrow.network[:, :128] - narrow.linearized[:, :128]).max(), 0.197, atol=0.0005)
nh.check_close("the answer: width 64, end point vs f_0 + kernel regression, largest difference, as quoted",
               np.abs(narrow.network[-1, :128] - narrow.with_offset[:128]).max(), 0.169, atol=0.0005)
nh.check_close("the answer: width 64, the network still fits the 7 points", narrow.network[-1, 128:], targets,
               atol=1e-3)

# %% [markdown]
# ## 7. Going deeper (optional): the random kernel at finite width (overview §3.1)
#
# At finite width $\hat\Theta_0$ is random. Statement 1 of §5 (Jacot et al.'s Thm 1) says it converges to
# $\Theta_\infty$, which `architecture.kernel(x)` computes exactly (lesson 02 shows how). How fast? We measure
# the relative error $\lVert\hat\Theta_0 - \Theta_\infty\rVert_F / \lVert\Theta_\infty\rVert_F$ of the depth-3
# ReLU network of §2 on its 16 inputs, for widths 64 … 2048 and 4 seeds each.

# %%
sweep = nh.width_sweep(architecture, x, widths=[64, 128, 256, 512, 1024, 2048], seeds=4)
fig, ax = plt.subplots()
for s in range(sweep.errors.shape[1]):
    ax.loglog(sweep.widths, sweep.errors[:, s], "o", color="gray", alpha=0.5, ms=4,
              label=nh._("one seed") if s == 0 else None)
nh.plotting.loglog_fit(ax, sweep.widths, sweep.errors.mean(1),
                       label=nh._("mean of {count} seeds").format(count=sweep.errors.shape[1]),
                       guide_slope=-0.5)
nh.plotting.width_ticks(ax, sweep.widths)
ax.set_yticks([0.05, 0.1, 0.2, 0.5, 1], ["0.05", "0.1", "0.2", "0.5", "1"])     # plain numbers, not 2×10⁻¹
ax.yaxis.set_minor_locator(plt.NullLocator())
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative error vs infinite width"))
ax.set_title(nh._("One network's NTK approaches its limit like $m^{-1/2}$"))
plt.show()

# %% tags=["check"]
# Slope of the 4-seed means; the seed scatter at each width (grey) allows about ±0.1 around the theory.
nh.check_between("slope of one network's NTK error against the width", sweep.slope, -0.65, -0.4)

# %% [markdown]
# ### Explore: width and depth
#
# Pick a width, a depth, an activation and a seed. The network is the one of §2 and of the figure above
# ($\sigma_w = \sqrt 2$, $\sigma_b = 0.1$, the 16 inputs of §2), with the depth and activation you choose. Each
# dot is one entry $\hat\Theta_0(x_i,x_j)$ of one network's NTK against its infinite-width value; on the dashed
# line they agree. The title gives the relative error.

# %%
def draw_scatter(width, depth, activation, seed):
    arch = nh.mlp(depth, activation, sigma_w=math.sqrt(2), sigma_b=0.1)
    exact = arch.kernel(x).ntk
    finite = nh.empirical_ntk(arch.network(4, width=width, seed=seed), x)
    error = float((finite - exact).norm() / exact.norm())
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    ax.scatter(exact.flatten(), finite.flatten(), s=12, label=nh._(r"entries $\Theta(x_i,x_j)$"))
    lims = [float(exact.min()), float(exact.max())]
    ax.plot(lims, lims, "k--", lw=1, label=nh._("perfect agreement"))
    ax.set_xlabel(nh._("infinite-width NTK"))
    ax.set_ylabel(nh._("width-{width} NTK (seed {seed})").format(width=width, seed=seed))
    ax.set_title(linearization.kernel_error_title(activation, depth, error))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))        # outside: narrow deep nets scatter anywhere

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_scatter,
    width=nh.widgets.width_slider(256, options=(16, 32, 64, 128, 256, 512, 1024, 2048)),
    depth=nh.widgets.depth_slider(3, max=8),
    activation=nh.widgets.activation_dropdown("relu"),
    seed=nh.widgets.int_slider(nh._("seed"), 0, min=0, max=3),
)

# %% [markdown]
# **Predict, then check.**
#
# 1. ReLU, width 256: move the depth from 1 to 4. Will one network's error grow or shrink? Try the seeds 0–3.
#
# <details><summary>Answer</summary>
#
# It grows, roughly doubling: at seed 0 from 9.9 % to 22.6 %; over the seeds 0–3 from 9.9–14.9 % to
# 18.3–34.8 % (means 12 % and 26.5 %). Every layer multiplies in its own random weights, and their fluctuations
# add up along the depth.
#
# </details>
#
# 2. Still ReLU at depth 4: find the width at which it is as close to its limit as depth 1 is at width 256.
#    (The figure above tells you how the error falls with the width.)
#
# <details><summary>Answer</summary>
#
# About 1024: the mean error over the seeds 0–3 is 12 % there, as for depth 1 at width 256. The error doubled
# with the depth, and it falls like $m^{-1/2}$, so halving it takes four times the width. Single seeds
# scatter: from 7.9 % (seed 0) to 17.2 %.
#
# A proved rule of the same shape: for ReLU networks without random biases (ours have $\sigma_b = 0.1$) and
# equal hidden widths, Hanin & Nica (2020) show that a diagonal entry $\hat\Theta_0(x,x)$ has
# $\mathbb E[\hat\Theta_0^2]/(\mathbb E\hat\Theta_0)^2 \approx \exp(5\,\text{depth}/\text{width})$, so for a
# small ratio depth/width its relative spread is about $\sqrt{5\,\text{depth}/\text{width}}$. Our network has
# random biases and we measure all entries, so here the rule is only a guide.
#
# </details>

# %% tags=["check"]
# The answers' numbers, at the explorer's settings (σ_w = √2, σ_b = 0.1), each to the rounding quoted.
def explorer_error(activation, depth, width, seed):
    arch = nh.mlp(depth, activation, sigma_w=math.sqrt(2), sigma_b=0.1)
    exact = arch.kernel(x).ntk
    return float((nh.empirical_ntk(arch.network(4, width=width, seed=seed), x) - exact).norm() / exact.norm())


settings = [("relu", 1, 256), ("relu", 4, 256), ("relu", 4, 1024)]
errors = {setting: np.array([explorer_error(*setting, seed) for seed in range(4)]) for setting in settings}
nh.check_close("answer 1: ReLU, width 256, seed 0, depth 1 and 4, as quoted",
               [errors["relu", 1, 256][0], errors["relu", 4, 256][0]], [0.099, 0.226], atol=0.0005)
nh.check_close("answer 1: ReLU, width 256, depth 1, seeds 0-3: smallest and largest, as quoted",
               [errors["relu", 1, 256].min(), errors["relu", 1, 256].max()], [0.099, 0.149], atol=0.0005)
nh.check_close("answer 1: ReLU, width 256, depth 4, seeds 0-3: smallest and largest, as quoted",
               [errors["relu", 4, 256].min(), errors["relu", 4, 256].max()], [0.183, 0.348], atol=0.0005)
nh.check_close("answer 1: ReLU, width 256, mean over seeds 0-3 at depth 1 and 4, as quoted",
               [errors["relu", 1, 256].mean(), errors["relu", 4, 256].mean()], [0.12, 0.265], atol=0.005)
nh.check_close("answer 2: ReLU, depth 4, width 1024, mean over seeds 0-3, as quoted",
               errors["relu", 4, 1024].mean(), 0.12, atol=0.005)
nh.check_close("answer 2: ReLU, depth 4, width 1024: seed 0 and the largest of seeds 0-3, as quoted",
               [errors["relu", 4, 1024][0], errors["relu", 4, 1024].max()], [0.079, 0.172], atol=0.0005)
nh.check_close("the explorer's default (depth 3, width 256, seed 0) is the grey dot of the figure above",
               explorer_error("relu", 3, 256, 0), sweep.errors[2, 0], rtol=1e-12)

# %% [markdown]
# ### Bias and spread
#
# The error of one network mixes two things: a random **spread**, different for every seed, and a **bias**,
# the error that remains after averaging over seeds. Theory says the spread falls like $m^{-1/2}$ and the bias
# like $1/m$, so the spread hides the bias in any single network. To expose the bias we average many networks
# (averaging $S$ networks shrinks the spread by $\sqrt S$ and leaves the bias), and we make two choices that
# help: we look at the kernel's shape without its scale, because the scale spreads more, and at small widths,
# in a network whose bias is large enough to resolve with 400 networks (a depth-3 erf network with
# $\sigma_w = 2$; the check below verifies it).

# %% [markdown]
# The shape is the normalized NTK $K(x,x') = \hat\Theta_0(x,x')/\sqrt{\hat\Theta_0(x,x)\,\hat\Theta_0(x',x')}$;
# write $K_m$ for that of a width-$m$ network and $K_\infty$ for that of $\Theta_\infty$. Then
#
# $$K_m - K_\infty \;=\;
#   \underbrace{\bigl(\mathbb E\,K_m - K_\infty\bigr)}_{\text{bias: fixed, } O(1/m)}
#   \;+\; \underbrace{\bigl(K_m - \mathbb E\,K_m\bigr)}_{\text{spread: random, mean } 0,\ O(1/\sqrt m)},$$
#
# where $\mathbb E$ averages over random initializations. The bias has two sources, both of order $1/m$: the
# mean of $\hat\Theta_0$ itself differs from $\Theta_\infty$ for two or more hidden layers (Dyer & Gur-Ari 2020;
# with one hidden layer $\mathbb E\,\hat\Theta_0 = \Theta_\infty$ exactly), and a ratio of random quantities
# is biased even where they are not ($\mathbb E[a/b] \neq \mathbb E a / \mathbb E b$).
# We average 400 networks at widths 8 … 64. Relative to $\lVert K_\infty\rVert_F$: the **spread** is the RMS
# distance of one network's $K_m$ from the mean of all 400, the **bias** the distance of that mean from
# $K_\infty$.

# %%
erf_architecture = nh.mlp(3, "erf", sigma_w=2.0, sigma_b=0.1)
erf_limit = nh.normalize(erf_architecture.kernel(x).ntk)
small_widths, n_seeds = np.array([8, 16, 32, 64]), 400
spread, bias = [], []
for width in small_widths:
    networks = [erf_architecture.network(4, width=int(width), seed=s) for s in range(n_seeds)]
    raw = torch.stack([nh.empirical_ntk(net, x) for net in networks])          # (400, 16, 16)
    kernels = torch.stack([nh.normalize(k) for k in raw])                      # K_m of each network
    mean = kernels.mean(0)
    spread.append(float((kernels - mean).pow(2).sum().div(n_seeds - 1).sqrt() / erf_limit.norm()))
    bias.append(float((mean - erf_limit).norm() / erf_limit.norm()))
spread, bias = np.array(spread), np.array(bias)
leftover = spread / math.sqrt(n_seeds)

fig, ax = plt.subplots()
slope_spread = nh.plotting.loglog_fit(ax, small_widths, spread, label=nh._("spread (one network)"))
slope_bias = nh.plotting.loglog_fit(ax, small_widths, bias, label=nh._("bias (mean of 400)"))
ax.loglog(small_widths, leftover, ":", color="gray",
          label=nh._("leftover spread in the mean (spread/√400)"))
ax.set_ylim(leftover.min() / 1.5, spread.max() * 4)                 # room for the legend above the data
nh.plotting.width_ticks(ax, small_widths)
ax.legend(loc="upper right")
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative size vs infinite width"))
ax.set_title(nh._("Averaging removes the spread and exposes a bias that falls like 1/m"))
plt.show()

# %% [markdown]
# The mean of many networks approaches $K_\infty$ like $1/m$, a single network only like $1/\sqrt m$. The grey
# line is the part of the spread left inside the mean of 400; the bias stays above it, so what we see is the
# bias. At these small widths the spread falls a little faster than $m^{-1/2}$ (probably because the next term
# of its expansion is not yet negligible; we have not checked this). The bias of $\hat\Theta_0$ itself, without
# the normalization, cannot be resolved this way: $\hat\Theta_0$ spreads about twice as much as $K_m$, and the mean of 400 networks does not separate its
# bias from that noise at these widths.

# %% tags=["check"]
# Bias resolved: at least twice the leftover spread, which then inflates it by at most sqrt(1 + 1/4) = 1.12.
nh.check_that("the bias is resolved: bias >= 2 × leftover spread at every width",
              (bias >= 2 * leftover).all(),
              measured=float((bias / leftover).min()), expected=">= 2")
# Theory -1 and -0.5; at widths 8-64 the next order of the expansion steepens the spread slope a little.
nh.check_between("slope of the bias against the width", slope_bias, -1.25, -0.75)
nh.check_between("slope of the spread against the width", slope_spread, -0.75, -0.55)
nh.check_that("one network: the spread exceeds the bias at every width", (spread > bias).all(),
              measured=float((spread / bias).min()), expected="> 1")
# raw: the 400 kernels Θ_m of the loop's last width, 64, before normalization.
raw_limit = erf_architecture.kernel(x).ntk
raw_spread = float((raw - raw.mean(0)).pow(2).sum().div(n_seeds - 1).sqrt() / raw_limit.norm())
raw_bias = float((raw.mean(0) - raw_limit).norm() / raw_limit.norm())
nh.check_between("width 64, Θ without normalization: spread / spread of the normalized K (quoted about 2)",
                 raw_spread / spread[-1], 1.7, 2.5)
nh.check_that("width 64, Θ without normalization: its bias is not resolved (below 2 × leftover spread)",
              raw_bias < 2 * raw_spread / math.sqrt(n_seeds),
              measured=raw_bias / (raw_spread / math.sqrt(n_seeds)), expected="< 2")

# %% [markdown]
# ## 8. Going deeper (optional): when is the Gram matrix singular?
#
# The end point of §1 needs $\hat\Theta_0(X,X)$ invertible. A Gram matrix is always positive semi-definite, and
# for the inputs of this lesson it is positive definite, but not for every set of distinct inputs. What is proved:
#
# - with a bias, a non-polynomial Lipschitz activation and at least one hidden layer, the infinite-width NTK is
#   positive definite on the unit sphere (Jacot et al. 2018, Prop. 2);
# - for one hidden ReLU layer **without** bias, it is positive definite as long as no two inputs are parallel,
#   $x$ and $-x$ counting as parallel (Du et al. 2019).
#
# Without a bias both can fail. A bias-free ReLU network is positively homogeneous, $f(2x) = 2f(x)$, so the
# gradients at $x$ and $2x$ are parallel and $\{x, 2x\}$ gives a singular matrix. A bias-free erf network is
# odd, so $\{x, -x\}$ does. On the sphere, ReLU fails too, with more points: since
# $\operatorname{relu}(u) - \operatorname{relu}(-u) = u$, a one-hidden-layer bias-free ReLU network has
# $f(x) - f(-x) = \frac{\sigma_w^2}{\sqrt{md}}\sum_j v_j\, w_j\cdot x$, linear in $x$ for every $\theta$, and so
# is the gradient of this odd part. Take 6 random points of a sphere in $\mathbb R^3$ and their 6 opposite
# points: 12 distinct inputs, but the gradients span at most 6 even directions and 3 odd ones.

# %%
pairs = nh.sphere(6, d=3, seed=1)
antipodal = torch.cat([pairs, -pairs])                     # 12 distinct points: 6 points and their opposites
no_bias = nh.eigenvalues(nh.mlp(1, "relu").kernel(antipodal).ntk)              # nh.mlp(1): σ_b = 0
with_bias = nh.eigenvalues(nh.mlp(1, "relu", sigma_b=0.1).kernel(antipodal).ntk)
zeros = int((no_bias.abs() < 1e-12 * no_bias[0]).sum())
print(nh._("no bias: {zeros} of 12 eigenvalues are zero (below 1e-12 of the largest)").format(zeros=zeros))
print(nh._("bias σ_b = 0.1: smallest / largest eigenvalue = {ratio:.1e}").format(
    ratio=float(with_bias[-1] / with_bias[0])))

# %% [markdown]
# Without a bias, three eigenvalues are zero up to rounding; a bias of $0.1$ makes the matrix invertible, though
# ill-conditioned. The same holds at finite width: the zero eigenvalues come from the network's form, not from
# the limit.

# %% tags=["check"]
finite_net = nh.mlp(1, "relu").network(3, width=1024, seed=0)
spectrum_finite = nh.eigenvalues(nh.empirical_ntk(finite_net, antipodal))
# Zero up to float64 rounding: below 1e-12 of the largest eigenvalue (measured about 1e-16).
nh.check_that("bias-free ReLU, antipodal pairs: 3 zero eigenvalues at infinite width", zeros == 3,
              measured=zeros, expected=3)
nh.check_that("bias-free ReLU, antipodal pairs: 3 zero eigenvalues at width 1024",
              (spectrum_finite.abs() < 1e-12 * spectrum_finite[0]).sum() == 3,
              measured=int((spectrum_finite.abs() < 1e-12 * spectrum_finite[0]).sum()), expected=3)
nh.check_between("with a bias 0.1: smallest / largest eigenvalue", with_bias[-1] / with_bias[0], 1e-3, 1e-2)
with torch.no_grad():
    odd_part = finite_net(pairs) - finite_net(-pairs)                 # f(x) - f(-x) at the 6 points
linear_fit = torch.linalg.lstsq(pairs, odd_part).solution
nh.check_close("bias-free ReLU: f(x) - f(-x) is linear in x", pairs @ linear_fit, odd_part, rtol=1e-10)

# %% [markdown]
# ## Check your understanding
#
# 1. A linear model $f(x;\theta) = \theta\cdot\psi(x)$ with a fixed feature map $\psi$: what is its NTK, and
#    does it change during training?
#
# <details><summary>Answer</summary>
#
# $\nabla_\theta f(x) = \psi(x)$, so $\Theta(x,x') = \psi(x)\cdot\psi(x')$, the ordinary kernel of the
# features. It never changes: the gradient does not depend on $\theta$. A network in the NTK regime behaves like
# this model with $\psi(x) = \nabla_\theta f(x;\theta_0)$ (plus the offset $f_0$).
#
# </details>
#
# 2. One gradient step of size $\eta = 0.1$ on a single input $x_i$ with residual $r_i = 2$. At an input $x$
#    with $\Theta(x, x_i) = 0.5$, what is the change of $f(x)$, to first order? And where $\Theta(x,x_i) = 0$?
#
# <details><summary>Answer</summary>
#
# $\Delta f(x) \approx -\eta\,\Theta(x,x_i)\,r_i = -0.1 \cdot 0.5 \cdot 2 = -0.1$: the output goes down, in
# the same direction as at $x_i$ (where it moves towards the target). Where $\Theta(x, x_i) = 0$ nothing
# moves, to first order: the gradients at the two inputs are orthogonal.
#
# </details>
#
# 3. The `identity` activation makes the network a linear function of its input $x$. Is it a linear model in
#    its parameters, i.e. is its NTK fixed during training? (Try it in the first explorer.)
#
# <details><summary>Answer</summary>
#
# No. $f(x) = \frac{\sigma_w^2}{\sqrt{md}}\,v^\top W x$ (plus bias terms) is a product of weights:
# linear in $x$ but quadratic in $\theta$, so its gradient, and hence its NTK, changes when the weights move.
# In the explorer (step size 1, seed 0) the gap is 6.7 % at width 16 and 0.068 % at width 256: it shrinks with
# the width, as for the other activations.
#
# </details>
#
# 4. A standard-parameterization ReLU network of width 1024 trains well with a learning rate $\eta$. You make it
#    four times wider, keeping the data. What can happen if you keep $\eta$, and which learning rate keeps the
#    speed of training about the same?
#
# <details><summary>Answer</summary>
#
# Its NTK grows like $m$ (§5), so $\hat\Theta_0$ and its largest eigenvalue become about four times larger. The
# outputs move by $\eta\hat\Theta_0/n$ per step (§1), so with the same $\eta$ every step is about four times
# larger, and if $\eta\lambda_\max/n$ passes 2, gradient descent diverges. A learning rate $\eta/4$ keeps
# $\eta\hat\Theta_0$, and so the speed, about the same: this is the learning rate $\propto 1/m$ of §5, under which
# the network trains with the kernel $\hat\Theta_0/m$.
#
# </details>
#
# 5. A bias-free one-hidden-layer ReLU network gets three inputs: $x$, $2x$ and an input $z$ that is not parallel
#    to $x$ (nor to $-x$). What is the rank of their $3\times 3$ NTK Gram matrix at infinite width?
#
# <details><summary>Answer</summary>
#
# Rank 2. The network is positively homogeneous, $f(2x;\theta) = 2f(x;\theta)$ for every $\theta$, so
# $\nabla_\theta f(2x) = 2\nabla_\theta f(x)$: the rows of $x$ and $2x$ are parallel and add only one direction.
# The pair $x, z$ has no parallel inputs, so its $2\times 2$ Gram matrix is positive definite (§8, Du et al.
# 2019), and $z$ adds a second direction.
#
# </details>
#
# 6. You train 100 wide networks of the same architecture, from different seeds, to convergence on the same
#    data (squared loss). Compare the spread of their 100 predictions at a training input with the spread at a
#    test input between the training inputs.
#
# <details><summary>Answer</summary>
#
# At a training input the spread is close to 0: every network interpolates the training data, so all end near
# $y_i$. At a test input it stays: each network ends near
# $f_0(x) + \hat\Theta_0(x,X)\hat\Theta_0^{-1}(y - f_0(X))$, and the part $f_0(x) - \hat\Theta_0(x,X)\hat\Theta_0^{-1}f_0(X)$, the trace of $f_0$ in the right
# panel of §6, is different for every seed. Training removes the random start only on the training inputs
# (lesson 07 measures the spread of the ensemble).
#
# </details>

# %% [markdown]
# ## Summary
#
# - Near its initialization a network is close to its linearization
#   $f_0(x) + \nabla_\theta f(x;\theta_0)\cdot(\theta-\theta_0)$, a linear model whose kernel is the NTK
#   $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$.
# - Gradient descent moves the outputs through the kernel, $\dot f(x) = -\frac\eta n\sum_i\Theta(x,x_i)r_i$;
#   one step on $x_i$ moves $f(x)$ by about $-\eta\,\Theta(x,x_i)\,r_i$, and the wider the network, the closer.
# - The NTK is $JJ^\top$ for the parameter Jacobian $J$: ten lines of `torch.func` compute it for a model in
#   eval mode.
#   Its Gram matrix is positive semi-definite, but not always invertible (bias-free networks on parallel or
#   opposite inputs).
# - In the NTK parameterization each weight moves by $O(1/\sqrt m)$ while the function moves by $O(1)$, so the
#   kernel freezes as $m\to\infty$: for a finite time, at a fixed small learning rate, for any loss whose
#   gradient in the outputs stays bounded up to $T$ (squared loss, cross-entropy; proved for smooth
#   activations; for ReLU by other work). The standard parameterization needs a learning rate $\propto 1/m$
#   and then freezes at another kernel; under μP the kernel moves.
# - A wide network trained on the squared loss ends at $f_0$ plus kernel regression on the residuals
#   $y - f_0$. At initialization its kernel is random, with a spread $\propto m^{-1/2}$ and a bias $\propto 1/m$
#   (for the normalized kernel, or with two or more hidden layers; with one hidden layer
#   $\mathbb E\,\hat\Theta_0 = \Theta_\infty$ exactly).
#
# **Next:** lesson 02 computes $\Theta_\infty$ layer by layer; lesson 07 solves the training dynamics.

# %% [markdown]
# ## For readers of chapter 4 and of the overview
#
# This section is only for readers of those texts; the lesson is complete without it. Each block corrects one
# statement of the NTK overview that this lesson covers.
#
# <details><summary>Overview §1: a trained wide network "degenerates into" a kernel predictor</summary>
#
# **The text says:** as the width grows, a network trained by gradient descent turns into a kernel predictor
# with the NTK.
#
# **What is true:** only under the conditions of §5 (the NTK parameterization, a fixed small learning rate,
# finite time; the standard parameterization with a learning rate $\propto 1/m$ is lazy too, but with another
# kernel), and the predictor keeps the network's random start: for the squared loss,
# $f_\infty = f_0 +$ kernel regression on $y - f_0$ (§1, §6). ([errata B1](../ERRATA.md#b1))
#
# </details>
#
# <details><summary>Overview §3.1: "two random processes converge"</summary>
#
# **The text says:** for any finite time $T$, as $m\to\infty$ the trained network stays uniformly close to a
# fixed kernel-regression predictor; the output at initialization and the kernel-regression output are "two
# random processes" that converge.
#
# **What is true:** a fixed predictor cannot match $f_t$ at every $t$ (at $t=0$ the network is its random
# $f_0$). Jacot et al. (2018, Thm 2) prove that up to time $T$ the kernel stays at $\Theta_\infty$ and the
# network follows kernel gradient descent with it, starting from its random $f_0$; Lee et al. (2019, Thm 2.1)
# state it as a comparison with the network's **linearization** trained by the same gradient descent,
# $\sup_t\lvert f_t(x) - f^\text{lin}_t(x)\rvert = O(m^{-1/2})$ for the squared loss. Both are proved for smooth
# activations; §6 measures a gap of 0.011 at width 4096 for a ReLU network. The kernel predictor is only the
# $t\to\infty$ end point, with the $f_0$ offset. ([errata B6](../ERRATA.md#b6))
#
# </details>
#
# <details><summary>Overview §3.1: the supremum over all inputs</summary>
#
# **The text says:** the convergence holds uniformly over all inputs $x$.
#
# **What is true:** the theorems are proved on a fixed finite set of inputs, or a bounded domain, not uniformly
# over all of input space. ([errata B7](../ERRATA.md#b7))
#
# </details>
#
# <details><summary>Overview §3.1: weights $\mathcal N(0, 1/m)$, "Xavier initialization"</summary>
#
# **The text says:** the width-$m$ network of the infinite-width theorem has weights $\mathcal N(0, 1/m)$
# ("Xavier initialization").
#
# **What is true:** variance $1/\text{fan-in}$ is LeCun's initialization (Xavier/Glorot uses
# $2/(\text{fan-in}+\text{fan-out})$), and the first layer's fan-in is the input dimension $d$, not $m$. Trained
# with one learning rate (the standard parameterization) this network's NTK grows like $m$ (§5: slope 0.98 in
# $\log m$). A learning rate $\propto 1/m$ makes it lazy, but with another limit kernel, in which the first
# layer barely learns (§5); the theorem's $\Theta_\infty$ is the NTK parameterization's.
# ([errata B5](../ERRATA.md#b5))
#
# </details>
#
# <details><summary>Overview §9.1: the <code>compute_ntk</code> recipe</summary>
#
# **The text says:** compute the NTK with `torch.jacobian(model, X)` and multiply the two Jacobians.
#
# **What is true:** `torch.jacobian` does not exist in PyTorch (an `AttributeError`). The nearest real function,
# `torch.autograd.functional.jacobian(model, X)`, differentiates with respect to the **inputs**, not the
# parameters. The resulting kernel $\nabla_x f(x)\cdot\nabla_{x'}f(x')$ has rank at most $d$: on the 16 inputs
# in $\mathbb R^4$ of §2 its rank is 4, while the NTK's is 16. The ten lines of §2 are the repair.
# ([errata B39](../ERRATA.md#b39))
#
# </details>
#
# <details><summary>Overview §9.2: the <code>simulate_infinite_width</code> recipe</summary>
#
# **The text says:** train networks of growing width (one fixed learning rate, one seed) and compute the
# effective rank of each trained network's NTK with `compute_ntk`, to show the infinite-width behaviour.
#
# **What is true:** the function cannot run (`WideMLP`, `generate_data` and `F` are defined nowhere, and it
# calls the broken `compute_ntk`). Even repaired it would measure the wrong thing: the convergence theorem is
# about the NTK at initialization, one seed per width cannot separate a trend from seed-to-seed noise, and a
# standard-parameterization network at a fixed learning rate has no infinite-width limit (§5). §7 runs the
# experiment it was after: the NTK at initialization, NTK parameterization, several seeds per width.
# ([errata B41](../ERRATA.md#b41))
#
# </details>

# %% tags=["check"]
input_kernel = nh.input_gradient_kernel(model, x)            # what the repaired recipe computes
nh.check_that("torch has no function torch.jacobian", not hasattr(torch, "jacobian"),
              measured="torch.jacobian exists", expected="no torch.jacobian")
rank_input = int(torch.linalg.matrix_rank(input_kernel, rtol=1e-10))
rank_ntk = int(torch.linalg.matrix_rank(theta, rtol=1e-10))
nh.check_that("the input-gradient kernel has rank 4 = d", rank_input == 4, measured=rank_input, expected=4)
nh.check_that("the NTK on the same inputs has rank 16 = n", rank_ntk == 16, measured=rank_ntk, expected=16)
identity_gaps = [explorer_step("identity", w).gap for w in (16, 256)]
nh.check_close("check your understanding 3: identity, gap at widths 16 and 256 / the quoted ones",
               np.array(identity_gaps) / [0.067, 0.00068], np.ones(2), atol=0.05)
third = torch.tensor([[1.0, 0.3, -0.5]], dtype=torch.float64)              # z, not parallel to x
x_line = torch.tensor([[0.2, 1.0, 0.4]], dtype=torch.float64)
triple = torch.cat([x_line, 2 * x_line, third])
triple_eigenvalues = nh.eigenvalues(nh.mlp(1, "relu").kernel(triple).ntk)            # no bias
nh.check_that("check your understanding 5: bias-free ReLU, x, 2x, z: one zero eigenvalue of three",
              bool(triple_eigenvalues[-1].abs() < 1e-12 * triple_eigenvalues[0]
                   and triple_eigenvalues[1] > 1e-3 * triple_eigenvalues[0]),
              measured=str(triple_eigenvalues.numpy()), expected="rank 2")

# %% [markdown]
# ## References
#
# - S. Arora, S. S. Du, W. Hu, Z. Li, R. Salakhutdinov, R. Wang. *On Exact Computation with an Infinitely Wide
#   Neural Net.* NeurIPS 2019. arXiv:1904.11955.
# - L. Chizat, E. Oyallon, F. Bach. *On Lazy Training in Differentiable Programming.* NeurIPS 2019.
#   arXiv:1812.07956.
# - S. S. Du, X. Zhai, B. Póczos, A. Singh. *Gradient Descent Provably Optimizes Over-parameterized Neural
#   Networks.* ICLR 2019. arXiv:1810.02054.
# - E. Dyer, G. Gur-Ari. *Asymptotics of Wide Networks from Feynman Diagrams.* ICLR 2020. arXiv:1909.11304.
# - B. Hanin, M. Nica. *Finite Depth and Width Corrections to the Neural Tangent Kernel.* ICLR 2020.
#   arXiv:1909.05989.
# - J. Huang, H.-T. Yau. *Dynamics of Deep Neural Networks and Neural Tangent Hierarchy.* ICML 2020.
#   arXiv:1909.08156.
# - A. Jacot, F. Gabriel, C. Hongler. *Neural Tangent Kernel: Convergence and Generalization in Neural
#   Networks.* NeurIPS 2018. arXiv:1806.07572.
# - J. Lee, Y. Bahri, R. Novak, S. S. Schoenholz, J. Pennington, J. Sohl-Dickstein. *Deep Neural Networks as
#   Gaussian Processes.* ICLR 2018. arXiv:1711.00165.
# - J. Lee, L. Xiao, S. S. Schoenholz, Y. Bahri, R. Novak, J. Sohl-Dickstein, J. Pennington. *Wide Neural
#   Networks of Any Depth Evolve as Linear Models Under Gradient Descent.* NeurIPS 2019. arXiv:1902.06720.
# - A. G. de G. Matthews, M. Rowland, J. Hron, R. E. Turner, Z. Ghahramani. *Gaussian Process Behaviour in Wide
#   Deep Neural Networks.* ICLR 2018. arXiv:1804.11271.
# - R. M. Neal. *Bayesian Learning for Neural Networks.* Springer, 1996.
# - J. Sohl-Dickstein, R. Novak, S. S. Schoenholz, J. Lee. *On the Infinite Width Limit of Neural Networks with a
#   Standard Parameterization.* arXiv:2001.07301, 2020.
# - G. Yang. *Scaling Limits of Wide Neural Networks with Weight Sharing: Gaussian Process Behavior, Gradient
#   Independence, and Neural Tangent Kernel Derivation.* arXiv:1902.04760, 2019.
# - G. Yang, E. J. Hu. *Tensor Programs IV: Feature Learning in Infinite-Width Neural Networks.* ICML 2021.
#   arXiv:2011.14522.
#
# **Next:** [02 · The MLP recursion](02_mlp_recursion.ipynb)
