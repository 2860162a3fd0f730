# %% [markdown]
# # 00 · Start here: a map of the NTK lessons
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/00_start_here.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F00_start_here.ipynb)
# [中文版 / Chinese edition](zh/00_start_here.ipynb)
#
# These notebooks teach the **neural tangent kernel** (NTK): what it is, why a very wide network trains like a
# kernel method, and how the architecture (depth, activation, convolutions, residual connections,
# normalization) decides which kernel it is. Everything is plain PyTorch, and every lesson runs in under a
# minute on a laptop. The lessons follow chapter 4 of a textbook and an NTK overview and keep the textbook's
# section numbers (4.1, 4.2, …) in their headings, but you need neither text: each lesson states the results
# it uses, with the papers that prove them.

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
# - what has been proved about it as the width grows, and by whom;
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
# Take one gradient step on a single training input $x_0$: the network's output moves on *every* input $x$,
# and to first order by $\eta\,\Theta(x,x_0)$ times the push, where
# $\Theta(x,x_0) = \nabla_\theta f(x)\cdot\nabla_\theta f(x_0)$ is the neural tangent kernel. The NTK is the
# table of how learning on one input changes the prediction on another, and as the network gets wider this
# table becomes a fixed kernel set by the architecture alone.
#
# Below, a ReLU network of width 1024 whose inputs lie on a circle takes one step of gradient descent, with
# learning rate $\eta = 0.1$, on the input at angle 0°, whose target we set 1 above its current output. The
# dots are how much $f$ changed on 72 inputs around the circle; the lines are the first-order prediction
# $\eta\,\Theta(x,x_0)$, with this network's own NTK and with the infinite-width one.

# %%
import matplotlib.pyplot as plt
import ntk_helpers as nh
from ntk_helpers.course import tour

nh.plotting.use_style()
step = tour.one_step(nh.mlp(depth=2, activation="relu"), width=1024, lr=0.1, seed=0)

fig, ax = plt.subplots(figsize=(7.5, 4.2))
ax.axhline(0, color="0.6", lw=1)
ax.plot(step.degrees, step.measured, "o", ms=4, label=nh._("measured: f after the step − f before"))
ax.plot(step.degrees, step.predicted, "-", label=nh._(r"$\eta\,\Theta(x, x_0)$, this network's NTK"))
ax.plot(step.degrees, step.limit, "--", color="0.3", label=nh._(r"$\eta\,\Theta(x, x_0)$, infinite width"))
ax.set(xlabel=nh._(r"angle between $x$ and the trained input $x_0$ (degrees)"), xticks=range(-180, 181, 60),
       ylabel=nh._(r"change of $f(x)$"))
ax.set_title(nh._(r"One step on $x_0$ moves $f$ everywhere, most near $x_0$"))
ax.legend(loc="upper left", fontsize=9.5)
plt.show()
print(nh._("measured vs first order: {taylor:.1%} apart; this network's NTK vs the limit: {width:.1%} apart")
      .format(taylor=step.taylor_gap, width=step.width_gap))

# %% [markdown]
# **Predict, then check.**
#
# 1. The target was 1 above $f(x_0)$. Did the step get there? Which learning rate would get there in one step,
#    and what happens if you keep stepping with three times that learning rate?
#
# <details><summary>Answer</summary>
#
# No: $f(x_0)$ rose by 0.61, close to $\eta\,\Theta(x_0,x_0) = 0.1 \times 6 = 0.6$ (6 is the infinite-width
# $\Theta(x_0,x_0)$ of this network). Each step multiplies the error $f(x_0) - y_0$ by
# $1 - \eta\,\Theta(x_0,x_0)$, so $\eta = 1/6 \approx 0.17$ lands on the target in one step (to first order).
# At $\eta = 0.5$ the factor is $1 - 3 = -2$: every step overshoots by twice the last error, and training on
# this input diverges. Steps are stable for $\eta < 2/\Theta(x_0,x_0)$; lesson 07 turns this into the
# learning-rate limit of a whole training set.
#
# </details>
#
# 2. Did any input move the other way, down?
#
# <details><summary>Answer</summary>
#
# No: every dot is above 0. This ReLU network's NTK is positive at every angle, so raising $f(x_0)$ raises $f$
# everywhere, least (by 0.05) on the far side of the circle. With an odd activation and no bias (erf, tanh)
# the input opposite $x_0$ would go down by as much as $x_0$ went up, as the slider below shows.
#
# </details>
#
# 3. The dots sit 0.4 % from the solid line, and the solid line 3 % from the dashed one. Which gap would
#    shrink if you halved $\eta$, and which if you made the network wider?
#
# <details><summary>Answer</summary>
#
# The first gap is what the first-order Taylor expansion leaves out: it shrinks with a smaller step (0.3 % at
# $\eta = 0.05$) and with width (0.1 % at width 4096). The second gap compares two kernels, this network's and
# the limit, and does not depend on $\eta$ at all; it shrinks only with width, on average like $m^{-1/2}$.
# Lesson 01 repeats this picture at several widths and measures why the kernel stops moving.
#
# </details>

# %% tags=["check"]
# Seeded, float64: each bound brackets the number the answers quote (the width of its rounding); other seeds
# give other gaps (lesson 01 measures their spread).
relu = nh.mlp(depth=2, activation="relu")
wider = tour.one_step(relu, width=4096, lr=0.1, seed=0)
smaller = tour.one_step(relu, width=1024, lr=0.05, seed=0)
nh.check_close("infinite-width Θ(x₀, x₀) of the depth-2 ReLU network",   # an exact kernel: rounding only
               step.limit[step.degrees == 0] / step.lr, [6.0], rtol=1e-9)
nh.check_close("one step raised f(x₀) by about η Θ(x₀, x₀) = 0.6", step.at(0), 0.6, rtol=0.05)
nh.check_close("the rise of f(x₀), as quoted", step.at(0), 0.61, atol=0.005)
nh.check_between("the smallest change on the circle (positive: no input went down)", step.measured.min(),
                 0.045, 0.055)
nh.check_between("measured vs first order, width 1024, η = 0.1 (quoted 0.4 %)", step.taylor_gap,
                 0.0035, 0.0045)
nh.check_between("this network's NTK vs infinite width (quoted 3 %)", step.width_gap, 0.025, 0.035)
nh.check_between("measured vs first order at η = 0.05 (quoted 0.3 %)", smaller.taylor_gap, 0.0025, 0.0035)
nh.check_between("measured vs first order at width 4096 (quoted 0.1 %)", wider.taylor_gap, 0.0005, 0.0015)
nh.check_close("halving η leaves the kernel gap as it was", smaller.width_gap, step.width_gap, rtol=1e-9)

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
# For the squared loss $\ell = \frac12\sum_i (f(x_i) - y_i)^2$ the last factor is the residual $f(x_i) - y_i$
# (in the picture: one input, residual $-1$). Nothing here needs a wide network. What width buys is that
# $\Theta$ stops being random and stops moving.
#
# **What has been proved**, for networks in the NTK parameterization of the notation below, as the width
# $m \to \infty$:
#
# - *At initialization* the NTK converges to a deterministic kernel $\Theta_\infty$ that a layer-by-layer
#   recursion computes from the architecture (Jacot, Gabriel & Hongler 2018, Theorem 1). Lesson 02 derives the
#   recursion; lessons 03–06 extend it to convolutions, residual blocks, normalization and other activations.
# - *During training* by gradient flow, up to any finite time and for a general loss (the squared loss, the
#   cross-entropy, …), the NTK stays at $\Theta_\infty$: the network trains like a linear model in its
#   parameters, with that fixed kernel (Jacot et al. 2018, Theorem 2, for smooth activations). Lee et al.
#   (2019) show that the network stays close to its first-order Taylor expansion in the parameters under
#   gradient descent.
# - *With the squared loss* the training has a closed form: at the end of training the network is its initial
#   function $f_0$ plus kernel regression with $\Theta_\infty$ on the residuals $y - f_0$, and for a
#   positive-definite $\Theta_\infty$ and a small enough learning rate the approximation holds over all
#   training time (Lee et al. 2019, Theorem 2.1; for ReLU networks, Arora et al. 2019). Lesson 07 tests it
#   against real gradient descent.
#
# Which scalings and learning rates these theorems need, and when the kernel moves instead, is where lesson 01
# begins.

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

# One network of width 2048 is a few % from the limit (the spread shrinks like m^(-1/2): lesson 01); 10 %
# leaves room for any seed.
nh.check_between("width 2048 vs infinite width: relative difference of the NTK", relative_error, 0.0, 0.1)
nh.check_close("the empirical NTK is symmetric", theta, theta.T, rtol=1e-12)
smallest = torch.linalg.eigvalsh(theta).min()
nh.check_that("the empirical NTK is positive definite (5 independent gradients)", smallest > 0,
              measured=smallest, expected="> 0")

# %% [markdown]
# ## Try a slider: the kernel by angle
#
# For two inputs of the same length, the NTK of a fully connected network depends only on the angle between
# them. Dividing by its value at angle 0 gives the **normalized NTK**,
# $\Theta(x,x')/\sqrt{\Theta(x,x)\,\Theta(x',x')}$: a correlation between −1 and 1. By the picture above, it
# says how far a step on $x'$ moves $f(x)$ compared with $f(x')$ itself: 1 means as far, 0 not at all, −1 as
# far in the other direction.
#
# The left panel draws it against the angle for the chosen **depth** and **activation**, with depth 1 dashed
# for comparison; its title reads the curve at 30°, 90° and 180°. The right panel shows the same kernel as the
# 12 × 12 Gram matrix of 12 inputs 30° apart around the circle (red: close to 1, white: 0, blue: negative),
# the matrix that kernel regression would use. All networks here have $\sigma_w = \sqrt2$ and no bias. Try a
# few settings, then answer the questions under the figure.

# %%
def draw(depth, activation):
    profile = tour.angle_profile(depth, activation)        # normalized NTK by angle, cached
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.3), width_ratios=[1.3, 1])
    left.plot(profile.degrees, profile.depth_one, "--", color="0.6", label=nh._("depth 1"))
    left.plot(profile.degrees, profile.values, label=nh._("depth {depth}").format(depth=depth))
    left.set(xlabel=nh._("angle between the two inputs (degrees)"), ylabel=nh._("normalized NTK"),
             xticks=range(0, 181, 30), ylim=(-1.08, 1.08), title=tour.profile_title(profile))
    left.legend(loc="upper right")
    nh.plotting.heatmap(right, profile.gram, title=nh._("the same kernel on 12 inputs 30° apart"),
                        xlabel="point index j (angle 30°·j)", ylabel="point index i (angle 30°·i)",
                        symmetric=True, vmax=1.0, colorbar_label="normalized NTK (correlation)")


# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw, depth=nh.widgets.depth_slider(2, max=50),
                       activation=nh.widgets.activation_dropdown("relu"))

# %% [markdown]
# **Predict, then check.** Make each prediction before you move the controls.
#
# 1. Take relu and move the depth from 1 to 50. At depth 50, does the kernel still tell two inputs 30° apart
#    from two opposite ones? Is leaky_relu any different?
#
# <details><summary>Answer</summary>
#
# Hardly. At depth 50 ReLU gives 0.34 at 30°, 0.29 at 90° and 0.28 at 180°: the curve is nearly flat, almost
# one value for every pair of different inputs, while each input with itself stays at 1. leaky_relu gives the
# same to two decimals. Deep ReLU kernels forget the angle, but slowly, and not completely: as the depth grows
# the value off the diagonal tends to ¼, not to 1, so the kernel matrix keeps its full rank. Lesson 02 derives
# both.
#
# </details>
#
# 2. Predict gelu at depth 50: nearly flat like ReLU, or not? Then compare depth 10 with depth 50.
#
# <details><summary>Answer</summary>
#
# Not flat: at depth 50 gelu gives 0.64 at 30° and 0.40 at 180°, so it still tells neighbours from opposite
# inputs. And it moves the other way from ReLU: at depth 10 it was 0.54 and 0.16, so from depth 10 to 50 the
# curve *rises*. The reason is the scale of the signal. With $\sigma_w = \sqrt2$ and no bias, GELU shrinks the
# variance of the signal at every layer, by a factor that tends to ½ once it is small (the output's variance at
# depth 50 is $2.6\cdot10^{-12}$), and near 0 $\mathrm{GELU}(u) \approx u/2$ is almost linear; linear layers
# pass the angle on unchanged. Lesson 02 shows how $\sigma_w$ and the bias decide such regimes.
#
# </details>
#
# 3. Before you look: what does erf give at 180° and at 30° at depth 50? Why does identity look the same at
#    every depth?
#
# <details><summary>Answer</summary>
#
# Exactly −1 at 180°, at every depth, for erf, tanh and identity alike. An odd activation without bias makes
# the network odd, $f(-x) = -f(x)$, so $\nabla_\theta f(-x) = -\nabla_\theta f(x)$ and
# $\Theta(x,-x) = -\Theta(x,x)$. At 30° and depth 50 erf gives 0.00 and tanh 0.01: at $\sigma_w = \sqrt2$ both
# are in the *chaotic* phase, where nearby inputs decorrelate layer after layer (lesson 02). The identity, a
# linear network, gives $\cos\theta$ at every depth (0.87 at 30°): every term of its NTK is a constant times
# $x\cdot x'$, and normalizing divides the constant out.
#
# </details>

# %% tags=["check"]
import numpy as np

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
nh.check_close("gelu, depth 50: normalized NTK at 30° and 180°", at(50, "gelu", 30, 180), [0.64, 0.40],
               atol=0.005)
nh.check_close("gelu, depth 10: normalized NTK at 30° and 180°", at(10, "gelu", 30, 180), [0.54, 0.16],
               atol=0.005)
variance = nh.mlp_kernels_by_depth(nh.circle(1)[1], depth=50, activation="gelu").nngp[:, 0, 0]
nh.check_close("gelu: the output's variance at depth 50 (quoted 2.6e-12)", variance[-1], 2.6e-12, rtol=0.02)
ratios = variance[1:] / variance[:-1]
nh.check_that("gelu: every layer shrinks the variance", bool((ratios < 1).all()), measured=ratios.max(),
              expected="< 1")
nh.check_close("gelu: the variance halves at each deep layer", variance[-1] / variance[-2], 0.5, rtol=0.01)
for depth in (1, 50):
    nh.check_close("erf, tanh, identity: exactly −1 at 180°",
                   [at(depth, a, 180)[0] for a in ("erf", "tanh", "identity")], [-1.0] * 3, atol=1e-9)
nh.check_close("erf and tanh, depth 50: normalized NTK at 30°", at(50, "erf", 30) + at(50, "tanh", 30),
               [0.00, 0.01], atol=0.005)
regimes = [nh.signal_regime(a, sigma_w=2 ** 0.5, sigma_b=0.0).name for a in ("erf", "tanh")]
nh.check_that("erf and tanh at σ_w = √2 without bias are in the chaotic phase", regimes == ["chaotic"] * 2,
              measured=", ".join(regimes), expected="chaotic, chaotic")
nh.check_close("identity: cos 30° at depths 1 and 50", at(1, "identity", 30) + at(50, "identity", 30),
               [np.cos(np.pi / 6)] * 2, rtol=1e-12)

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
# | [05 normalization & parameterization](05_normalization_parameterization.ipynb) | 4.4 | layer norm, batch norm's batch coupling, NTK vs μP: lazy vs feature learning |
# | [06 activations](06_activations.ipynb) | 4.5 | homogeneity, eigen-decay on circle and sphere, spectral bias, the parity pitfall |
# | [07 training dynamics](07_training_dynamics.ipynb) | overview §3 | the closed-form dynamics vs real gradient descent, lazy training, early stopping |
# | [08 effective rank](08_effective_rank.ipynb) | overview §4 | the $r_\infty$ law, what values near 1 mean, why it bounds nothing |
#
# Exercises 4.1–4.8 of the chapter (automatically graded with nbgrader; the README explains how to submit):
#
# | exercise | student notebook | lesson |
# |---|---|---|
# | 4.1 the role of $\dot\Sigma$, the identity activation | [ex4_1_sigma_dot](../exercises/chapter4/ex4_1_sigma_dot.ipynb) | 02 |
# | 4.2 CNN shift symmetries | [ex4_2_cnn_symmetry](../exercises/chapter4/ex4_2_cnn_symmetry.ipynb) | 03 |
# | 4.3 ResNet depth scaling | [ex4_3_resnet_depth](../exercises/chapter4/ex4_3_resnet_depth.ipynb) | 04 |
# | 4.4 ReLU vs erf | [ex4_4_relu_vs_erf](../exercises/chapter4/ex4_4_relu_vs_erf.ipynb) | 06 |
# | 4.5 how μP breaks the kernel limit | [ex4_5_mup](../exercises/chapter4/ex4_5_mup.ipynb) | 05 |
# | 4.6 alternatives to max pooling | [ex4_6_pooling](../exercises/chapter4/ex4_6_pooling.ipynb) | 03 |
# | 4.7 collapse and effective rank of a 50-layer MLP | [ex4_7_collapse_rank](../exercises/chapter4/ex4_7_collapse_rank.ipynb) | 02, 08 |
# | 4.8 activation and double descent | [ex4_8_double_descent](../exercises/chapter4/ex4_8_double_descent.ipynb) | 06 |

# %% [markdown]
# ## How to use the lessons
#
# - **Run All** first (menu *Run → Run All Cells*); every lesson finishes in under a minute on a laptop.
# - **Predict, then check.** After every slider and at the end of each lesson come questions. Write down your
#   prediction before you open its **Answer**.
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
# | $\chi_1$ | `chi1` | slope of the correlation map at $c=1$: order ($<1$) vs chaos ($>1$) |
# | $r_\text{eff}$ | `effective_rank` | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
#
# All networks use the **NTK parameterization**: $z = \frac{\sigma_w}{\sqrt{\text{fan-in}}} W h + \sigma_b b$
# with every entry of $W, b$ drawn from $\mathcal N(0,1)$ (lesson 05 compares it with the standard
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
# | kernel collapse | 核退化 | deep kernels forget the angle between inputs |
# | edge of chaos | 混沌边缘 | $\chi_1 = 1$, between the ordered and the chaotic phase |
# | effective rank | 有效秩 | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
# | lazy training | 惰性训练 | the kernel barely moves while the network fits the data |
# | feature learning | 特征学习 | hidden representations change by $O(1)$ (e.g. under μP) |
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
# 2. One gradient step on a whole batch, with the loss $\frac12\sum_i (f(x_i) - y_i)^2$ and learning rate
#    $\eta$: to first order, how does $f$ change on a test input $x$ that is not in the batch?
#
# <details><summary>Answer</summary>
#
# $\Delta f(x) \approx -\eta\sum_i \Theta(x,x_i)\,(f(x_i) - y_i)$: each training input pulls $f(x)$ towards
# fitting its own residual, weighted by the kernel between $x$ and it. The test input needs no label; only its
# kernel with the training inputs matters.
#
# </details>
#
# 3. Why does the normalized NTK always lie between −1 and 1?
#
# <details><summary>Answer</summary>
#
# It is $\nabla_\theta f(x)\cdot\nabla_\theta f(x')$ divided by
# $\lVert\nabla_\theta f(x)\rVert\,\lVert\nabla_\theta f(x')\rVert$, the cosine of the angle between two
# gradient vectors; the Cauchy–Schwarz inequality bounds it by 1 in absolute value. It is 1 exactly when the two
# gradients point the same way.
#
# </details>
#
# 4. The NNGP kernel $\Sigma$ and the NTK $\Theta$ are both kernels of the same network. Which one describes
#    the spread of the outputs over random initializations, and which one how gradient descent moves them?
#
# <details><summary>Answer</summary>
#
# $\Sigma$ is the covariance of the outputs over the random initialization: at infinite width $f_0$ is a
# Gaussian process with kernel $\Sigma$. $\Theta$ is the kernel of the training steps, as in the formula for
# $\Delta f(x)$ above. With the squared loss the trained network's mean prediction is kernel regression with
# $\Theta$; its spread over initializations involves both kernels (lesson 07).
#
# </details>
#
# 5. The width-2048 network's NTK was a few percent away from the infinite-width one. Roughly how far would a
#    network of width 8192 be, and why not exactly?
#
# <details><summary>Answer</summary>
#
# About half as far: one network's deviation from the limit shrinks like $m^{-1/2}$, and
# $8192 = 4 \times 2048$. Not exactly, because the deviation is random: another seed gives another number, and
# only its typical size follows $m^{-1/2}$. Lesson 01 measures the slope over many seeds.
#
# </details>

# %% [markdown]
# ## Summary
#
# - The NTK $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$ says how far a gradient step on $x'$
#   moves the output at $x$: $\Delta f(x) \approx -\eta\,\Theta(x,x')\,\partial\ell/\partial f(x')$.
# - As the width grows (NTK parameterization) it becomes a deterministic kernel set by the architecture (Jacot
#   et al. 2018); over a finite training time, for a general loss, it stays fixed; with the squared loss the
#   trained network is $f_0$ plus kernel regression (Lee et al. 2019). Lesson 01 states when this holds.
# - One description in `ntk_helpers` gives a finite PyTorch network and the exact infinite-width kernels; a
#   width-2048 network's NTK is already within a few percent of the limit.
# - The normalized NTK reads as a correlation between inputs. Depth makes ReLU's nearly flat (about 0.3 at
#   depth 50), drives erf and tanh without bias to 0 except at opposite inputs (exactly −1), keeps GELU's
#   angle (0.64 and 0.40 at depth 50), and never changes a linear network's $\cos\theta$.
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
# for a general loss, in the NTK parameterization (or the standard one with a learning rate ∝ 1/width) at a
# learning rate that does not grow with the width (Jacot et al. 2018). The trained network is a kernel
# predictor, $f_0$ plus kernel regression on $y - f_0$ with $f_0$ a random draw from the NNGP, only for the
# squared loss at the end of training (Lee et al. 2019). See [errata B1](../ERRATA.md#b1); lessons 01 and 07
# show both.
#
# </details>
#
# <details><summary>Deep kernels "become constant or low rank" (§4.1.2)</summary>
#
# **The text says:** with depth, the NTK becomes constant or low rank.
#
# **What is true:** it depends on the activation and its scale. The slider above shows ReLU at depth 50 with 1
# on the diagonal and about 0.28–0.34 off it: its normalized NTK tends to
# $\frac34 I + \frac14\mathbf 1\mathbf 1^\top$, which has full rank. See [errata A4](../ERRATA.md#a4); lesson
# 02 derives it.
#
# </details>

# %% [markdown]
# **Next:** [01 · NTK basics](01_ntk_basics.ipynb)
