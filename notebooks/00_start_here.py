# %% [markdown]
# # 00 · Start here: a map of the NTK lessons
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/00_start_here.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F00_start_here.ipynb)
# [中文版 / Chinese edition](zh/00_start_here.ipynb)
#
# These notebooks teach the **neural tangent kernel** (NTK): what it is, why a very wide network trains like a
# kernel method, and how the architecture (depth, activation, convolutions, residual connections,
# normalization) decides which kernel it is. Everything is plain PyTorch, and every lesson runs in under a
# minute on 2 CPU cores (measured by the build). The lessons follow two Chinese texts: chapter 4 of a textbook, "NTK forms under different
# architectures" (sections 4.1–4.5 and exercises 4.1–4.8), and an NTK overview (sections 1–10). They keep the
# chapter's section numbers (4.1, 4.2, …) in their headings, but you need neither text: each lesson states the
# results it uses, with the papers that prove them, and its last section lists, collapsed, where the texts are
# wrong.

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %% [markdown]
# ## You will learn
#
# - what the NTK $\Theta(x,x')$ measures: how far a gradient step on one input moves the output on another;
# - what has been proved about it as the width grows, by whom, and under which assumptions;
# - how one architecture description gives both a finite PyTorch network and its exact infinite-width kernels,
#   and how the course compares the two;
# - to read a kernel as a function of the angle between two inputs, and what depth and the activation do to
#   it;
# - where each topic lives in the course, and the notation and words every lesson uses.
#
# **You need:** Python and PyTorch, a little linear algebra (eigenvalues, Gram matrices), gradient descent,
# and for later lessons the idea of a Gaussian process. No JAX.

# %% [markdown]
# ## The idea in one picture
#
# Take one gradient step on a single training input $x_0$ with target $y_0$ and the squared loss: the
# network's output moves on *every* input $x$, to first order by $-\eta\,\Theta(x,x_0)\,r$. That is the
# learning rate times the kernel times the **residual** $r = f(x_0) - y_0$ (in every lesson: output minus
# target), where $\Theta(x,x_0) = \nabla_\theta f(x)\cdot\nabla_\theta f(x_0)$ is the neural tangent kernel. The
# NTK is the table of how learning on one input changes the prediction on another, and as the network gets
# wider this table becomes a fixed kernel set by the architecture alone.
#
# > **One term per weight matrix** (no bias). $\Theta(x,x') = \sum_l \nabla_{W_l} f(x)\cdot\nabla_{W_l} f(x')$.
# > At infinite width, layer $l$'s term is the covariance $\Sigma^{(l)}(x,x')$ of the pre-activations $W_l$
# > makes, times one backward factor for each weight matrix $W_{l'}$ above it,
# > $\dot\Sigma^{(l')}(x,x') = \sigma_w^2\,\mathbb E[\phi'(u)\,\phi'(v)]$, where $(u, v)$ are the pre-activations
# > that enter $W_{l'}$ through $\phi$, those of layer $l'-1$, at $x$ and $x'$ (covariance $\Sigma^{(l'-1)}$).
# > With a bias, $W_l$ gives $\Sigma^{(l)} - \sigma_b^2$ and the bias $b_l$ adds $\sigma_b^2$, each times the same
# > factors (lesson 02 derives both).

# %% [markdown]
# Below, a ReLU network takes one step of gradient descent, with learning rate $\eta = 0.1$, on the input at
# angle 0°, whose target we set 1 above its current output ($r = -1$). It has two hidden layers of width
# 1024 (`depth = 2`: three weight matrices, the readout included), every layer scaled by $\sigma_w = \sqrt2$,
# and no bias; its inputs lie on a circle in $\mathbb R^2$ with $\lVert x\rVert^2 = d = 2$. The dots are how
# much $f$ changed on 72 inputs around the circle; the lines are the first-order prediction
# $-\eta\,\Theta(x,x_0)\,r = \eta\,\Theta(x,x_0)$, with this network's own NTK and with the infinite-width one.
# The lower panel magnifies the two differences, against the signed angle from $x_0$ (negative: clockwise):
# the blue dots are what first order leaves out, the orange line this network's NTK minus the infinite-width
# one. The settings sit on one line of the cell; the questions under the figure ask you to change them.

# %%
import matplotlib.pyplot as plt
import ntk_helpers as nh
from ntk_helpers.course import tour

nh.plotting.use_style()
depth, activation, width, lr, seed = 2, "relu", 1024, 0.1, 0        # change these, then re-run the cell
step = tour.one_step(nh.mlp(depth=depth, activation=activation), width=width, lr=lr, seed=seed)

# nh._("...") marks a label for the Chinese edition's translation; in English it returns the text unchanged.
fig, (top, gaps) = plt.subplots(2, 1, figsize=(7.5, 5.8), sharex=True, height_ratios=[2.2, 1])
top.axhline(0, color="0.6", lw=1)
top.plot(step.degrees, step.measured, "o", ms=4, label=nh._("measured: f after the step − f before"))
top.plot(step.degrees, step.predicted, "-", label=nh._(r"$\eta\,\Theta(x, x_0)$, this network's NTK"))
top.plot(step.degrees, step.limit, "--", color="0.3", label=nh._(r"$\eta\,\Theta(x, x_0)$, infinite width"))
top.set(ylabel=nh._(r"change of $f(x)$"),
        title=nh._(r"One step on $x_0$ moves $f$ on every input, not only at $x_0$"))
top.legend(loc="upper left", fontsize=9.5)
gaps.axhline(0, color="0.6", lw=1)
gaps.plot(step.degrees, step.measured - step.predicted, "o", ms=3, label=nh._("dots − solid line"))
gaps.plot(step.degrees, step.predicted - step.limit, "-", color="C1", label=nh._("solid − dashed line"))
gaps.set(xlabel=nh._(r"signed angle from the trained input $x_0$ (degrees)"), xticks=range(-180, 181, 60),
         ylabel=nh._("difference"))
gaps.set_title(tour.gaps_title(step), fontsize=10)
gaps.legend(loc="upper left", fontsize=8.5, ncols=2)
plt.show()
print(nh._("f(x₀) rose by {rise:.2f}; the target was {push:g} above it")
      .format(rise=step.at(0), push=step.push))
print(nh._("measured vs first order: {taylor:.2%} apart; this network's NTK vs the limit: {width:.1%} apart")
      .format(taylor=step.taylor_gap, width=step.width_gap))

# %% [markdown]
# `tour.one_step` is nothing more than one step of gradient descent. Written out in PyTorch, at the default
# settings:

# %%
import torch

_, circle_x = nh.circle(72)                                   # the 72 inputs; circle_x[0] is x₀, at 0°
model = nh.mlp(depth=2, activation="relu").network(2, width=1024, seed=0)
parameters = [p for p in model.parameters() if p.requires_grad]
with torch.no_grad():
    before = model(circle_x).reshape(-1)
target = before[0] + 1.0                                      # y₀, 1 above f(x₀): residual f(x₀) − y₀ = −1
loss = 0.5 * (model(circle_x[:1]).reshape(()) - target) ** 2  # the squared loss on x₀ alone
gradients = torch.autograd.grad(loss, parameters)
with torch.no_grad():
    for parameter, gradient in zip(parameters, gradients):
        parameter -= 0.1 * gradient                           # the step, learning rate 0.1
    change = (model(circle_x).reshape(-1) - before).numpy()   # the figure's dots, at the default settings
print(nh._("written out: f(x₀) rose by {rise:.2f}").format(rise=change[0]))

# %% [markdown]
# **Explain, then try.** Each question asks you to change the settings line of the cell above
# (`depth, activation, width, lr, seed = …`) and re-run the cell: predict first, then run. Set the line back
# afterwards.
#
# 1. The target was 1 above $f(x_0)$, but $f(x_0)$ rose by only 0.61. Why about 0.6? Use the box above to
#    predict the infinite-width $\Theta(x_0,x_0)$, then the learning rate that lands on the target in one step,
#    and where $f(x_0)$ lands with three times that rate; then try both (`lr = 1/6`, then `lr = 0.5`).
#
# <details><summary>Answer</summary>
#
# To first order the rise is $-\eta\,\Theta(x_0,x_0)\,r$ with $r = -1$, and the infinite-width
# $\Theta(x_0,x_0)$ of this network is 6. With ReLU and $\sigma_w^2 = 2$, every layer's covariance at $x_0$ is 2
# (the first, $\sigma_w^2\lVert x_0\rVert^2/d = 2$; each next, $\sigma_w^2\,\mathbb E[\phi(u)^2] = 2 \cdot \frac22 = 2$) and every
# backward factor is $\dot\Sigma = \sigma_w^2 \cdot \frac12 = 1$, so each of the three weight matrices gives
# $2 \cdot 1 \cdot 1 = 2$: $0.1 \times 6 = 0.6$. So $\eta = 1/6$ lands on the target: $f(x_0)$ rises by 1.02 (this network's own
# $\Theta(x_0,x_0)$ is 6.15, not exactly 6). At $\eta = 0.5$ it rises by 3.02: the residual $r$ goes
# from $-1$ to $+2.02$. Each step multiplies $r$ by $1 - \eta\,\Theta(x_0,x_0)$, here about $1 - 3 = -2$,
# so, to first order (a fixed kernel), steps at this rate overshoot by more every time and diverge. To the same
# order the residual shrinks only for $\eta < 2/\Theta(x_0,x_0)$, here about 0.33; lesson 07 turns this into the learning-rate limit of a whole
# training set.
#
# </details>
#
# 2. Every dot is above 0: the step on $x_0$ raised $f$ even on the far side of the circle. Why can a step on
#    one input raise $f$ at an input pointing the opposite way? Predict whether that survives with one hidden
#    layer instead of two, then set `depth = 1`.
#
# <details><summary>Answer</summary>
#
# All inputs share the parameters, and the NTK adds up one term per weight matrix (the box above). In this
# depth-2 network the terms of
# the two layers above the first are built from ReLU outputs, ReLU slopes (0 or 1) and squared readout weights,
# none of them negative, so those terms are never negative. (In deeper networks a middle layer's term also
# holds products of different weights, of either sign.) Only the first layer's term contains the inputs
# themselves, through
# $x\cdot x_0 = d\cos\theta$, which is negative past 90°. With two hidden layers the other two terms outweigh
# it at every angle: the smallest change, about 0.05, is on the far side. With one hidden layer it is one term
# of two, and far from $x_0$ it wins: most dots beyond 110° dip below 0 (the lowest is about −0.03). The
# dashed depth-1 curve of the slider below shows the same in the infinite-width kernel, down to −0.07.
#
# </details>
#
# 3. The printout and the lower panel show two gaps: the dots are 0.40 % from the solid line and the solid
#    line 3.0 % from the dashed one; each gap is a relative 2-norm over the 72 inputs,
#    $\lVert a - b\rVert / \lVert b\rVert$. Predict which gap changes when you halve $\eta$, and which when you
#    make the network four times wider; then try `lr = 0.05`, and `width = 4096` with `lr = 0.1`.
#
# <details><summary>Answer</summary>
#
# Halving $\eta$ leaves the kernel gap at 3.0 %: both kernels belong to the network before the step, and $\eta$
# does not enter them. The first-order gap falls to 0.27 %, 0.68 of its value: it does not halve. With a smooth activation what
# first order leaves out is of order $\eta^2$, against a change of order $\eta$, so the gap halves (try
# `activation = "erf"`: 0.09 % to 0.05 %). ReLU has a kink: a unit whose pre-activation crosses 0 during the
# step switches on or off, which no first-order expansion sees. At $\eta = 0.1$ this happens for 155 of the
# $2 \times 1024 \times 72$ (hidden unit, input) pairs, at $\eta = 0.05$ for 66, so at these rates the gap
# follows no simple law: over seeds 0–2, halving $\eta$ multiplies it by 0.64 to 0.90. At $\eta = 10^{-4}$ no
# unit switches, and halving $\eta$ once more halves the gap (ratio 0.500), as for erf.
#
# Width 4096 shrinks the first-order gap to 0.11 %, but the kernel gap *grows*, to 4.8 %: one network is one
# random draw, and seed 0 happened to be close at width 1024. Over seeds 0–5 (try `seed = 1`, …, `5`):
#
# | width | kernel gap, seeds 0–5 | mean |
# |---|---|---|
# | 1024 | 3.0 % to 9.5 % | 5.7 % |
# | 4096 | 2.2 % to 4.8 % | 3.2 % |
#
# On average it about halves for four times the width, as a typical size of order $m^{-1/2}$ predicts; lesson
# 01 measures that slope over many seeds.
#
# </details>

# %% tags=["check"]
import numpy as np

# Seeded, float64: each bound brackets the number an answer quotes (the width of its rounding). The answers'
# settings are recomputed here, so these checks hold whatever the cell above was last set to.
relu = nh.mlp(depth=2, activation="relu")
base = tour.one_step(relu, width=1024, lr=0.1, seed=0)
at_x0 = base.degrees == 0
nh.check_close("the step written out in PyTorch gives the dots of the default figure", np.roll(change, 35),
               base.measured, rtol=1e-9)                # circle point k is at 5° k: roll to -175°, …, 180°
nh.check_close("infinite-width Θ(x₀, x₀) of the depth-2 ReLU network",   # an exact kernel: rounding only
               base.limit[at_x0] / base.lr, [6.0], rtol=1e-9)
by_depth = nh.mlp_kernels_by_depth(nh.circle(1)[1], depth=2, activation="relu").ntk[:, 0, 0]
nh.check_close("Θ(x₀, x₀) at depths 1 and 2: 2 from each weight layer", by_depth, [4.0, 6.0], rtol=1e-9)
nh.check_close("the rise of f(x₀), as quoted", base.at(0), 0.61, atol=0.005)
nh.check_close("this network's own Θ(x₀, x₀), as quoted", base.predicted[at_x0] / base.lr, [6.15],
               atol=0.005)
rise = {lr: tour.one_step(relu, width=1024, lr=lr, seed=0).at(0) for lr in (1 / 6, 0.5)}
nh.check_close("η = 1/6: the rise of f(x₀), as quoted", rise[1 / 6], 1.02, atol=0.005)
nh.check_close("η = 0.5: the rise of f(x₀), as quoted", rise[0.5], 3.02, atol=0.005)
nh.check_between("the smallest change on the circle (positive: no input went down)", base.measured.min(),
                 0.045, 0.055)
nh.check_that("depth 2: the infinite-width NTK is positive at every angle", bool((base.limit > 0).all()),
              measured=base.limit.min(), expected="> 0")
shallow = tour.one_step(nh.mlp(depth=1, activation="relu"), width=1024, lr=0.1, seed=0)
far = np.abs(shallow.degrees)
nh.check_that("depth 1: the inputs 115°–175° from x₀ went down, those within 110° up",
              bool((shallow.measured[(far > 112) & (far < 178)] < 0).all()
                   and (shallow.measured[far < 112] > 0).all()),
              measured=np.round(far[shallow.measured < 0]).tolist(), expected="115, …, 175")
nh.check_between("depth 1: the lowest change (quoted about −0.03)", shallow.measured.min(), -0.035, -0.025)
nh.check_close("depth 1, infinite width: the lowest normalized NTK (quoted −0.07)",
               tour.angle_profile(1, "relu").values.min(), -0.07, atol=0.005)
nh.check_between("first-order gap at width 1024, η = 0.1 (quoted 0.40 %)", base.taylor_gap, 0.00395, 0.00405)
nh.check_between("kernel gap at width 1024 (quoted 3.0 %)", base.width_gap, 0.0295, 0.0305)
smaller = tour.one_step(relu, width=1024, lr=0.05, seed=0)
nh.check_between("first-order gap at η = 0.05 (quoted 0.27 %)", smaller.taylor_gap, 0.00265, 0.00275)
first_order_gap = lambda lr, seed: tour.one_step(relu, width=1024, lr=lr, seed=seed).taylor_gap
halving = [smaller.taylor_gap / base.taylor_gap]
halving += [first_order_gap(0.05, s) / first_order_gap(0.1, s) for s in (1, 2)]
nh.check_close("relu, seeds 0–2: halving η multiplies the first-order gap by 0.64 to 0.90",
               [min(halving), max(halving)], [0.64, 0.90], atol=0.005)
nh.check_that("relu, η = 0.1 and 0.05: (unit, input) pairs switched on or off by the step (quoted 155, 66)",
              [base.switched, smaller.switched] == [155, 66], measured=[base.switched, smaller.switched],
              expected=[155, 66])
tiny = [tour.one_step(relu, width=1024, lr=lr, seed=0) for lr in (1e-4, 5e-5)]
nh.check_that("relu, η = 1e-4 and 5e-5: no unit switches", [t.switched for t in tiny] == [0, 0],
              measured=[t.switched for t in tiny], expected=[0, 0])
nh.check_close("relu, η = 1e-4: halving η halves the first-order gap (quoted 0.500)",
               tiny[1].taylor_gap / tiny[0].taylor_gap, 0.500, atol=0.0005)
nh.check_between("ReLU: halving η removes less than half of the first-order gap",
                 smaller.taylor_gap / base.taylor_gap, 0.55, 0.95)
nh.check_close("halving η leaves the kernel gap as it was", smaller.width_gap, base.width_gap, rtol=1e-9)
erf = [tour.one_step(nh.mlp(depth=2, activation="erf"), width=1024, lr=lr, seed=0).taylor_gap
       for lr in (0.1, 0.05)]
nh.check_close("erf: first-order gap at η = 0.1 and 0.05", erf, [0.0009, 0.0005],
               atol=0.00005)
nh.check_close("erf: halving η halves the first-order gap", erf[1] / erf[0], 0.5, rtol=0.05)
wider = tour.one_step(relu, width=4096, lr=0.1, seed=0)
nh.check_between("first-order gap at width 4096 (quoted 0.11 %)", wider.taylor_gap, 0.00105, 0.00115)
nh.check_between("kernel gap at width 4096, seed 0 (quoted 4.8 %)", wider.width_gap, 0.0475, 0.0485)
# Seed 0's kernel gaps are those of the steps above; seeds 1-5 come without the step (kernel_gap gives
# the same number as one_step's width_gap: tests/test_course_tour.py).
gaps = {width_: [step_.width_gap] + [tour.kernel_gap(relu, width=width_, seed=s) for s in range(1, 6)]
        for width_, step_ in ((1024, base), (4096, wider))}
summary = {width_: [min(g), float(np.mean(g)), max(g)] for width_, g in gaps.items()}
nh.check_close("kernel gap over seeds 0–5, width 1024: smallest, mean, largest (quoted 3.0, 5.7, 9.5 %)",
               summary[1024], [0.030, 0.057, 0.095], atol=0.0005)
nh.check_close("kernel gap over seeds 0–5, width 4096: smallest, mean, largest (quoted 2.2, 3.2, 4.8 %)",
               summary[4096], [0.022, 0.032, 0.048], atol=0.0005)
nh.check_between("four times the width: the mean kernel gap about halves",
                 summary[4096][1] / summary[1024][1], 0.4, 0.7)
orange = base.predicted - base.limit
plus, minus = (orange[np.isclose(base.degrees, angle)][0] for angle in (30, -30))
nh.check_that("width 1024: the orange line is not symmetric about 0° (at +30° and −30°)",
              abs(plus - minus) > 0.01, measured=[plus, minus], expected="a difference above 0.01")

# %% [markdown]
# ## What is known about the NTK
#
# **Why the NTK governs training.** Let $\ell$ be the loss on training inputs $x_1, \dots, x_n$. A gradient
# step moves the parameters by
# $\Delta\theta = -\eta\sum_i \frac{\partial \ell}{\partial f(x_i)}\,\nabla_\theta f(x_i)$, so to first order
# every output moves by
#
# $$\Delta f(x) \approx \nabla_\theta f(x)\cdot\Delta\theta
#   = -\eta\sum_{i=1}^n \Theta(x,x_i)\,\frac{\partial \ell}{\partial f(x_i)} .$$
#
# For the squared loss $\ell = \frac12\sum_i (f(x_i) - y_i)^2$ the last factor is the residual
# $r_i = f(x_i) - y_i$ (in the picture: one input, $r = -1$). Nothing here needs a wide network. What width
# buys is that $\Theta$ stops being random and stops moving.
#
# **The setting.** Every network in this course computes each layer in the *NTK parameterization*:
# $z = \frac{\sigma_w}{\sqrt{\text{fan-in}}}\,W h + \sigma_b\,b$, where $h$ is the layer's input and every entry
# of $W$ and $b$ is drawn from $\mathcal N(0,1)$. It keeps each $z$, and $\Theta$, of order 1 however wide the
# network, at a learning rate of order 1: the setting of the theorems below (lesson 05b compares the standard
# parameterization, where the NTK grows with the width).
#
# **What has been proved**, as the widths of the hidden layers grow to infinity:
#
# | what | proved by |
# |---|---|
# | at initialization the NTK converges to a fixed kernel $\Theta_\infty$, set by the architecture | Jacot, Gabriel & Hongler 2018; Yang 2019, *Scaling limits of wide neural networks with weight sharing* |
# | during training, up to any finite time and for a general loss whose gradient stays bounded, it stays at $\Theta_\infty$ | Jacot et al. 2018 |
# | with the squared loss, training then has a closed form at every time, ending at $f_0$ plus kernel regression with $\Theta_\infty$ on $y - f_0$ | Lee et al. 2019 |
#
# The training results assume a smooth activation; ReLU needs other proofs. Lesson 01 states the conditions
# and shows when the kernel moves instead.
#
# <details><summary>The hypotheses, one by one (click to open)</summary>
#
# - *At initialization*: Jacot et al. (Theorem 1), for a Lipschitz activation, let the widths grow one after another (the first hidden
#   layer's to infinity, then the second's, …); Yang (2019) proves the same limit with all widths growing
#   together, for a wide class of architectures; Arora et al. (2019) bound the distance at a finite width for
#   ReLU networks.
# - *During training*: Jacot et al. (Theorem 2) use gradient flow, the widths growing one after another, an
#   activation that is Lipschitz and twice differentiable with a bounded second derivative, and a loss whose
#   gradient with respect to the outputs stays bounded up to the training time $T$ (its integral over $[0, T]$
#   stays stochastically bounded).
# - *Squared loss*: Lee et al. (Theorem 2.1) use gradient descent at a small enough learning rate, a
#   positive-definite $\Theta_\infty$, all widths growing together, and an activation with a Lipschitz
#   derivative; the network then stays close to its linear model for all training time.
# - *ReLU* has a kink at 0. Results of the same kind come from Du, Zhai, Póczos & Singh (2019) for one hidden
#   layer, and from Arora et al. (2019): a trained ReLU network with a small output scale predicts close to
#   kernel regression with $\Theta_\infty$ on $y$.
#
# </details>

# %% [markdown]
# ## One description, two worlds
#
# In this course an architecture is written once, for example `nh.mlp(depth, activation)`, and that one
# description gives both sides of the theorems above: a finite PyTorch network you can train, and the exact
# infinite-width kernels. Every lesson puts the two side by side.

# %%
tour.draw_course_map()
plt.show()

# %% [markdown]
# ## Check that everything works
#
# Here is that comparison for a depth-2 ReLU network on 5 inputs in $\mathbb R^3$: the exact NTK, and the
# empirical NTK of one random network of width 2048 built from the same description.

# %%
net = nh.mlp(depth=2, activation="relu")       # 2 × (dense → relu), then dense(1)
x = nh.sphere(5, d=3, seed=0)                  # 5 points with |x|² = d
kernel = net.kernel(x)                         # infinite width: exact
model = net.network(3, width=2048, seed=0)     # a finite network of the same architecture
theta = nh.empirical_ntk(model, x)             # its NTK: the 5 × 5 Gram matrix of parameter gradients
relative_error = float((theta - kernel.ntk).norm() / kernel.ntk.norm())
print(net)
print(nh._("NTK diagonal at infinite width: {values}").format(values=kernel.ntk.diagonal().numpy().round(3)))
print(nh._("NTK diagonal at width 2048: {values}").format(values=theta.diagonal().numpy().round(3)))
print(nh._("relative difference of the two 5 × 5 kernels: {error:.1%}").format(error=relative_error))

# %% tags=["check"]
import torch

# Seed 0, as printed (seeds 0-5 give 2.8-10.6 %: one network is one random draw).
nh.check_between("width 2048 vs infinite width: relative difference of the NTK (quoted 3.5 %)",
                 relative_error, 0.0345, 0.0355)
nh.check_close("the empirical NTK is symmetric", theta, theta.T, rtol=1e-12)
smallest = torch.linalg.eigvalsh(theta).min()
nh.check_that("the empirical NTK is positive definite (5 independent gradients)", smallest > 0,
              measured=smallest, expected="> 0")

# %% [markdown]
# ## Try a slider: the kernel by angle
#
# At infinite width, the NTK of a fully connected network between two inputs of the same length depends only
# on the angle between them (a finite network's only roughly: the orange line of the first figure is not
# symmetric about 0°). The **normalized NTK** is
# $\Theta(x,x')/\sqrt{\Theta(x,x)\,\Theta(x',x')}$, which is 1 at angle 0. At infinite width $\Theta(x,x)$ is the
# same for all these inputs, so this divides by the kernel's value at angle 0; a finite network's diagonal
# varies from input to input (as printed above at width 2048), and the formula divides by each input's own. By the one-step picture at
# the top of this lesson, it says how far a step on $x'$ moves $f(x)$ compared with $f(x')$ itself: 1 means as
# far, 0 not at all, −1 as far in the other direction.
#
# The left panel draws it against the angle for the chosen **depth** and **activation**, with depth 1 dashed
# for comparison; its title reads the curve at 30° (neighbours), 90° and 180° (opposite inputs). The right panel shows the same kernel as the 12 × 12 Gram matrix $K$ of 12 inputs
# 30° apart around the circle (red: close to 1, white: 0, blue: negative), the matrix that kernel regression
# would use. Its title gives the matrix's **effective rank** $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$: 12
# if the kernel related no two of the inputs ($K = I$), 1 if it could not tell them apart at all (every entry
# 1). All networks here have $\sigma_w = \sqrt2$ and no bias. Try a few settings, then answer the questions
# under the figure.

# %%
def draw(depth, activation):
    profile = tour.angle_profile(depth, activation)        # normalized NTK by angle, cached
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.3), width_ratios=[1.3, 1])
    left.plot(profile.degrees, profile.depth_one, "--", color="0.6", label=nh._("depth 1"))
    left.plot(profile.degrees, profile.values, label=nh._("depth {depth}").format(depth=depth))
    left.set(xlabel=nh._("angle between the two inputs (degrees)"), ylabel=nh._("normalized NTK"),
             xticks=range(0, 181, 30), ylim=(-1.08, 1.08))
    left.set_title(tour.profile_title(profile), fontsize=10)
    left.legend(loc="upper right")
    nh.plotting.heatmap(right, profile.gram, title=tour.gram_title(profile),
                        xlabel=nh._("point index j (angle 30°·j)"),
                        ylabel=nh._("point index i (angle 30°·i)"),
                        symmetric=True, vmax=1.0, colorbar_label=nh._("normalized NTK (correlation)"))
    right.set_title(right.get_title(), fontsize=10)


# %% tags=["nbval-ignore-output"]
print(tour.settings_note(depth=2, activation="relu"))
nh.widgets.live_figure(draw, depth=nh.widgets.depth_slider(2, max=50),
                       activation=nh.widgets.activation_dropdown("relu"))

# %% [markdown]
# **Predict, then check.** Make each prediction before you move the controls.
#
# 1. Take relu and move the depth from 2 to 50. At depth 50, does the kernel still tell two inputs 30° apart
#    from two opposite ones? Is leaky_relu any different? And does the right panel's effective rank fall with
#    depth, as "forgetting the angle" suggests?
#
# <details><summary>Answer</summary>
#
# Hardly. At depth 50 ReLU gives 0.34 at 30°, 0.29 at 90° and 0.28 at 180°: the curve is nearly flat, almost
# one value for every pair of different inputs, while each input with itself stays at 1. leaky_relu (slope 0.01) gives the
# same to two decimals. Deep ReLU kernels forget the angle slowly, and in the limit completely: as the depth
# grows every value off the diagonal tends to ¼, whatever the angle. What survives is the gap between an input
# and every other one, 1 on the diagonal against ¼ off it: the kernel never confuses two inputs. So the effective rank does not fall, it *rises*: 4.5 at
# depth 2, 6.1 at depth 50, towards 7.1, the effective rank of $\frac34 I + \frac14\mathbf 1\mathbf 1^\top$ for 12
# inputs. With 1 on the diagonal the effective rank is $n^2/\sum_{ij}K_{ij}^2$: it is small only when many
# entries off the diagonal are near ±1, and deep ReLU's are near ¼. Lesson 02 derives the ¼.
#
# </details>
#
# 2. Predict erf's value at 180° at depth 1 and at depth 50 before you look, and say which property of erf
#    decides it. And why does identity look the same at every depth?
#
# <details><summary>Answer</summary>
#
# Exactly −1 at 180°, at every depth, for erf, tanh and identity alike: all three are odd,
# $\phi(-u) = -\phi(u)$, and an odd activation without bias makes
# the network odd, $f(-x) = -f(x)$, so $\nabla_\theta f(-x) = -\nabla_\theta f(x)$ and
# $\Theta(x,-x) = -\Theta(x,x)$. The identity, a linear network, gives $\cos\theta$ at every depth (0.87 at
# 30°): every term of its NTK is a constant times $x\cdot x'$, and normalizing divides the constant out. Its
# Gram matrix has effective rank exactly 2: its entries
# $\cos(\theta_i - \theta_j) = \cos\theta_i\cos\theta_j + \sin\theta_i\sin\theta_j$ make a matrix of rank 2,
# with two equal eigenvalues.
#
# </details>
#
# 3. GELU is smooth, and near 0 almost linear: $\mathrm{GELU}(u) = u\,\Phi(u) \approx u/2$, with $\Phi$ the
#    Gaussian distribution function. At $\sigma_w = \sqrt2$ without bias, each GELU layer also shrinks the
#    signal, its variance by about half once it is small. Using what the identity just did, predict: is gelu's
#    curve at depth 50 nearly flat, like relu's? Then predict whether the curve at depth 50 lies above or below
#    the one at depth 10, and check both.
#
# <details><summary>Answer</summary>
#
# Not flat: at depth 50 gelu gives 0.64 at 30° and 0.40 at 180°, so it still tells neighbours from opposite
# inputs, though less sharply than at depth 1 (0.82 and −0.05). The signal shrinks at every layer (its variance
# at depth 50 is $2.6\cdot10^{-12}$), so the deep layers all work near 0, where GELU is almost linear, and like
# the identity they pass the angle on: from about layer 20 on, the signal's correlation is frozen (0.80 at 30°,
# 0.60 at 180°).
#
# The depth-50 curve lies *above* the depth-10 one (0.54 at 30°, 0.16 at 180°). The NTK adds up one term per
# layer (lesson 02): the signal's covariance at that layer, times one backward factor
# $\dot\Sigma = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]$ for each layer above it. Near 0 GELU's slope is ½, so
# each deep layer's $\dot\Sigma$ is about $2\cdot\frac14 = \frac12$, while the signal's variance halves per layer:
# the terms of all the deep layers have the same size, and each carries roughly the frozen correlation. The
# deeper the network, the larger their share, so the curve climbs towards 0.80 and 0.60. Lesson 02 shows how
# $\sigma_w$ and the bias decide such regimes.
#
# </details>
#
# 4. Now look (this one lesson 02 explains): erf and tanh at depth 50. What has become of two inputs only 30°
#    apart?
#
# <details><summary>Answer</summary>
#
# They are as unrelated as two orthogonal inputs: erf gives 0.00 at 30° and tanh 0.01. At $\sigma_w = \sqrt2$
# both are in the *chaotic* phase, where every layer pushes nearby inputs further apart. At depth 50 only
# inputs a few degrees apart (or a few degrees from opposite) keep a visible correlation: tanh gives 0.24 at
# 5°, erf already 0.00. The Gram matrix is now 1 on the diagonal, −1 for the 6 opposite pairs and about 0
# elsewhere: effective rank 6.0. Lesson 02 derives where order ends and chaos begins.
#
# </details>

# %% tags=["check"]
import numpy as np
import torch

# The kernels are exact (closed forms, or quadrature good to about 1e-10); the answers quote them to 2
# decimals, so each quoted value is within 0.005 of the kernel.
at = lambda depth, activation, *angles: [tour.angle_profile(depth, activation).at(a) for a in angles]
nh.check_close("relu, depth 50: normalized NTK at 30°, 90°, 180°", at(50, "relu", 30, 90, 180),
               [0.34, 0.29, 0.28], atol=0.005)
nh.check_close("leaky_relu, depth 50: the same to two decimals", at(50, "leaky_relu", 30, 90, 180),
               [0.34, 0.29, 0.28], atol=0.005)
off_diagonal = tour.angle_profile(50, "relu").gram[~np.eye(12, dtype=bool)]
nh.check_between("relu, depth 50: spread of the off-diagonal values", np.ptp(off_diagonal), 0.0, 0.06)
nh.check_between("relu, depth 1000: the value at 180° approaches ¼", at(1000, "relu", 180)[0], 0.25, 0.26)
ranks = [tour.gram_rank(tour.angle_profile(depth, "relu")) for depth in range(2, 51)]
nh.check_close("relu: effective rank of the 12 × 12 Gram matrix at depths 2 and 50", [ranks[0], ranks[-1]],
               [4.5, 6.1], atol=0.05)
nh.check_that("relu: the effective rank rises at every depth from 2 to 50", bool((np.diff(ranks) > 0).all()),
              measured=np.diff(ranks).min(), expected="> 0")
limit = np.full((12, 12), 0.25) + 0.75 * np.eye(12)
nh.check_close("the effective rank of ¾ I + ¼ 11ᵀ for 12 inputs", np.trace(limit) ** 2 / (limit ** 2).sum(),
               7.1, atol=0.05)
nh.check_between("relu, depth 1000: the effective rank approaches it", tour.gram_rank(tour.angle_profile(1000,
                 "relu")), 7.0, 64 / 9)
nh.check_close("gelu, depth 50: normalized NTK at 30° and 180°", at(50, "gelu", 30, 180), [0.64, 0.40],
               atol=0.005)
nh.check_close("gelu, depth 10: normalized NTK at 30° and 180°", at(10, "gelu", 30, 180), [0.54, 0.16],
               atol=0.005)
nh.check_close("gelu, depth 1: normalized NTK at 30° and 180°", at(1, "gelu", 30, 180), [0.82, -0.05],
               atol=0.005)
variance = nh.mlp_kernels_by_depth(nh.circle(1)[1], depth=50, activation="gelu").nngp[:, 0, 0]
nh.check_close("gelu: the output's variance at depth 50 (quoted 2.6e-12)", variance[-1], 2.6e-12, rtol=0.02)
ratios = variance[1:] / variance[:-1]
nh.check_that("gelu: every layer shrinks the variance", bool((ratios < 1).all()), measured=ratios.max(),
              expected="< 1")
nh.check_close("gelu: the variance halves at each deep layer", variance[-1] / variance[-2], 0.5, rtol=0.01)
degrees = torch.tensor([0.0, 30.0, 180.0], dtype=torch.float64).deg2rad()
points = 2 ** 0.5 * torch.stack([degrees.cos(), degrees.sin()], 1)    # x₀, and inputs 30° and 180° from it
deep = nh.mlp_kernels_by_depth(points, depth=100, activation="gelu")
correlation = lambda k: (k[:, 0, 1:] / k[:, 0, :1]).numpy()           # per depth: at 30° and at 180°
signal, ntk = correlation(deep.nngp), correlation(deep.ntk)
nh.check_close("gelu: the signal's correlation at depth 50 (quoted 0.80 and 0.60)", signal[49], [0.80, 0.60],
               atol=0.005)
nh.check_close("gelu: the signal's correlation is frozen from depth 20 on", signal[19], signal[49],
               atol=0.002)
theta_xx, sigma_xx = deep.ntk[:, 0, 0], deep.nngp[:, 0, 0]    # Θ^(l+1) = Σ^(l+1) + Σ̇^(l+1) Θ^(l), diagonal
nh.check_close("gelu: a deep layer's backward factor Σ̇(x, x) is ½", float((theta_xx[49] - sigma_xx[49])
               / theta_xx[48]), 0.5, rtol=0.01)
nh.check_that("gelu: from depth 50 to 100 the NTK climbs towards the frozen correlation",
              bool(((ntk[49] < ntk[99]) & (ntk[99] < signal[49])).all()), measured=ntk[99],
              expected="between depth 50's NTK and the correlation")
for depth in (1, 50):
    nh.check_close("erf, tanh, identity: exactly −1 at 180°",
                   [at(depth, a, 180)[0] for a in ("erf", "tanh", "identity")], [-1.0] * 3, atol=1e-9)
nh.check_close("erf and tanh, depth 50: normalized NTK at 30°", at(50, "erf", 30) + at(50, "tanh", 30),
               [0.00, 0.01], atol=0.005)
nh.check_close("erf and tanh, depth 50: normalized NTK at 5°", at(50, "erf", 5) + at(50, "tanh", 5),
               [0.00, 0.24], atol=0.005)
regimes = [nh.signal_regime(a, sigma_w=2 ** 0.5, sigma_b=0.0).name for a in ("erf", "tanh")]
nh.check_that("erf and tanh at σ_w = √2 without bias are in the chaotic phase", regimes == ["chaotic"] * 2,
              measured=", ".join(regimes), expected="chaotic, chaotic")
nh.check_close("identity: cos 30° at depths 1 and 50", at(1, "identity", 30) + at(50, "identity", 30),
               [np.cos(np.pi / 6)] * 2, rtol=1e-12)
nh.check_close("identity: effective rank exactly 2", tour.gram_rank(tour.angle_profile(2, "identity")), 2.0,
               rtol=1e-9)
nh.check_close("erf and tanh, depth 50: effective rank 6.0",
               [tour.gram_rank(tour.angle_profile(50, a)) for a in ("erf", "tanh")], [6.0, 6.0], atol=0.05)

# %% [markdown]
# ## The lessons
#
# | lesson | book section | what you will see |
# |---|---|---|
# | [00 start here](00_start_here.ipynb) | — | what the NTK is, this map, notation, glossary, a first slider |
# | [01 NTK basics](01_ntk_basics.ipynb) | overview §1–3 | a wide network learns like its linearization: the NTK in ten lines, one gradient step, why the kernel stays fixed |
# | [02 MLP recursion](02_mlp_recursion.ipynb) | 4.1 | the layer-by-layer recursion, kernel collapse done right, order and chaos |
# | [03 CNN](03_cnn.ipynb) | 4.2 | pixel-pair kernels, shift invariance needs pooling, digits, stride/dilation, max vs average pooling |
# | [04 ResNet](04_resnet.ipynb) | 4.3 | branch scaling α = 1, 1/√L, 1/L: exponential vs bounded NTK |
# | [05a normalization](05a_normalization.ipynb) | 4.4.1 | layer norm's scale invariance and its limits, batch norm's batch coupling |
# | [05b parameterization](05b_parameterization.ipynb) | 4.4.2 | NTK, standard and μP parameterizations: one table of width exponents, lazy vs feature learning |
# | [06 activations](06_activations.ipynb) | 4.5 | ReLU vs tanh: homogeneity, eigen-decay (power law vs faster), parity and depth, order/chaos, comparison table, spectral bias |
# | [07 training dynamics](07_training_dynamics.ipynb) | 4.4.2, overview §3, §7.1 | the closed-form dynamics vs real gradient descent, lazy training vs μP, early stopping, the ensemble band against the spread over initializations, which targets a kernel can learn |
# | [08 effective rank](08_effective_rank.ipynb) | overview §4, chapter summary | the $r_\infty$ law, what values near 1 mean, when the Gram matrix is singular, why it bounds nothing; the chapter in one table |
#
# Exercises 4.1–4.9 (4.1–4.8 are the chapter's, 4.9 goes with lesson 07), graded automatically with nbgrader (the README
# explains how to submit):
#
# | exercise | student notebook | lesson |
# |---|---|---|
# | 4.1 the role of $\dot\Sigma$, the identity activation | [ex4_1_sigma_dot](../exercises/chapter4/ex4_1_sigma_dot.ipynb) | 02 |
# | 4.2 CNN shift symmetries | [ex4_2_cnn_symmetry](../exercises/chapter4/ex4_2_cnn_symmetry.ipynb) | 03 |
# | 4.3 ResNet depth scaling | [ex4_3_resnet_depth](../exercises/chapter4/ex4_3_resnet_depth.ipynb) | 04 |
# | 4.4 ReLU vs erf | [ex4_4_relu_vs_erf](../exercises/chapter4/ex4_4_relu_vs_erf.ipynb) | 06 |
# | 4.5 how μP leaves the kernel regime | [ex4_5_mup](../exercises/chapter4/ex4_5_mup.ipynb) | 05b |
# | 4.6 alternatives to max pooling | [ex4_6_pooling](../exercises/chapter4/ex4_6_pooling.ipynb) | 03 |
# | 4.7 collapse and effective rank of a 50-layer MLP | [ex4_7_collapse_rank](../exercises/chapter4/ex4_7_collapse_rank.ipynb) | 02, 08 |
# | 4.8 activation and double descent | [ex4_8_double_descent](../exercises/chapter4/ex4_8_double_descent.ipynb) | 06 |
# | 4.9 early stopping is an implicit ridge | [ex4_9_early_stopping](../exercises/chapter4/ex4_9_early_stopping.ipynb) | 07 |

# %% [markdown]
# ## How to use the lessons
#
# - **Run All** first (menu *Run → Run All Cells*); every lesson finishes in under a minute on 2 CPU cores (measured by the build).
# - **Predict, then check.** After every slider and at the end of each lesson come questions; some ask you to
#   change a setting in a cell and re-run it. Write down your prediction before you open its **Answer**.
# - **Sliders** redraw a plot when you move them. Click a slider and use the arrow keys for single steps.
# - **Check cells** (shown collapsed: click to open) hold the lesson's claims, one ✓ line each, tested every
#   time the lesson runs. If you change a parameter and a check fails, you have found the edge of a claim: the
#   message says what was expected and what was measured.
# - Everything is seeded: the same numbers appear on every run.
# - If you know the textbook or the overview: the last section of each lesson lists, collapsed, where they
#   differ from what the lesson shows, and [ERRATA.md](../ERRATA.md) lists every such point.
# - Lecturers: `nh.plotting.use_style(lecture=True)` makes every plot projector-sized.

# %% [markdown]
# ## Notation
#
# | symbol | code name | meaning |
# |---|---|---|
# | $x, x'$ | `x1`, `x2` | inputs (rows of a batch); $d$ = input dimension |
# | $L$ | `depth` | number of hidden layers (an MLP has $L$ × (dense → activation), then a linear readout) |
# | $m$ | `width` | number of units per hidden layer |
# | $\phi$ | `activation` | the nonlinearity (ReLU, erf, tanh, …) |
# | $\sigma_w, \sigma_b$ | `sigma_w`, `sigma_b` | weight and bias scales (neural-tangents' `W_std`, `b_std`) |
# | $\Sigma^{(l)}(x,x')$ | `kernel.nngp` | covariance of one unit's pre-activation at initialization (the NNGP kernel) |
# | $\Theta^{(l)}(x,x')$ | `kernel.ntk` | the neural tangent kernel |
# | $E, \dot E$ | `activation.dual` | $\mathbb E[\phi(u)\phi(v)]$ and $\mathbb E[\phi'(u)\phi'(v)]$ for Gaussian $(u,v)$ |
# | $\dot\Sigma^{(l)}(x,x')$ | — | $\sigma_w^2\,\dot E$ evaluated at $\Sigma^{(l-1)}$: the factor by which a layer multiplies the NTK below it, $\Theta^{(l)} = \Sigma^{(l)} + \dot\Sigma^{(l)}\,\Theta^{(l-1)}$ |
# | $\chi_1$ | `chi1` | slope of the correlation map at $c=1$: order ($<1$) vs chaos ($>1$) (Poole et al. 2016; Schoenholz et al. 2017) |
# | $r_\text{eff}$ | `effective_rank` | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
#
# All networks use the **NTK parameterization**: $z = \frac{\sigma_w}{\sqrt{\text{fan-in}}} W h + \sigma_b b$
# with every entry of $W, b$ drawn from $\mathcal N(0,1)$ (lesson 05b compares it with the standard
# parameterization and μP).

# %% [markdown]
# ## Glossary · 术语表
#
# The words the lessons use, each with the one Chinese term of the Chinese edition. Open it when a word is
# new.
#
# <details><summary>Glossary (click to open)</summary>
#
# | English | 中文 | in one line |
# |---|---|---|
# | neural tangent kernel (NTK) | 神经正切核 | inner product of parameter gradients: $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$ |
# | NNGP kernel | 神经网络高斯过程核 | covariance of the network output over random initializations |
# | infinite-width limit | 无限宽极限 | width → ∞: the NTK becomes deterministic and, under conditions (lesson 01), stays fixed during training |
# | NTK parameterization | NTK 参数化 | weights $\mathcal N(0,1)$, scaled by $\sigma_w/\sqrt{\text{fan-in}}$ in the forward pass |
# | dual activation | 对偶激活（核）函数 | how an activation maps the Gaussian covariance: $E$ and $\dot E$ |
# | kernel collapse | 核退化 | with depth, the normalized kernel forgets the angle between inputs: its values off the diagonal tend to a limit that no longer depends on the angle (odd activations keep −1 for opposite inputs); whether (a linear network never does), how fast and towards which limit depend on the activation and $\sigma_w$ (lesson 02); forgetting the angle is not making inputs alike: deep ReLU without bias tends to ¼ off the diagonal, against 1 on it |
# | edge of chaos | 混沌边缘 | $\chi_1 = 1$, between the ordered and the chaotic phase |
# | effective rank | 有效秩 | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
# | lazy training | 惰性训练 | the kernel barely moves while the network fits the data |
# | feature learning | 特征学习 | hidden representations change by $O(1)$ (e.g. under μP, Yang & Hu 2021) |
# | global average pooling | 全局平均池化 | average over all pixel positions |
# | kernel regression | 核回归 | predict with $K_{*X} K_{XX}^{-1} y$ |
#
# </details>

# %% [markdown]
# ## Check your understanding
#
# 1. A network has $P$ parameters and you compute its NTK on $n$ inputs. What shape is the matrix, why is it
#    positive semi-definite, and what bounds its rank?
#
# <details><summary>Answer</summary>
#
# It is $n \times n$: $\Theta = J J^\top$ with $J$ the $n \times P$ matrix whose rows are the gradients
# $\nabla_\theta f(x_i)$. A Gram matrix is positive semi-definite,
# $v^\top J J^\top v = \lVert J^\top v\rVert^2 \ge 0$, and its rank is at most $\min(n, P)$.
#
# </details>
#
# 2. The dashed depth-1 relu curve of the slider ends at exactly 0 at 180°. Predict: does a *finite* network
#    with one hidden ReLU layer and no bias, of width 64, also give $\Theta(x,-x) = 0$, and why? Why does the
#    depth-2 network (0.11 at 180°) not?
#
# <details><summary>Answer</summary>
#
# Yes, exactly 0, at every width and every seed. The pre-activation of hidden unit $i$ at $-x$ is
# $-w_i\cdot x$, so each unit is on for exactly one of the two inputs ($w_i\cdot x = 0$ has probability 0). The
# gradient with respect to the readout holds the unit's outputs $\mathrm{ReLU}(w_i\cdot x)$ and
# $\mathrm{ReLU}(-w_i\cdot x)$, the gradient with respect to $w_i$ its slopes: in both, one of the two factors
# is 0, so every product in $\nabla_\theta f(x)\cdot\nabla_\theta f(-x)$ vanishes. With two hidden layers the
# second layer's pre-activations at $x$ and $-x$ mix two sets of active first-layer units with random weights:
# they are not opposite, and many second-layer units are on for both inputs.
#
# </details>
#
# 3. You train the depth-2 ReLU network of the first picture on two inputs 30° apart, with the squared loss.
#    To first order, what is the largest learning rate at which gradient descent converges whatever the
#    targets? Use $\Theta(x,x) = 6$ and the slider's depth-2 reading at 30°. Is it larger or smaller than the
#    $2/6 \approx 0.33$ of a single input?
#
# <details><summary>Answer</summary>
#
# About 0.19, smaller. On the training inputs each step multiplies the vector of residuals by
# $I - \eta\Theta$, with $\Theta = 6\begin{pmatrix}1 & 0.75\\ 0.75 & 1\end{pmatrix}$. Its eigenvalues are
# $6(1 \pm 0.75) = 10.5$ and $1.5$, for the residuals $(1, 1)$ and $(1, -1)$, and both factors
# $|1 - \eta\lambda|$ stay below 1 only for $\eta < 2/\lambda_\text{max} = 2/10.5 \approx 0.19$. Two close
# inputs push each other's outputs the same way, so a common residual is corrected almost twice as fast, and
# overshoots at a smaller rate. Width 1024 agrees: with both targets 1 above the outputs, five steps at
# $\eta = 0.15$ shrink the residuals, five at $\eta = 0.25$ make them grow. Lesson 07 does the same for a whole
# training set.
#
# </details>
#
# 4. Two networks of the same architecture, both infinitely wide, start from different random seeds. Do their
#    outputs at initialization agree? Their NTKs? Which kernel describes what, and what does that mean for the
#    two trained networks (squared loss)?
#
# <details><summary>Answer</summary>
#
# The outputs do not: at infinite width $f_0$ is a random function, a Gaussian process whose covariance is the
# NNGP kernel $\Sigma$, and each seed draws another one. The NTKs do: both are the deterministic
# $\Theta_\infty$, the kernel of the training steps. So the two trained networks differ only through their
# starts: each ends at its $f_0$ plus kernel regression with $\Theta_\infty$ on $y - f_0$ (for a positive-definite
# $\Theta_\infty(X,X)$ and a small learning rate; for ReLU this rests on Arora et al. 2019; lesson 01 gives the conditions). Their mean over
# seeds is kernel regression on $y$; their spread involves both kernels (lesson 07).
#
# </details>
#
# 5. Why does the normalized NTK always lie between −1 and 1?
#
# <details><summary>Answer</summary>
#
# It is $\nabla_\theta f(x)\cdot\nabla_\theta f(x')$ divided by
# $\lVert\nabla_\theta f(x)\rVert\,\lVert\nabla_\theta f(x')\rVert$, the cosine of the angle between two
# gradient vectors; the Cauchy–Schwarz inequality bounds it by 1 in absolute value. It is 1 exactly when the two
# gradients point the same way.
#
# </details>

# %% tags=["check"]
# Question 2: exact zeros (no bias; ReLU(u)·ReLU(-u) = 0 in floating point too). Question 3: the exact
# 2 × 2 NTK, and five steps of real gradient descent on the two inputs.
opposite = torch.tensor([[2 ** 0.5, 0.0], [-(2 ** 0.5), 0.0]], dtype=torch.float64)
at_180 = tour.angle_profile(1, "relu").at(180)
nh.check_that("one hidden ReLU layer, infinite width: 0 at 180°", abs(at_180) < 1e-12, measured=at_180,
              expected=0)
for width_, seed_ in ((64, 0), (64, 1), (1024, 2)):
    shallow_net = nh.mlp(depth=1, activation="relu").network(2, width=width_, seed=seed_)
    cross = float(nh.empirical_ntk(shallow_net, opposite)[0, 1])
    nh.check_that("one hidden ReLU layer, finite width: Θ(x, −x) = 0 exactly", cross == 0.0, measured=cross,
                  expected=0)
deep_ntk = nh.empirical_ntk(nh.mlp(depth=2, activation="relu").network(2, width=1024, seed=0), opposite)
nh.check_between("two hidden layers, width 1024: Θ(x, −x) / Θ(x, x) is not 0 (about 0.11)",
                 float(deep_ntk[0, 1] / deep_ntk[0, 0]), 0.105, 0.115)
nh.check_close("two hidden layers, infinite width: the normalized NTK at 180° is 0.11",
               tour.angle_profile(2, "relu").at(180), 0.11, atol=0.005)
thirty = torch.tensor([0.0, np.pi / 6], dtype=torch.float64)
pair = 2 ** 0.5 * torch.stack([thirty.cos(), thirty.sin()], 1)
eigenvalues = torch.linalg.eigvalsh(nh.mlp(depth=2, activation="relu").kernel(pair).ntk)
nh.check_close("two inputs 30° apart: eigenvalues of the 2 × 2 NTK", eigenvalues, [1.5, 10.5], atol=0.02)
nh.check_close("the largest stable learning rate, 2 / λ_max", float(2 / eigenvalues.max()), 0.19, atol=0.005)


def residual_norms(lr, steps=5):
    """|f(X) - y| before and after ``steps`` steps of gradient descent, targets 1 above both outputs."""
    net_ = nh.mlp(depth=2, activation="relu").network(2, width=1024, seed=0)
    params_ = [p for p in net_.parameters() if p.requires_grad]
    with torch.no_grad():
        targets = net_(pair).reshape(-1) + 1.0
    norms = []
    for _step in range(steps + 1):
        residual = net_(pair).reshape(-1) - targets
        norms.append(float(residual.detach().norm()))
        grads_ = torch.autograd.grad(0.5 * (residual ** 2).sum(), params_)
        with torch.no_grad():
            for p, g in zip(params_, grads_):
                p -= lr * g
    return norms


converging, diverging = residual_norms(0.15), residual_norms(0.25)
nh.check_that("η = 0.15: five steps shrink the residuals", converging[-1] < converging[0],
              measured=converging, expected="a falling residual norm")
nh.check_that("η = 0.25: five steps make them grow", diverging[-1] > diverging[0], measured=diverging,
              expected="a growing residual norm")

# %% [markdown]
# ## Summary
#
# - The NTK $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$ says how far a gradient step on $x'$
#   moves the output at $x$: $\Delta f(x) \approx -\eta\,\Theta(x,x')\,\partial\ell/\partial f(x')$.
# - As the widths grow (NTK parameterization) it becomes a deterministic kernel set by the architecture (Jacot
#   et al. 2018, widths growing one after another; Yang 2019 and Arora et al. 2019, all together). For smooth
#   activations it stays fixed over a finite training time, for a general loss whose gradient stays bounded; with the squared loss training
#   has a closed form at every time, ending at $f_0$ plus kernel regression on $y - f_0$ (Lee et al. 2019). ReLU
#   networks need other proofs. Lesson 01 states when this holds.
# - One description in `ntk_helpers` gives a finite PyTorch network and the exact infinite-width kernels. A
#   finite network's NTK is one random draw around the limit (3.5 % away for the width-2048 network above);
#   only its typical distance shrinks steadily with the width.
# - The normalized NTK reads as a correlation between inputs. Depth makes ReLU's nearly flat without bias (about 0.3 at
#   depth 50) while the effective rank of its Gram matrix rises; at $\sigma_w = \sqrt2$ without bias (their
#   chaotic phase) it drives erf and tanh to 0 except near equal or opposite inputs (exactly −1 at 180°); at
#   this $\sigma_w$ it leaves GELU a smaller but lasting contrast
#   (0.64 at 30° and 0.40 at 180° at depth 50, against 0.82 and −0.05 at depth 1); and it never changes a
#   linear network's $\cos\theta$.
# - Lessons 02–06 take the kernel through each architecture, 07 through training, 08 through its spectrum.

# %% [markdown]
# ## For readers of chapter 4
#
# Each lesson ends with the points where the textbook or the overview says something the lesson shows to be
# false or imprecise, one collapsed block each, with its entry in [ERRATA.md](../ERRATA.md). Two concern what
# this lesson shows.
#
# <details><summary>The kernel predictor of a trained wide network (overview §1)</summary>
#
# **The text says:** a trained wide network "degenerates into" a kernel predictor with the NTK.
#
# **What is true:** two statements with different conditions. The NTK stays fixed over a finite training time
# for a general loss whose gradient stays bounded, in the NTK parameterization at a learning rate that does not grow with the width, for
# smooth activations (Jacot et al. 2018). While the kernel stays fixed, the change $f_t - f_0$ is, for any loss
# and at every time $t$, a combination of the functions $\Theta(\cdot, x_i)$ of the training inputs: a kernel
# predictor in that sense. What needs the squared loss is the closed form, kernel regression, at every $t$:
# $f_t = f_0 + \Theta(\cdot, X)\,\Theta(X, X)^{-1}(I - e^{-\eta\Theta(X, X)\,t})\,(y - f_0(X))$ under gradient
# flow, which ends at $f_0$ plus kernel regression on $y - f_0$, with $f_0$ a random draw from the NNGP (Lee et
# al. 2019). See [errata B1](../ERRATA.md#b1); lessons 01 and 07 show both.
#
# </details>
#
# <details><summary>Deep kernels "become constant or low rank" (§4.1.2)</summary>
#
# **The text says:** with depth, the NTK becomes constant or low rank.
#
# **What is true:** it depends on the activation and its scale. The slider above shows ReLU at depth 50 with 1
# on the diagonal and about 0.28–0.34 off it: not constant, and without bias its normalized NTK tends to
# $\frac34 I + \frac14\mathbf 1\mathbf 1^\top$, which has full rank. In the sense of the effective rank the
# text has a point: that of $\frac34 I + \frac14\mathbf 1\mathbf 1^\top$ is
# $n^2/\sum_{ij}K_{ij}^2 = n^2/(n + n(n-1)/16) = 16n/(n+15)$, below 16 however
# many inputs $n$ there are (7.1 for the slider's 12; 6.1 at depth 50). erf and tanh at $\sigma_w = \sqrt2$
# (the chaotic phase) go the other way: their normalized NTK tends to 0 between any two inputs that are neither
# equal nor opposite. See [errata A4](../ERRATA.md#a4); lesson 02 derives both, lesson 08 treats the effective
# rank.
#
# </details>

# %% [markdown]
# **Next:** [01 · NTK basics](01_ntk_basics.ipynb)
