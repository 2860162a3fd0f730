# %% [markdown]
# # 05b · Parameterization: NTK, standard and μP, lazy training vs feature learning
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/05b_parameterization.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F05b_parameterization.ipynb)
#
# *Chapter 4.4.2.*
#
# **You will learn**
# - to read a parameterization as **powers of the width** $m$: the variance and the learning rate of every layer,
#   biases included, in one table;
# - the **stability and non-triviality conditions** of Yang & Hu (2021) and the exponent $r$ that decides between
#   the kernel regime and feature learning (the *dynamical dichotomy*);
# - how to **derive μP** from one SGD step, and what the initialization names (LeCun, He, Xavier) fix;
# - what **lazy training** means, measured: under the NTK parameterization the features move like $m^{-1/2}$ and
#   the kernel freezes while the output fits the data; under μP features and kernel move by $\Theta(1)$;
# - what the kernel limit is: kernel gradient descent from $f_0$, ridgeless at convergence, under stated conditions.
#
# **Prerequisites:** lessons 01–02 (the NTK, its recursion, and training in the kernel regime).

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
from ntk_helpers.course import parameterization as course   # this lesson's table, experiments and explorer

nh.plotting.use_style()

# %% [markdown]
# ## The idea in one picture
#
# How the weights of a network and their learning rates scale with the width $m$ decides how far one gradient
# step moves its hidden features. If that move shrinks like a power of $m$ while the output still learns, the
# infinite-width network trains with a fixed kernel (lazy, the kernel regime); if it stays of order one, its features
# and its kernel learn (μP).
#
# Why it matters: in the infinite-width limit a network in the kernel regime is a fixed-kernel method. Its features never adapt to the data, so
# it cannot learn representations that pre-training or transfer could reuse (Yang & Hu 2021 make this point with
# word2vec and few-shot learning). And a parameterization whose exponents are right at every width lets
# hyperparameters tuned on a small network carry over to a wide one (μTransfer, Yang et al. 2022).

# %%
idea_widths = [128, 512, 2048]                 # the widths of the one-step measurement below
idea_points = {setting: [course.one_step_changes(setting, m)[1] for m in idea_widths]
               for setting in course.SETTINGS}
course.idea_diagram(idea_widths, idea_points)
plt.show()

# %% [markdown]
# Each line is a prediction for a hidden layer's pre-activations (the $\Delta h^l$ column of the table below),
# derived below; the open circles and squares are its measurement, one SGD step at widths 128, 512 and 2048 (section "Measured:
# one SGD step"), each row's points moved up or down by one constant so that their slope can be compared with
# the line. Under the NTK parameterization a feature moves like
# $m^{-1/2}$, under μP like $m^0$, and under the standard parameterization at a fixed learning rate the first
# step moves it like $m^{1/2}$; that step makes the output weights of size $m^0$, so from the second step on the
# features move like at least $m^{1}$ (exactly $m^1$ while the loss derivative stays $O(1)$) and training blows up. Yang & Hu (2021) prove that for the parameterizations of this kind that stay
# finite and do learn there is no third option (for smooth activations; the conditions are below).

# %% [markdown]
# ## 4.4.2 One table of width exponents
#
# Write the network with its **effective weights**: $h^1 = W^1\xi + b^1$ for an input $\xi \in \mathbb R^d$,
# $x^l = \phi(h^l)$, $h^{l+1} = W^{l+1}x^l + b^{l+1}$ for the hidden layers, $f = W^{L+1}x^L + b^{L+1}$. A
# parameterization says two things about every layer: the variance of the entries of $W^l$ at initialization
# and the learning rate $\eta_l$ with which SGD moves $W^l$. As $m \to \infty$ only their **powers of $m$** matter
# ($d$, the depth and the constants stay fixed):
#
# | | input $W^1$: Var, $\eta_1$ | hidden $W^l$: Var, $\eta_l$ | output $W^{L+1}$: Var, $\eta_{L+1}$ | biases of hidden units: $\eta_b$ | output bias: $\eta_b$ | one step: $\Delta h^1$, $\Delta h^l$, $\Delta f$ | $m \to \infty$ |
# |---|---|---|---|---|---|---|---|
# | **standard**, fixed $\eta$ | $m^0$, $m^0$ | $m^{-1}$, $m^0$ | $m^{-1}$, $m^0$ | $m^0$ | $m^0$ | $m^{-1/2}$, $m^{1/2}$, $m^{1}$ | unstable |
# | **standard**, $\eta \propto 1/m$ | $m^0$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$ | $m^{-1}$ | $m^{-3/2}$, $m^{-1/2}$, $m^0$ | kernel regime |
# | **NTK** | $m^0$, $m^0$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^0$ | $m^0$ | $m^{-1/2}$, $m^{-1/2}$, $m^0$ | kernel regime (lazy) |
# | **μP** | $m^0$, $m^{1}$ | $m^{-1}$, $m^0$ | $m^{-2}$, $m^{-1}$ | $m^{1}$ | $m^0$ | $m^0$, $m^0$, $m^0$ | feature learning |
#
# Every bias has variance $m^0$. The "one step" columns say how far one SGD step from initialization moves the
# input layer's pre-activations $h^1$ and a hidden layer's $h^l$ (both relative to their size, which is $\Theta(1)$)
# and the output $f$ (absolute); the
# next sections derive them from the other columns. The standard and NTK rows have the same variances (the same
# network at initialization) and differ only in the learning rates; μP changes the output layer's variance and
# almost every learning rate.
#
# "Unstable" is a statement about a *fixed* $\eta$ as $m \to \infty$. In practice the standard parameterization
# trains well because $\eta$ is tuned again for each width, and the best $\eta$ shrinks as the network gets wider
# (Yang et al. 2022 measure the shift): a move in the direction of the "$\eta \propto 1/m$" row.

# %% [markdown]
# ### The variance columns: initialization names and stability at initialization
#
# The variance columns are what the initialization schemes fix. **LeCun**: $1/\text{fan-in}$. **He** (Kaiming,
# for ReLU): $2/\text{fan-in}$. **Xavier** (Glorot & Bengio 2010): $2/(\text{fan-in} + \text{fan-out})$, equal to
# $1/\text{fan-in}$ only for square layers. The input layer's fan-in is $d$, so its variance is $m^0$; a hidden or
# output layer's fan-in is $m$, so its variance is $m^{-1}$. The NTK parameterization draws $w \sim \mathcal N(0, 1)$
# and multiplies by $\sigma_w/\sqrt{\text{fan-in}}$ in the forward pass: the effective weight has variance
# $\sigma_w^2/\text{fan-in}$, LeCun's for $\sigma_w = 1$ and He's for $\sigma_w = \sqrt 2$.
#
# The hidden layers' $m^{-1}$ is forced: it keeps every pre-activation of size $\Theta(1)$ at every width. One
# factor $1/m$ more would shrink each layer by $\sqrt m$. Experiment: a three-hidden-layer ReLU network with He's
# variance (the package's NTK parameterization, $\sigma_w = \sqrt 2$), and with variance $2/(\text{fan-in}\cdot m)$.

# %%
init_widths = [64, 256, 1024]
he = [course.preactivation_rms(m) for m in init_widths]
shrunk = [course.preactivation_rms(m, extra_one_over_m=True) for m in init_widths]
init_slopes = course.draw_initialization(init_widths, he, shrunk)
plt.show()

# %% tags=["check"]
for layer in (1, 2, 3):
    nh.check_close("He's variance: slope of the pre-activation RMS in m, per layer (0)",
                   init_slopes["he", layer], 0.0, atol=0.05)
    nh.check_close("variance 2/(fan-in·m): slope of layer l's RMS in m (−l/2)", init_slopes["shrunk", layer],
                   -layer / 2, atol=0.05)
nh.check_close("He's variance: every layer's RMS ≈ √2", np.ravel(he), np.full(9, np.sqrt(2)), rtol=0.05)

# %% [markdown]
# ### Where the table comes from: one SGD step
#
# Take a loss $\ell(f)$ with $\chi = \ell'(f) = \Theta(1)$. Write $s$ for the size of the output weights' entries
# ($\operatorname{Var} W^{L+1} = s^2$), $g^l = \partial f/\partial h^l$ and $x^0 = \xi$. One SGD step changes $W^l$ by
# the rank-one matrix $\Delta W^l = -\eta_l\,\chi\, g^l\,x^{l-1}(\xi)^\top$ (a step on the input $\xi$), so the
# layer's pre-activations at an input $\xi'$ change by
#
# $$\Delta W^l\, x^{l-1}(\xi') \;=\; -\,\eta_l \;\chi\; g^l \;\big(x^{l-1}(\xi)^\top x^{l-1}(\xi')\big)
#   \qquad\text{(learning rate)} \times \text{(gradient per unit)} \times \text{(a sum of many terms)}.$$
#
# - **Gradient per unit.** $g^L = \phi'(h^L)\odot (W^{L+1})^\top$ has entries of size $s$. Going back through a hidden
#   layer, $(W^{l+1})^\top g^{l+1}$ adds $m$ terms of size $m^{-1/2}s$ with random signs: size $s$ again.
# - **Number of summed terms.** $x^{l-1}(\xi)^\top x^{l-1}(\xi')$ adds $d$ terms for the input layer and $m$ for every other
#   layer, and they do **not** cancel: for the same input they are squares, and for another input their average is
#   the feature kernel. The sum is $\Theta(m)$, not the $\Theta(\sqrt m)$ of random signs, for the same input and
#   for generic correlated inputs (for an odd activation without bias and orthogonal inputs the feature kernel is 0
#   and the sum only $\Theta(\sqrt m)$; ReLU's feature kernel is never negative, and it is 0 only at the first
#   hidden layer without bias for antipodal inputs $\xi' = -\xi$, where every term is 0).

# %% [markdown]
# **The output.** It changes in two ways, $\Delta f = \Delta W^{L+1} x^L + W^{L+1}\Delta x^L$. The first term is the same
# rank-one update with $g = 1$: $\eta_{L+1}\chi\,(x^L)^\top x^L \sim \eta_{L+1}\, m$. The second is the output weights
# reading the features' change: $m$ terms of size $s\,\Delta x^L$, aligned because $\Delta x^L$ follows
# $g^L \propto W^{L+1}$. For the same input, to first order, $\Delta x^L_i = \phi'(h^L_i)\,\Delta h^L_i$ with
# $\Delta h^L_i = -\eta_L\chi\,g^L_i\,|x^{L-1}|^2$ (the layer's own term; what the layer below passes on: next
# paragraph) and $g^L_i = \phi'(h^L_i)\,W^{L+1}_i$, so
# $W^{L+1}\Delta x^L = -\eta_L\chi\,|x^{L-1}|^2\sum_i \phi'(h^L_i)^2\,(W^{L+1}_i)^2$: $m$ terms of one sign.
# A bias $b^l$ moves by $\eta_b\,\chi\, g^l$, so its layer moves by $\eta_b s$. Hence, up to
# constants (Yang & Hu 2021),
#
# $$\Delta h^1 \sim \eta_1\, s\, d, \qquad \Delta h^l \sim \eta_l\, s\, m \ \ (\text{hidden}), \qquad
#   \Delta f \sim \eta_{L+1}\, m \;+\; m\, s\, \Delta x^L .$$
#
# Worked example, a hidden layer under the NTK parameterization: $\eta_l = 1/m$, $s = m^{-1/2}$ and $m$ summed
# terms give $\Delta h^l \sim m^{-1}\cdot m^{-1/2}\cdot m = m^{-1/2}$.

# %% [markdown]
# **What the layer below passes on.** A hidden layer also passes on the change of the layer below, $W^l\Delta x^{l-1}$: $m$ terms of size
# $m^{-1/2}\Delta x^{l-1}$ with random signs, so of the size of $\Delta x^{l-1}$ itself (backpropagation builds
# $\Delta x^{l-1}$ through $(W^l)^\top$, so it also has a part aligned with $W^l$, of the same size). In every row of the table
# that is no larger than the layer's own term; Tensor Programs IV makes the whole argument rigorous, over many
# steps too. The biases' terms are never the largest either (every row: $\eta_b s \le$ the weights' term).

# %% [markdown]
# ### Deriving μP
#
# **μP** ("maximal update") asks every layer's features *and* the output to move by $\Theta(1)$:
# - $\Delta f$'s second term with $\Delta x^L = \Theta(1)$ must stay $O(1)$: $m\,s = \Theta(1)$, so $s = 1/m$, an
#   output variance $m^{-2}$ instead of $m^{-1}$;
# - then $\Delta h^1 = \Theta(1)$ needs $\eta_1 \sim m$, a hidden $\Delta h^l = \Theta(1)$ needs $\eta_l \sim 1$,
#   $\eta_{L+1} m = \Theta(1)$ needs $\eta_{L+1} \sim 1/m$, and a hidden unit's bias needs $\eta_b s = \Theta(1)$,
#   $\eta_b \sim m$.
#
# The other rows follow the same way. **NTK**: $s = m^{-1/2}$, $\eta = (1, 1/m, 1/m)$, so $\Delta h^1 \sim
# \Delta h^l \sim m^{-1/2}$ and $\Delta f \sim 1$: the output learns, the features barely move. **Standard, fixed
# $\eta$**: $s = m^{-1/2}$, $\eta = (1, 1, 1)$, so $\Delta h^l \sim m^{1/2}$ and $\Delta f \sim m$: it blows up.
# **Standard with $\eta \propto 1/m$**: $\Delta h^1 \sim m^{-3/2}$, $\Delta h^l \sim m^{-1/2}$, $\Delta f \sim 1$.
# μP fixes only these exponents: the constants in front can be tuned at a small width and carried to any width
# (μTransfer, Yang et al. 2022, Tensor Programs V).

# %% [markdown]
# ### The conditions that decide (Yang and Hu 2021, Tensor Programs IV)
#
# Yang & Hu write every such parameterization as $W^l = m^{-a_l} w^l$ with trainable $w^l \sim \mathcal N(0,
# m^{-2b_l})$, trained by SGD with learning rate $\eta\, m^{-c}$. Then $\operatorname{Var} W^l \propto m^{-2(a_l + b_l)}$
# and, since $\partial\ell/\partial w = m^{-a}\,\partial\ell/\partial W$ and $\Delta W = m^{-a}\Delta w$,
# $\eta_l \propto m^{-(2a_l + c)}$. Their choices for the table's rows:
#
# | | $a$: input, hidden, output | $b$: input, hidden, output | $c$ |
# |---|---|---|---|
# | **standard** | $0,\ 0,\ 0$ | $0,\ \tfrac12,\ \tfrac12$ | $0$ (fixed $\eta$) or $1$ ($\eta \propto 1/m$) |
# | **NTK** | $0,\ \tfrac12,\ \tfrac12$ | $0,\ 0,\ 0$ | $0$ |
# | **μP** | $-\tfrac12,\ 0,\ \tfrac12$ | $\tfrac12,\ \tfrac12,\ \tfrac12$ | $0$ |
#
# With $L$ hidden layers ($W^1$ the input layer, $W^{L+1}$ the output layer), define
#
# $$r = \min\big(a_{L+1} + b_{L+1},\; 2a_{L+1} + c\big) + c - 1 + \min_{l = 1, \dots, L}\big(2a_l + \mathbb 1[l = 1]\big).$$
#
# It is the one-step argument in exponents. During training the output weights have size
# $s = m^{-\min(a_{L+1} + b_{L+1},\ 2a_{L+1} + c)}$: the larger of their initial size $m^{-(a+b)}$ and their
# updates $\eta_{L+1}\chi x^L$, of size $m^{-(2a+c)}$. With $\Delta h^1 \sim \eta_1 s\,d$ and
# $\Delta h^l \sim \eta_l s\, m$, layer $l$'s own change has the exponent
#
# $$e_l = -(2a_l + c) \;-\; \min\big(a_{L+1} + b_{L+1},\; 2a_{L+1} + c\big) \;+\; 1 - \mathbb 1[l = 1].$$
#
# The $\mathbb 1[l = 1]$ is there because the input layer sums $d$ terms, not $m$: one power of $m$ fewer. A change
# passes upward at its own size (end of the one-step section), so the largest $e_l$ sets $\Delta x^L$, and $r$ is
# minus it. Taking the minus sign inside, $-\max_l e_l = \min\big(a_{L+1} + b_{L+1},\ 2a_{L+1} + c\big) + c - 1 +
# \min_l\big(2a_l + \mathbb 1[l = 1]\big)$: the formula for $r$. Example, NTK:
# $\min(\tfrac12 + 0,\ 1 + 0) + 0 - 1 + \min(0 + 1,\ 1) = \tfrac12$, the $m^{-1/2}$ of the table.
# For the standard parameterization at a fixed $\eta$ the two differ: $r = -1$, while the table's first step
# says $m^{1/2}$. The first step starts from output weights of size $m^{-1/2}$; it adds $\eta_{L+1}\chi x^L$,
# entries of size $m^0$, so from the second step on the features move like at least $m^{1}$
# (exactly while the loss derivative stays $O(1)$), $-r = 1$. The theorem's
# conditions:
#
# 1. **Stable at initialization** (features $\Theta(1)$, output $O(1)$): $a_1 + b_1 = 0$; $a_l + b_l = \tfrac12$ for
#    the hidden layers; $a_{L+1} + b_{L+1} \ge \tfrac12$.
# 2. **Stable in training** (nothing blows up as $m \to \infty$): $r \ge 0$, and both terms of $\Delta f$ stay
#    $O(1)$: $2a_{L+1} + c \ge 1$ (that is $\eta_{L+1} m = O(1)$) and $a_{L+1} + b_{L+1} + r \ge 1$ (that is
#    $m\,s\,\Delta x^L = O(1)$).
# 3. **Non-trivial** (the output does learn): $2a_{L+1} + c = 1$ or $a_{L+1} + b_{L+1} + r = 1$.
#
# **The dynamical dichotomy** (their main classification theorem, for SGD over any fixed number of steps as
# $m \to \infty$, unlike Lee et al.'s all-time result below): a stable, non-trivial abc-parameterization either has
# $r = 0$ and **learns features** ($\Delta x^L = \Omega(1)$ for some input, step and training run), or has $r > 0$ and
# is in the **kernel regime** (over those steps the features' change vanishes and the function evolves by kernel
# gradient descent with a fixed kernel); never both, and no third case. Their theorems assume a smooth activation
# (such as tanh or a smoothed GELU), fixed $d$ and $L$, and conditions on the loss (the paper states them exactly),
# so ReLU, used in this lesson's experiments, is not covered: there the agreement measured below is an observation.
# Two check cells repeat measurements with tanh: the one-step exponents of NTK and μP, and the NTK parameterization's
# change over 50 steps.
#
# Shifting $a_l \to a_l + \theta$, $b_l \to b_l - \theta$ (the same $\theta$ in every layer), $c \to c - 2\theta$ changes
# neither the effective weights nor their learning rates: many triples describe one row of the width table.

# %%
for row, (a, b, c) in course.ABC.items():
    verdict = course.classify(a, b, c)                      # two hidden layers: one m x m matrix
    print(nh._("{row}: r = {r}, stable: {stable}, non-trivial: {nontrivial} → {regime}").format(
        row=course.row_name(row), r=verdict.r, stable=verdict.stable,
        nontrivial=course.nontrivial_name(verdict),
        regime=course.regime_name(verdict.regime)))

# %% tags=["check"]
verdicts = {row: course.classify(*abc) for row, abc in course.ABC.items()}
nh.check_close("r of standard (fixed η), standard (η ∝ 1/m), NTK, μP (−1, ½, ½, 0)",
               [float(v.r) for v in verdicts.values()], [-1, 0.5, 0.5, 0], atol=1e-12)
nh.check_that("regimes: unstable, kernel, kernel, feature learning",
              [v.regime for v in verdicts.values()] == ["unstable", "kernel regime", "kernel regime",
                                                        "feature learning"],
              measured=str([v.regime for v in verdicts.values()]), expected="as the table says")
for row, (a, b, c) in course.ABC.items():                  # the formula's r is the one-step Δh^l exponent
    if verdicts[row].stable:
        nh.check_close("stable rows: −r = the one-step exponent of Δh^l",
                       -float(verdicts[row].r),
                       float(course.one_step_exponents(course.width_exponents(a, b, c))[1]), atol=1e-12)
theta = 0.5                                                # the symmetry: same widths exponents, same verdict
a, b, c = course.ABC["μP"]
shifted = ([x + theta for x in a], [x - theta for x in b], c - 2 * theta)
nh.check_that("the shift θ = ½ leaves μP's width exponents and verdict unchanged",
              course.width_exponents(*shifted) == course.width_exponents(a, b, c)
              and course.classify(*shifted) == verdicts["μP"], measured=str(course.classify(*shifted).regime),
              expected="feature learning")

# %% [markdown]
# ## Measured: one SGD step
#
# Two hidden layers (input, one $m \times m$ hidden layer, output), ReLU, 16 inputs, **one** SGD step, at widths
# 128, 512 and 2048: the relative RMS change of $h^1$ and of $h^2$, and the RMS change of $f$, for the four rows
# of the table, without and with biases ($\sigma_b = 0.5$). So that every width sees the same loss derivative, we
# train on $y + f_0(x)$: the first residual is then exactly $-y$, whatever the random initial function $f_0$.
# The figure has one panel per column of the table's "one step" block. Each setting's $\eta$ (0.5 for NTK, 0.02
# for μP, 0.005 or $1/m$ for standard) is one global number; layer $l$
# learns with $\eta_l = \eta\cdot\text{lr}_l\cdot\sigma_w^2\,\text{mult}_l^2$, whose factors carry the table's
# powers of $m$ (appendix).

# %%
step_widths = [128, 512, 2048]
one_step = {(setting, sigma_b): np.array([course.one_step_changes(setting, m, sigma_b=sigma_b)
                                          for m in step_widths])
            for setting in course.SETTINGS for sigma_b in (0.0, 0.5)}
exponents = {key: [nh.loglog_slope(step_widths, changes[:, j]) for j in range(3)]
             for key, changes in one_step.items()}
predicted = {setting: [float(e) for e in course.one_step_exponents(course.width_exponents(*course.ABC[row]))]
             for setting, row in course.ROW.items()}
print(nh._("slopes in m after one step, σ_b = 0 | σ_b = 0.5   (Δh¹, Δh², Δf; the table's value in brackets)"))
for setting in course.SETTINGS:
    measured = [" ".join(f"{e:+.2f}" for e in exponents[setting, sigma_b]) for sigma_b in (0.0, 0.5)]
    table = " ".join(f"{p:+.1f}" for p in predicted[setting])
    print(f"{course.setting_name(setting)}:  {measured[0]} | {measured[1]}   ({table})")

# %%
course.draw_one_step(step_widths, {setting: one_step[setting, 0.0] for setting in course.SETTINGS})
plt.show()

# %% tags=["check"]
# slopes from three widths, exact up to corrections in 1/√m: 0.1 is the room the table's exponents leave them
nh.check_close("no bias: the measured one-step exponents (Δh¹, Δh², Δf) of all four settings",
               np.array([exponents[s, 0.0] for s in course.SETTINGS]),
               np.array([predicted[s] for s in course.SETTINGS]), atol=0.1)
nh.check_close("σ_b = 0.5: the measured one-step exponents of all four settings",
               np.array([exponents[s, 0.5] for s in course.SETTINGS]),
               np.array([predicted[s] for s in course.SETTINGS]), atol=0.1)
smooth = {s: [nh.loglog_slope(step_widths, np.array([course.one_step_changes(s, m, activation="tanh")
                                                     for m in step_widths])[:, j]) for j in range(3)]
          for s in ("NTK, η = 0.5", "μP, η = 0.02")}
mup_steps = np.log(one_step["μP, η = 0.02", 0.0])
fits = [np.polyval(np.polyfit(np.log(step_widths), column, 1), np.log(step_widths)) for column in mup_steps.T]
scatter = float(np.exp(max(np.abs(fit - column).max() for fit, column in zip(fits, mup_steps.T))))
nh.check_between("μP, one step: largest factor between a point and its fitted line (up to about 1.2)",
                 scatter, 1, 1.25)
nh.check_close("tanh (a smooth activation): NTK and μP one-step exponents",
               np.array(list(smooth.values())), np.array([predicted[s] for s in smooth]), atol=0.1)
nh.check_between("Θ(1) is not large: μP's relative Δh¹ at η = 0.02, smallest over the widths (0.015)",
                 one_step["μP, η = 0.02", 0.0][:, 0].min(), 0.015, 0.018)
nh.check_between("Θ(1) is not large: μP's relative Δh¹ at η = 0.02, largest over the widths (0.018)",
                 one_step["μP, η = 0.02", 0.0][:, 0].max(), 0.015, 0.018)
antipodal = nh.sphere(1, d=8, seed=0)
with torch.no_grad():
    relu_features = torch.relu(course.network("ntk", 512)[0](torch.cat([antipodal, -antipodal])))
nh.check_close("ReLU, first hidden layer without bias: the feature kernel of ξ and −ξ is 0",
               float(relu_features[0] @ relu_features[1]), 0.0, atol=1e-12)
with torch.no_grad():
    second = torch.relu(course.network("ntk", 512, depth=2)[:3](torch.cat([antipodal, -antipodal])))
antipodal_ratio = float(second[0] @ second[1] / (second[0] @ second[0]))
nh.check_between("… but not at the second hidden layer: feature kernel of ξ, −ξ over that of ξ, ξ (1/π)",
                 antipodal_ratio, 0.25, 0.4)

# %% [markdown]
# Under the NTK parameterization one step moves every feature by $m^{-1/2}$ of its size: at infinite width the
# features, and the kernel built from them, never move over any fixed number of steps. That is **lazy** training. Under μP they move by an amount
# that does not depend on $m$ (its points scatter by up to about 20 % around a flat line, the noise of one seed and
# one step). $\Theta(1)$ means independent of $m$, not large: the size is set by $\eta$, and at $\eta = 0.02$ μP's
# $h^1$ moves by only 0.015 to 0.018 of its size. The standard parameterization's hidden layer moves *more* as the
# network gets wider (middle panel), and its output even more ($m^{1}$, right panel), although the change of its
# input layer's features shrinks, like $m^{-1/2}$ (left panel). Biases change none of the exponents.

# %% [markdown]
# ## Measured: lazy training vs feature learning over many steps
#
# One hidden layer, 16 training points, 50 steps of gradient descent, widths 256, 1024 and 4096, 3 seeds, NTK
# ($\eta = 0.5$) and μP ($\eta = 0.1$). μP's $\eta$ is chosen so that the two runs end at a comparable training
# loss (printed below), so that they are compared at a comparable stage of fitting. We record the relative change of the learning-rate-weighted NTK
# $\sum_l \eta_l \langle \partial f/\partial W^l, \partial f'/\partial W^l\rangle$ (the kernel that drives
# $\mathrm d f/\mathrm dt$), of the hidden features $h$ themselves, of the feature kernel $\Phi\Phi^\top/m$, of all
# the weights $\lVert w_T - w_0\rVert / \lVert w_0\rVert$, and how far the outputs moved. Every norm is the
# Frobenius norm (the square root of the sum of squared entries): of the $16 \times 16$ kernel matrices on the
# training inputs, of the $16 \times m$ matrix of features, and of all the weights together.

# %%
widths = [256, 1024, 4096]
learning_rate = {"ntk": 0.5, "mup": 0.1}
results = {}
for p, lr in learning_rate.items():
    runs = [[course.movement(p, m, lr=lr, seed=seed) for seed in range(3)] for m in widths]
    results[p] = [course.Movement(*np.mean([[getattr(run, f) for f in course.Movement.__dataclass_fields__]
                                            for run in at_width], axis=0)) for at_width in runs]
tanh_ntk = [np.mean([course.movement("ntk", m, lr=0.5, seed=seed, activation="tanh").ntk   # smooth
                     for seed in range(3)]) for m in widths]
for p, rows in results.items():
    print(nh._("{parameterization}: output change {outputs} (relative to |y|) at widths {widths}").format(
        parameterization=course.parameterization_name(p), widths=widths,
        outputs=", ".join(f"{row.outputs:.2f}" for row in rows)))
    print(nh._("    training loss before → after the 50 steps: {losses}").format(
        losses=", ".join(f"{row.loss_start:.3g} → {row.loss_end:.2g}" for row in rows)))

# %%
slopes = course.draw_movement(widths, results)
plt.show()

# %% tags=["check"]
nh.check_close("NTK param., features h: slope −½", slopes["ntk", "features"], -0.5, atol=0.1)
nh.check_close("NTK param., weights: slope −½", slopes["ntk", "weights"], -0.5, atol=0.1)
nh.check_close("NTK param., feature kernel: slope −1", slopes["ntk", "feature_kernel"], -1.0, atol=0.15)
nh.check_between("NTK param., NTK (ReLU, 3 seeds): slope between −1 and the bound −½", slopes["ntk", "ntk"],
                 -1.0, -0.5)
nh.check_close("NTK param., NTK with tanh (3 seeds): slope −1, the 1/m rate of smooth activations",
               nh.loglog_slope(widths, tanh_ntk), -1.0, atol=0.1)
nh.check_close("μP: slopes of the NTK, features, feature kernel, weights (0)",
               [slopes["mup", what] for what in course.QUANTITIES], [0.0] * 4, atol=0.05)
nh.check_between("NTK param.: outputs move by O(1) (smallest change / |y|)",
                 min(row.outputs for row in results["ntk"]), 1.5, 2.5)
nh.check_between("μP: the feature kernel moves by Θ(1) (smallest relative change)",
                 min(row.feature_kernel for row in results["mup"]), 0.5, 0.9)
nh.check_between("NTK param.: the loss falls by more than 100 times (smallest factor over the widths)",
                 min(row.loss_start / row.loss_end for row in results["ntk"]), 100, np.inf)
final_ratio = [ntk.loss_end / mup.loss_end for ntk, mup in zip(results["ntk"], results["mup"])]
nh.check_between("comparable final loss: NTK's / μP's after 50 steps, smallest over the widths",
                 min(final_ratio), 1 / 3, 3)
nh.check_between("comparable final loss: NTK's / μP's after 50 steps, largest over the widths",
                 max(final_ratio), 1 / 3, 3)
nh.check_between("the two runs' final losses are within a factor 2.3 (largest ratio either way)",
                 max(max(final_ratio), 1 / min(final_ratio)), 1, 2.3)
slow = course.trained("μP, η = 0.02", 1024)[0]
nh.check_between("μP at η = 0.02 (the explorer's setting), width 1024: the loss falls by about 4 times",
                 float(slow.loss[0] / slow.loss[-1]), 3.5, 5)
nh.check_between("μP at η = 0.02: the feature kernel still moves by Θ(1) (smallest change, widths 256, 4096)",
                 min(course.trained("μP, η = 0.02", m)[0].feature_change for m in (256, 4096)), 0.25, 0.45)

# %% [markdown]
# **Lazy** therefore means: the network fits the data (its outputs travel from the random $f_0$ to $y$, a change of
# about $\lVert y - f_0\rVert$; that is about $2|y|$ here only because this network's $f_0$ is large compared with
# the targets $y = \sin 2\xi_1$) while its kernel and features stay (almost) where they started. The two runs end at
# a comparable stage (final losses within a factor 2.3): after 50 steps the NTK run's loss is 0.0025 to 0.0091 and μP's 0.0029 to 0.0040, depending on the
# width. (At the one-step experiment's $\eta = 0.02$, μP's loss would fall only about 4 times in 50 steps: its
# features would still move by $\Theta(1)$, but those of a network still far from fitting.) The weights move,
# by relatively $m^{-1/2}$, and the features with them ($m^{-1/2}$, as after one step). The feature *kernel* moves
# even less ($m^{-1}$; why: Check 5 below). The NTK falls in between: slope −0.71 averaged over 3 seeds, but
# −0.53, −0.89 and −0.72 seed by seed. Lee et al. (2019) prove a change of at most order $m^{-1/2}$ (for a smooth
# activation, the squared loss and $\eta < \eta_\text{critical}$); for smooth activations the change is in fact of
# order $1/m$ (Dyer & Gur-Ari 2020; Huang & Yau 2020), and with tanh the same experiment gives a slope of −1.02
# (3 seeds). ReLU's kinks give an intermediate, noisier slope.
#
# Under μP, in this one-hidden-layer network, none of the four changes shrinks with the width: the NTK moves by
# 0.56 to 0.62, the others by 0.64 to 0.76 (3 seeds), at every width. That does not carry over to every weight matrix
# of a deeper network. With two hidden layers (μP at $\eta = 0.02$, 50 steps), the $m \times m$ matrix $W^2$ moves
# by a fraction of its size that falls with the
# width, while the pre-activations $h^2$ it computes keep moving by $\Theta(1)$ (how both can hold: Check 4
# below):

# %%
deep = {m: course.hidden_matrix_movement(m) for m in (256, 1024)}   # μP, 2 hidden layers, η = 0.02, 50 steps
for m, change in deep.items():
    text = nh._("μP, width {m}: W² moved by {frobenius:.4f} of its size (Frobenius norm), "
                "h² by {features:.2f}; the update ΔW² has ‖ΔW²‖_F / ‖ΔW²‖_op = {ratio:.2f}")
    print(text.format(m=m, frobenius=change["frobenius"], features=change["features"],
                      ratio=change["update_f_over_op"]))

# %% tags=["check"]
nh.check_close("μP, two hidden layers: slope of W²'s relative Frobenius change (−½)",
               nh.loglog_slope([256, 1024], [deep[m]["frobenius"] for m in (256, 1024)]), -0.5, atol=0.1)
nh.check_between("μP, two hidden layers: h² moves by Θ(1) at both widths (smallest change)",
                 min(deep[m]["features"] for m in (256, 1024)), 0.3, 1.0)
mup_ntk = [row.ntk for row in results["mup"]]
nh.check_close("μP, one hidden layer, 50 steps: the NTK's smallest and largest change (0.56, 0.62)",
               [min(mup_ntk), max(mup_ntk)], [0.56, 0.62], atol=0.005)
others = [getattr(row, q) for row in results["mup"] for q in ("features", "feature_kernel", "weights")]
nh.check_close("μP, one hidden layer: features, feature kernel, weights, smallest change (0.64)",
               min(others), 0.64, atol=0.005)
nh.check_close("μP, one hidden layer: features, feature kernel, weights, largest change (0.76)",
               max(others), 0.76, atol=0.005)
nh.check_close("the final losses quoted: NTK at widths 256, 1024, 4096 / (0.0091, 0.0025, 0.0038)",
               [row.loss_end for row in results["ntk"]] / np.array([0.0091, 0.0025, 0.0038]), np.ones(3),
               rtol=0.03)
nh.check_close("the final losses quoted: μP at widths 256, 1024, 4096 / (0.0040, 0.0029, 0.0034)",
               [row.loss_end for row in results["mup"]] / np.array([0.0040, 0.0029, 0.0034]), np.ones(3),
               rtol=0.03)

# %% [markdown]
# One more consequence of the table: μP's output at initialization shrinks like $m^{-1/2}$ (output variance
# $m^{-2}$ summed over $m$ units).

# %%
x_train, y_train = course.training_data()
with torch.no_grad():
    rms_f0 = [float(torch.stack([course.network("mup", m, seed=s)(x_train) for s in range(20)])
                    .pow(2).mean().sqrt()) for m in widths]
print(nh._("μP output at init (RMS): {values}, slope {slope:.2f}").format(
    values=", ".join(f"{v:.3g}" for v in rms_f0), slope=nh.loglog_slope(widths, rms_f0)))

# %% tags=["check"]
nh.check_close("μP output at init: slope −½", nh.loglog_slope(widths, rms_f0), -0.5, atol=0.15)

# %% [markdown]
# ## What the kernel limit is
#
# In the kernel regime the trained network follows its linearization around initialization. The squared-loss
# statement is Lee et al. (2019, Thm 2.1): if the limiting NTK on the $n$ training inputs is **positive definite**
# ($\lambda_\min > 0$) and the learning rate is below $\eta_\text{critical} = 2/(\lambda_\min + \lambda_\max)$ (for the
# loss $\tfrac12\sum_i (f(x_i) - y_i)^2$; with this package's mean loss $\tfrac1{2n}\sum_i$ the condition reads
# $\eta < 2n/(\lambda_\min + \lambda_\max)$), then full-batch gradient descent stays within $O(m^{-1/2})$ of the
# linearized network uniformly over **all** training time. Their proof assumes an activation with a Lipschitz
# derivative, so for the ReLU network below the agreement is again an observation. For other losses Jacot et al.
# (2018) show that, under gradient flow, the NTK stays constant over any fixed time interval $[0, T]$ in the limit
# where the widths go to infinity one layer after another, for an activation with a bounded second derivative and
# a training direction whose integral over $[0, T]$ stays bounded; they give no rate in $m$. The linearized network is kernel **gradient descent** started from the random initial function
# $f_0$; trained to convergence it gives
#
# $$f_\infty(x) = f_0(x) + \Theta(x, X)\,\Theta(X, X)^{-1}\big(y - f_0(X)\big),$$
#
# **ridgeless** kernel regression plus an offset from $f_0$. Experiment: train a width-4096 NTK-parameterized
# network to convergence and compare its predictions on 8 new inputs with this formula (empirical NTK at
# initialization), and with ridgeless regression that forgets $f_0$.

# %%
x_new = nh.sphere(8, d=8, seed=5)
model = course.network("ntk", 4096)
with torch.no_grad():
    f0_train, f0_new = model(x_train)[:, 0], model(x_new)[:, 0]
theta = nh.empirical_ntk(model, torch.cat([x_train, x_new]))
limit = torch.linalg.eigvalsh(torch.as_tensor(nh.mlp(1, "relu").kernel(x_train).ntk))   # the limiting NTK's
eigenvalues = torch.linalg.eigvalsh(theta[:16, :16])
lee_number = 1.0 * float(eigenvalues[0] + eigenvalues[-1]) / len(x_train)     # η (λ_min + λ_max) / n, η = 1
record = nh.train(model, x_train, y_train, lr=1.0, steps=600, x_eval=x_new, record_every=600,
                  track_kernels=False)
with_offset = f0_new + nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train - f0_train)
without_offset = nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train)
gap = float((record.outputs[-1] - with_offset).abs().max())
gap_without = float((record.outputs[-1] - without_offset).abs().max())
print(nh._("limiting NTK: λ_min = {low:.4f}, λ_max = {high:.2f}: η(λ_min + λ_max)/n = {number:.2f} < 2")
      .format(low=float(limit[0]), high=float(limit[-1]), number=float(limit[0] + limit[-1]) / len(x_train)))
print(nh._("empirical NTK at width 4096: λ_min = {low:.3f}, λ_max = {high:.2f}: "
           "η(λ_min + λ_max)/n = {number:.2f}").format(
    low=float(eigenvalues[0]), high=float(eigenvalues[-1]), number=lee_number))
print(nh._("training loss after 600 steps: {loss:.1e}").format(loss=float(record.loss[-1])))
print(nh._("max |network - (f0 + ridgeless regression on y - f0)| = {gap:.3f};  "
           "max |network - ridgeless regression on y| = {gap_without:.2f}").format(
    gap=gap, gap_without=gap_without))

# %% tags=["check"]
nh.check_close("Lee et al.'s conditions hold: λ_min of the limiting NTK (0.6105 > 0)", float(limit[0]),
               0.6105, rtol=1e-3)
nh.check_between("Lee et al.'s conditions hold: η(λ_min + λ_max)/n of the limiting NTK",
                 float(limit[0] + limit[-1]) / len(x_train), 0, 2)
nh.check_between("the empirical NTK at width 4096 is in the same range: η(λ_min + λ_max)/n", lee_number, 0, 2)
# the network stays O(m^-1/2) from its linearization: at m = 4096 a few hundredths on outputs of size 1
nh.check_between("width 4096: max |network − (f₀ + ridgeless regression)| on 8 new inputs", gap, 0, 0.05)
nh.check_between("… and forgetting f₀ is off by far more (ratio)", gap_without / gap, 5, np.inf)
nh.check_close("the numbers quoted for readers of chapter 4: the two gaps (0.022, 1.28)", [gap, gap_without],
               [0.022, 1.28], atol=0.005)

# %% [markdown]
# ## Explore: four settings, four widths
#
# Train one network (one hidden layer, 50 steps) and compare its feature kernel's entries before and after (left)
# and its loss (right). The four settings are the rows of the table. This network's only hidden features are the
# input layer's pre-activations $h^1$, so the table's $\Delta h^1$ column applies to them, not the $\Delta h^l$
# column of the opening picture. The lines under the figure give the feature kernel's relative change and
# $\eta\,\lambda_\max/n$, the stability number of gradient descent: $\lambda_\max$ is the largest eigenvalue of
# the learning-rate-weighted NTK at initialization, and the linearized network diverges when the number exceeds 2.
# This is not the stricter condition of Lee et al. above: each step multiplies the residual's component along an
# eigenvector by $1 - \eta\lambda/n$, so $\lambda_\max$ alone decides whether the linearized network diverges, while
# $\eta(\lambda_\min + \lambda_\max)/n < 2$ is what their proof of closeness for all time needs.
# The settings are those of the one-step experiment, so μP trains with $\eta = 0.02$ here: its loss falls more
# slowly than in the 50-step comparison above.

# %% tags=["nbval-ignore-output"]
options = [(course.setting_name(s), s) for s in course.SETTINGS]          # (label shown, value the code sees)
nh.widgets.live_figure(course.draw_training,
                       setting=nh.widgets.dropdown(nh._("setting"), "NTK, η = 0.5", options=options),
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)))

# %% [markdown]
# **Predict, then check.**
#
# **Explore 1.** The starting view, NTK at width 1024, moves the feature kernel by 0.0025 (under the figure). From the slope
#    −1.08 measured above for this quantity, predict the change at width 64; then set the width to 64.
#
# <details><summary>Answer</summary>
#
# $0.0025 \cdot 16^{1.08} \approx 0.050$; measured: 0.044 (and 0.00052 at width 4096). The power law fitted at
# widths 256 to 4096 predicts width 64 within 15 %, and even there the feature kernel moves by under 5 %.
#
# </details>
#
# **Explore 2.** Standard parameterization with the fixed $\eta = 0.005$. The table says only that this row fails
#    as $m \to \infty$; it does not say at which width, nor what happens before. At width 64 its stability number
#    is 0.33. Predict how that number grows with the width (compare the row's learning rates with the NTK row's),
#    the first of the four widths at which gradient descent diverges, and whether the features move a lot or a
#    little at the widths before it; then check.
#
# <details><summary>Answer</summary>
#
# It grows like $m$ (why: Check 2): $0.33 \cdot 4 = 1.3$ at width 256 and $0.33 \cdot 16 = 5.3$ at 1024, so from
# width 1024 on. Measured: 1.10, 3.99
# and 15.9 at widths 256, 1024 and 4096 (the ratios 3.4, 3.6, 4.0 approach 4 as the width grows); the loss
# overflows at step 13 at width 1024 and at step 8 at 4096. Before that it even looks lazy: its hidden features
# $h^1$ move little, by 0.021 of their size at width 64 and 0.0053 at 256 over the 50 steps (slope −1.0, steeper
# than the one-step $m^{-1/2}$ of the $\Delta h^1$ column: the fitting speeds up with the width), and its
# feature kernel moves by 0.0092 at width 64 and by
# 0.00079 at 256: a slope of −1.77 over these two widths, steeper than the NTK parameterization's −1, from two
# widths of a run that approaches instability, so no clean exponent. What grows with the width is the output layer's own term, $\eta_{L+1} m$ with $\eta_{L+1} \sim m^0$.
#
# </details>
#
# **Explore 3.** Now "standard, η = 1/m": does its stability number depend on the width? Predict the slope of its
#    feature-kernel change in $m$ from the $\Delta h^1$ column, taking the same extra factor $m^{-1/2}$ between a
#    feature's change and the feature kernel's as under the NTK parameterization.
#
# <details><summary>Answer</summary>
#
# It levels off: 1.03, 0.86, 0.78 and 0.78 from width 64 to 4096, so it never diverges. The $\Delta h^1$ column
# gives $m^{-3/2}$, so about $m^{-2}$ for the feature kernel; measured: 0.012 at width 64 and $2.8\cdot 10^{-6}$ at
# 4096, a slope of −2.0. It is in the kernel regime, like the NTK parameterization, with another kernel (its
# input layer learns too slowly to count; appendix).
#
# </details>

# %% [markdown]
# ## Check your understanding
#
# **Check 1.** A parameterization has the NTK row's variances and learning rates $\eta = (m, 1, 1/m)$ for the input, hidden
#    and output layers. Compute $\Delta h^1$, $\Delta h^l$ and $\Delta f$ after one step. Is it stable?
#
# <details><summary>Answer</summary>
#
# $s = m^{-1/2}$: $\Delta h^1 \sim \eta_1 s = m^{1/2}$, $\Delta h^l \sim \eta_l s m = m^{1/2}$, and $\Delta f \sim
# \eta_{L+1} m + m s \Delta x^L = 1 + m^{1/2}\cdot m^{1/2} = m$. The features of the input and the hidden layers blow
# up, and the output with them: unstable. μP's larger learning rates need its smaller output weights ($s = 1/m$).
#
# </details>
#
# **Check 2.** Why does the standard parameterization's tangent kernel, weighted by its learning rates, grow like $m$?
#
# <details><summary>Answer</summary>
#
# It has the NTK parameterization's forward pass but learning rates $m$ times larger for the hidden and output
# weights (table: $m^0$ instead of $m^{-1}$). The weighted kernel $\sum_l \eta_l \langle\partial f/\partial W^l,
# \partial f'/\partial W^l\rangle$ is linear in the $\eta_l$, so its hidden and output terms are $m$ times those of
# the NTK parameterization, which have a finite limit. Hence $\lambda_\max \propto m$ and a fixed $\eta$ fails beyond some width.
#
# </details>
#
# **Check 3.** The printout of the conditions section gave μP's $r = 0$. Derive it term by term from the formula for $r$:
#    which terms cancel, and which condition makes μP non-trivial?
#
# <details><summary>Answer</summary>
#
# $a = (-\tfrac12, 0, \tfrac12)$, $b = \tfrac12$, $c = 0$: $\min(a_{L+1} + b_{L+1}, 2a_{L+1} + c) = \min(1, 1) = 1$,
# $c - 1 = -1$, and $\min_l(2a_l + \mathbb 1[l = 1]) = \min(-1 + 1, 0) = 0$, so $r = 0$. Both non-triviality
# conditions hold with equality: $2a_{L+1} + c = 1$ and $a_{L+1} + b_{L+1} + r = 1$: the output moves through its own
# weights and through the features.
#
# </details>
#
# **Check 4.** Under μP with two hidden layers, the $m \times m$ matrix $W^2$ moved by 0.0091 of its size at width 256 and
#    0.0044 at 1024, while $h^2 = W^2 x^1$ moved by about 0.55 at both widths. How can both be true?
#
# <details><summary>Answer</summary>
#
# Every step adds to $W^2$ a sum of rank-one matrices $\propto g^2 (x^1)^\top$, one per training input: after 50
# steps on 16 inputs the update has rank at most $\min(800, m)$ (256 at width 256), and a far smaller *effective* rank. Its
# Frobenius norm is only 1.35 (width 256) and 1.37 (width 1024) times its operator norm (printed above), an
# effective rank $(\lVert\Delta W\rVert_F/\lVert\Delta W\rVert_\text{op})^2 \approx 1.8$: a few directions carry
# the update. So its Frobenius norm is of the order of its operator norm, and under μP that is $\Theta(1)$, like the
# operator norm of $W^2$ itself (measured: the update's operator norm is 0.055 of $W^2$'s at width 256 and 0.052
# at 1024). But $W^2$'s Frobenius norm is of order $\sqrt m$: $m^2$ entries of size $m^{-1/2}$. So the relative
# Frobenius change falls like $m^{-1/2}$. Yet $h^2$ moves by about 0.55, and mostly not because of $\Delta W^2$:
# split $\Delta h^2 = \Delta W^2 x^1_T + W^2_0\,\Delta x^1$ (relative RMS sizes, measured). The part passed on from
# the layer below, $W^2_0\Delta x^1$, is 0.527 at width 256 and 0.510 at 1024, because under μP $h^1$ itself moves
# by $\Theta(1)$ (0.39 at both widths): with $W^2$ frozen, $h^2$ would still move by about that much. The update's own
# part $\Delta W^2 x^1_T$ is 0.069 and 0.063, about 7 and 14 times $W^2$'s relative Frobenius change: a low-rank
# update aligned with the $x^1$ it was built from acts at $\Theta(1)$ although $\lVert\Delta W^2\rVert_F /
# \lVert W^2\rVert_F$ falls like $m^{-1/2}$. A small relative change of a weight matrix does not mean lazy training.
#
# </details>
#
# **Check 5.** A single feature moves by $m^{-1/2}$ under the NTK parameterization, but the feature kernel by $m^{-1}$. Why
#    not by $m^{-1/2}$ as well?
#
# <details><summary>Answer</summary>
#
# The feature kernel is an average over the $m$ units, $\frac1m\sum_i \phi(h_i(x))\phi(h_i(x'))$. Its change is, to
# first order, the average of $m$ terms of size $m^{-1/2}$ whose signs vary from unit to unit. Why the signs vary:
# a unit's change is proportional to its gradient $\phi'(h_i)\,v_i$, with $v_i$ its output weight, which at
# initialization is independent of $h_i$ and as often negative as positive. Such an average is of order
# $m^{-1/2}\cdot m^{-1/2} = m^{-1}$ (measured: slope −1.08).
#
# </details>

# %% tags=["check"]
nh.check_that("Check 1: the abc form of η = (m, 1, 1/m) with the NTK variances is classified unstable",
              course.classify((0, 0.5, 1), (0, 0, -0.5), -1).regime == "unstable",
              measured=course.classify((0, 0.5, 1), (0, 0, -0.5), -1).regime, expected="unstable")
nh.check_that("Check 1: its one-step exponents (½, ½, 1)",
              course.one_step_exponents(course.WidthExponents((0, -1, -1), (1, 0, -1))) == (0.5, 0.5, 1),
              measured=str(course.one_step_exponents(course.WidthExponents((0, -1, -1), (1, 0, -1)))),
              expected="(1/2, 1/2, 1)")
nh.check_close("Check 5: the measured feature-kernel slope (−1.08)", slopes["ntk", "feature_kernel"],
               -1.08, atol=0.005)
nh.check_close("Check 4: the update's operator norm / W²'s at widths 256, 1024 (0.055, 0.052)",
               [deep[m]["operator"] for m in (256, 1024)], [0.055, 0.052], atol=0.001)
nh.check_close("Check 4: W²'s relative Frobenius change at widths 256, 1024 (0.0091, 0.0044)",
               [deep[m]["frobenius"] / f for m, f in ((256, 0.0091), (1024, 0.0044))], [1, 1], rtol=0.01)
nh.check_close("Check 4: the update's ‖ΔW²‖_F / ‖ΔW²‖_op at widths 256, 1024 (1.35, 1.37)",
               [deep[m]["update_f_over_op"] for m in (256, 1024)], [1.35, 1.37], atol=0.006)
nh.check_close("Check 4: its effective rank (‖ΔW²‖_F / ‖ΔW²‖_op)² at widths 256, 1024 (≈ 1.8)",
               [deep[m]["update_f_over_op"] ** 2 for m in (256, 1024)], [1.8, 1.8], atol=0.1)
nh.check_close("Check 4: h² moves by about 0.55 at widths 256 and 1024",
               [deep[m]["features"] for m in (256, 1024)], [0.55, 0.55], atol=0.015)
nh.check_close("Check 4: the part passed on, W²₀Δx¹, at widths 256, 1024 (0.527, 0.510)",
               [deep[m]["passed_on"] for m in (256, 1024)], [0.527, 0.510], atol=0.01)
nh.check_close("Check 4: the update's own part, ΔW²x¹, at widths 256, 1024 (0.069, 0.063)",
               [deep[m]["own"] for m in (256, 1024)], [0.069, 0.063], atol=0.003)
nh.check_close("Check 4: h¹ moves by Θ(1) under μP, at widths 256, 1024 (0.39)",
               [deep[m]["h1"] for m in (256, 1024)], [0.39, 0.39], atol=0.01)
check1 = course.width_exponents((0, 0.5, 1), (0, 0, -0.5), -1)
nh.check_that("Check 1: the abc triple has the NTK variances and η = (m, 1, 1/m)",
              check1 == course.WidthExponents((0, -1, -1), (1, 0, -1)), measured=str(check1),
              expected="variances (0, −1, −1), learning rates (1, 0, −1)")
lazy = [course.trained("NTK, η = 0.5", m)[0].feature_change for m in (64, 1024, 4096)]
nh.check_close("Explore 1, NTK: feature-kernel change at widths 64, 1024, 4096 / (0.044, 0.0025, 0.00052)",
               np.array(lazy) / [0.044, 0.0025, 0.00052], np.ones(3), rtol=0.02)
nh.check_close("Explore 1: the prediction 0.0025 · 16^1.08 (0.050)", 0.0025 * 16 ** 1.08, 0.050, rtol=0.01)
nh.check_close("Explore 2, standard fixed η: feature-kernel change at widths 64, 256 / (0.0092, 0.00079)",
               np.array([course.trained("standard, fixed η = 0.005", m)[0].feature_change for m in (64, 256)])
               / [0.0092, 0.00079], np.ones(2), rtol=0.02)
standard_h1 = [course.trained_feature_change("standard, fixed η = 0.005", m) for m in (64, 256)]
nh.check_close("Explore 2, standard fixed η: h¹'s relative change at widths 64, 256 / (0.021, 0.0053)",
               np.array(standard_h1) / [0.021, 0.0053], np.ones(2), rtol=0.02)
nh.check_close("Explore 2: its slope in m over 50 steps (−1.0)", nh.loglog_slope([64, 256], standard_h1),
               -1.0, atol=0.05)
overflow = [course.trained("standard, fixed η = 0.005", m)[0].diverged_at for m in (1024, 4096)]
nh.check_that("Explore 2: the loss overflows at step 13 (width 1024) and step 8 (width 4096)",
              overflow == [13, 8], measured=str(overflow), expected="[13, 8]")
scaled = [course.trained("standard, η = 1/m", m)[0].feature_change for m in (64, 256, 1024, 4096)]
nh.check_close("Explore 3, standard η = 1/m: feature-kernel change at widths 64, 4096 (0.012, 2.8e-6)",
               [scaled[0] / 0.012, scaled[-1] / 2.8e-6], [1, 1], rtol=0.03)
nh.check_close("Explore 3: its slope in m (−2.0)", nh.loglog_slope([64, 256, 1024, 4096], scaled), -2.0,
               atol=0.05)
fixed = np.array([course.stability_number("standard, fixed η = 0.005", m) for m in (64, 256, 1024, 4096)])
nh.check_close("Explore 2, standard fixed η: η·λ_max/n at widths 64 … 4096 / (0.33, 1.10, 3.99, 15.9)",
               fixed / [0.33, 1.10, 3.99, 15.9], np.ones(4), rtol=0.01)
nh.check_close("Explore 2: its growth per factor 4 in width (3.4, 3.6, 4.0)", fixed[1:] / fixed[:-1],
               [3.4, 3.6, 4.0], atol=0.05)
nh.check_close("Explore, standard η = 1/m: η·λ_max/n at widths 64 … 4096 (1.03, 0.86, 0.78, 0.78)",
               [course.stability_number("standard, η = 1/m", m) for m in (64, 256, 1024, 4096)],
               [1.03, 0.86, 0.78, 0.78], atol=0.01)

# %% [markdown]
# ## Summary
#
# - A parameterization is a list of powers of $m$: each layer's weight variance and learning rate (biases too). The
#   variances are fixed by stability at initialization ($m^0$ for the input layer, $m^{-1}$ for the hidden ones; the
#   initialization names LeCun, He, Xavier differ in constants).
# - One SGD step moves a feature by (learning rate) × (gradient per unit) × (number of aligned terms). Asking every
#   layer and the output to move by $\Theta(1)$ gives μP: output variance $m^{-2}$, learning rates $m^{1}, m^{0},
#   m^{-1}$ for the input, hidden and output layers, $m^1$ for hidden biases.
# - Yang & Hu's exponent $r$ and their stability and non-triviality conditions decide: a stable, non-trivial
#   parameterization learns features ($r = 0$, e.g. μP) or is in the kernel regime ($r > 0$, NTK, standard with
#   $\eta \propto 1/m$), never both (proved for smooth activations, over any fixed number of steps).
# - Lazy (NTK parameterization): weights and features move like $m^{-1/2}$, the feature kernel like $m^{-1}$, the NTK
#   in between for ReLU (like $1/m$ for tanh), while the output fits the data. μP with one hidden layer: all of them
#   move by $\Theta(1)$ at every width; an $m \times m$ hidden matrix moves by a fraction $m^{-1/2}$ of its
#   Frobenius norm, yet its features still move by $\Theta(1)$.
# - The kernel limit is kernel gradient descent from $f_0$: ridgeless regression on $y - f_0$ at convergence, for the
#   squared loss when $\lambda_\min > 0$ and $\eta$ is below $2n/(\lambda_\min + \lambda_\max)$ (mean loss).
#
# **Exercise:** 4.5 (how μP breaks the kernel limit).
#
# **Previous:** [05a · Normalization](05a_normalization.ipynb) · **Next:** [06 · Activations](06_activations.ipynb)

# %% [markdown]
# ## For readers of chapter 4
#
# <details><summary>§4.4.2 and the overview: the initialization names (errata B5, B23, B25)</summary>
#
# **The text says** (overview): weights drawn from $\mathcal N(0, 1/m)$ are "Xavier" initialization, Xavier means
# variance $1/n_\text{in}$, and the NTK initialization has variance $1/(n_\text{in}\, m)$.
#
# **What is true:** LeCun is $1/\text{fan-in}$, He $2/\text{fan-in}$, Xavier $2/(\text{fan-in} + \text{fan-out})$;
# the first layer's fan-in is $d$, not $m$. The NTK parameterization has the effective variance
# $\sigma_w^2/\text{fan-in}$ at initialization, LeCun's or He's; only the learning rates differ. A variance
# $1/(n_\text{in}\,m)$ would shrink layer $l$'s pre-activations like $m^{-l/2}$ (measured above: slopes −0.5, −1.0,
# −1.5). [errata B5](../ERRATA.md#b5), [B23](../ERRATA.md#b23), [B25](../ERRATA.md#b25)
#
# </details>
#
# <details><summary>Overview §7.2: "μP scales each layer by 1/√m", MuPLinear, and O(t/√m) (errata B33, B34, B11)</summary>
#
# **The text says:** μP means "scale each layer's output by $1/\sqrt m$", and its `MuPLinear` code implements μP; in
# the lazy regime "the output changes by $O(t/\sqrt m)$".
#
# **What is true:** "scale by $1/\sqrt m$" *is* the NTK parameterization. μP needs the output variance $m^{-2}$ and
# per-layer learning rates (the table), which a bare $1/\sqrt m$ initialization (all `MuPLinear` does) does not
# have. In the lazy regime the output moves by $O(1)$ (it fits the data): what vanishes with width is the change of
# the kernel and of the features. [errata B33](../ERRATA.md#b33), [B34](../ERRATA.md#b34), [B11](../ERRATA.md#b11)
#
# </details>
#
# <details><summary>§4.4.2: "f moves far from its initial value, that is, the features learn" (errata A20)</summary>
#
# **The text says:** under μP the output $f(x)$ moves far from its initial value, "that is, the features learn".
#
# **What is true:** under the NTK parameterization $f$ moves by $O(1)$ as well (about $2|y|$ at every width, above);
# moving outputs are not the criterion. What sets μP apart is that the hidden features, and with them the kernel,
# change by $\Theta(1)$ as $m \to \infty$, while under the NTK parameterization both changes vanish.
# [errata A20](../ERRATA.md#a20)
#
# </details>
#
# <details><summary>§4.4.2: "training equals kernel ridge regression" (errata A19)</summary>
#
# **The text says:** the NTK parameterization keeps training linearized throughout, so training the network *is*
# kernel ridge regression.
#
# **What is true:** the linearization becomes exact only as $m \to \infty$, under conditions (for all training time:
# squared loss, $\lambda_\min > 0$, $\eta < 2n/(\lambda_\min + \lambda_\max)$ with the mean loss; Lee et al. 2019). It
# gives kernel gradient descent from $f_0$, **ridgeless** at convergence, with the $f_0$ offset (above: 0.022 from
# the formula, against 1.28 without the offset). A ridge appears only with an explicit penalty; towards the initial
# weights it gives exactly kernel ridge regression plus $f_0$ (weight decay towards 0 adds a further term). Stopping
# early acts like one (lesson 07). [errata A19](../ERRATA.md#a19)
#
# </details>
#
# <details><summary>§4.4.2 and the summary: the empty parameterization table (errata A28)</summary>
#
# **The text says:** the comparison of the parameterizations is left as an empty table.
#
# **What is true:** this lesson's width table fills it, with the conditions that decide each row and the one-step
# exponents measured within 0.1. [errata A28](../ERRATA.md#a28)
#
# </details>

# %% [markdown]
# ## Appendix: how the package writes the parameterizations
#
# The parameterization is part of the architecture description: `nh.mlp(depth, activation,
# parameterization="ntk" | "standard" | "mup")` (or `nh.dense(..., parameterization=...)` layer by layer). The package
# writes μP and the standard parameterization in forms equivalent layer by layer (the same effective variances and
# learning rates; a layer-dependent shift $\theta_l$, $c_l \to c_l - 2\theta_l$) to Yang et al. (2022,
# Tensor Programs V, Table 3), which lists their initial variances and learning rates (SP in grey), and the NTK
# parameterization as Jacot et al. (2018) define it. Every trainable weight $w_l$ is
# $\mathcal N(0,1)$, layer $l$ computes $\sigma_w\,\text{mult}_l\cdot h\,w_l^\top$ and learns with rate
# $\eta\cdot\text{lr}_l$, so $\operatorname{Var} W^l = \sigma_w^2\,\text{mult}_l^2$ and
# $\eta_l = \eta\cdot\text{lr}_l\cdot\sigma_w^2\,\text{mult}_l^2$ (width $m$, input dimension $d$):
#
# | | input layer | hidden layers | output layer | biases |
# |---|---|---|---|---|
# | **NTK** | mult $1/\sqrt d$, lr 1 | mult $1/\sqrt m$, lr 1 | mult $1/\sqrt m$, lr 1 | lr 1 |
# | **standard** (Yang & Hu's SP) | mult $1/\sqrt d$, lr $d$ | mult $1/\sqrt m$, lr $m$ | mult $1/\sqrt m$, lr $m$ | lr 1 |
# | **μP** | mult $1/\sqrt d$, lr $md$ | mult $1/\sqrt m$, lr $m$ | mult $\mathbf{1/m}$, lr $m$ | lr fan-out ($m$; output 1) |
#
# PyTorch's `nn.Linear` draws weights and biases uniformly with variance $1/(3\,\text{fan-in})$: the same powers of
# $m$ for the weights, but $m^{-1}$ instead of $m^0$ for the variance of a bias after a hidden layer.
# `nh.lr_multipliers(model)` lists the $\text{lr}_l$ of a built network, and `nh.train` uses them. Each description
# also has the kernel its parameterization defines. "ntk": the NTK of lessons 01–04. "standard": the same forward
# pass, so the same NNGP; with $\eta \propto 1/m$ its weighted tangent kernel tends to the NTK without the terms of
# the input layer ($d/m \to 0$) and of the biases ($1/m \to 0$). For one hidden ReLU layer without bias and
# $|x|^2 = d$, its diagonal $\Theta(x, x)$ is half the NTK parameterization's; off the diagonal the two differ by
# the input layer's term $2\rho(\pi - \theta)/\pi$ ($\rho = \cos\theta$, $\theta$ the angle between the inputs),
# while the output layer's term $\tfrac2\pi\big(\sin\theta + (\pi - \theta)\rho\big)$ is all that remains. "mup": μP has an infinite-width limit too (Yang & Hu compute it with tensor programs),
# and its weighted tangent kernel at initialization converges, but that kernel moves by $\Theta(1)$ during training,
# so no fixed kernel describes training; `kernel()` raises `nh.NoClosedForm`.

# %%
x_demo = nh.sphere(4, d=8, seed=0)                       # |x|² = d, so Σ⁽¹⁾(x, x) = σ_w² = 2
self_ntk = {}
for parameterization in nh.PARAMETERIZATIONS:
    arch = nh.mlp(1, "relu", parameterization=parameterization)
    factors = ", ".join(f"{v:g}" for v in nh.lr_multipliers(arch.network(8, width=256, seed=0)).values())
    try:
        self_ntk[parameterization] = torch.as_tensor(arch.kernel(x_demo).ntk)
        kernel = f"Θ(x, x) = {float(self_ntk[parameterization][0, 0]):.4f}"
    except nh.NoClosedForm:
        kernel = nh._("no closed-form kernel: nh.NoClosedForm")
    print(nh._("{parameterization} at m = 256: lr = {factors}; {kernel}").format(
        parameterization=parameterization, factors=factors, kernel=kernel))

# %% tags=["check"]
for i in range(len(x_demo)):
    nh.check_close("one ReLU layer, diagonal: standard Θ(x, x) = NTK Θ(x, x) / 2",
                   float(self_ntk["standard"][i, i]), float(self_ntk["ntk"][i, i]) / 2, rtol=1e-12)
rho = (x_demo @ x_demo.T / 8).clamp(-1, 1)
input_term = 2 * rho * (np.pi - torch.arccos(rho)) / np.pi
nh.check_close("one ReLU layer: NTK Θ − standard Θ = the input layer's term 2ρ(π − θ)/π (largest error)",
               float((self_ntk["ntk"] - self_ntk["standard"] - input_term).abs().max()), 0.0, atol=1e-12)
mup = nh.mlp(1, "relu", parameterization="mup").network(8, width=256, seed=0)
nh.check_close("μP's package form at m = 256: Var W¹ (2/d), η_out/η (2/m), η_1/η (2m)",
               [mup[0].weight_scale ** 2, mup[2].weight_scale ** 2 * mup[2].lr_multiplier,
                mup[0].weight_scale ** 2 * mup[0].lr_multiplier],
               [2 / 8, 2 / 256, 2 * 256], rtol=1e-12)
