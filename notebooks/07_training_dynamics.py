# %% [markdown]
# # 07 · Training dynamics: the closed form against real gradient descent
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/07_training_dynamics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F07_training_dynamics.ipynb)
#
# *Chapter 4.4.2; overview text §3 and §7.1.*
#
# **You will learn**
# - the closed-form outputs of an infinitely wide network trained by gradient descent, on training **and** test
#   inputs, which learning rates keep its steps stable, and what a finite network can do above that rate;
# - what converges to what as the width $m$ grows, and how fast, measured with error bars;
# - what "lazy training" measures: the output moves by $O(1)$ while the kernel and the features freeze, and how μP
#   differs;
# - why stopping early acts like a ridge penalty, and why training to the end is *ridgeless* regression;
# - that the spread of trained networks over random initializations matches the infinite-width Gaussian process
#   (tested at width 1024), and which targets a kernel can learn at all:
#   on the sphere, a dot-product kernel approximates every continuous target only when every Mercer coefficient
#   is positive.
#
# **Prerequisites:** lessons 01–02; lesson 05b for the parameterizations (NTK, μP).

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
from tqdm.auto import tqdm
import ntk_helpers as nh
from ntk_helpers.course import dynamics as course     # this lesson's experiments, figures and explorers

nh.plotting.use_style()

# %% [markdown]
# ## The idea in one picture
#
# Gradient descent pulls a network's outputs towards the data, and in the NTK parameterization a wide network does
# it with a kernel that stays fixed, so the whole path of the function has a closed form. Under μP (lesson 05b) the
# hidden features move instead: the network fits the same data, but no fixed kernel describes its path exactly.
#
# Below: a one-hidden-layer ReLU network of width 4096 on 20 points of a circle, after 0, 3, 10 and 200 steps of
# gradient descent, in both parameterizations: learning rate 1.0 in the NTK parameterization, 0.3 in μP (with μP's
# per-layer factors of lesson 05b). Solid: the network; dashed: the closed form of this lesson for its linearized
# model, computed with the network's own NTK at step 0 in both rows. Under μP each layer learns at its own rate, so
# "its NTK at step 0" is the kernel gradient descent actually uses,
# $\hat\Theta_0(x, x') = \sum_p r_p\,\partial_p f(x)\,\partial_p f(x')$ at initialization: each parameter's
# gradient product weighted by its layer's learning-rate factor $r_p$. The bottom row shows the gap $|\text{network} - \text{formula}|$ on a log
# axis.

# %%
data = course.circle()                    # 20 training angles, 120 test angles, y = sin 2a + 0.5 cos a
ntk_row, mup_row = course.snapshots("ntk"), course.snapshots("mup")
course.draw_snapshots([ntk_row, mup_row])
plt.show()

# %% [markdown]
# Read the panels from left to right. The network in the NTK parameterization starts from a random function
# $f_0$ of size one and reaches the data by step 10, close to the formula at every step, while its features (the
# relative change of the last hidden layer's feature kernel, section 2) move by 0.1 % at most. The μP network
# starts almost flat (its output at initialization shrinks with the width, here to about its bias) and fits the
# data too, but its features move by 29 %, 82 % and 120 %: it learns a new representation (its NTK moves with it
# too, lesson 05b; not measured here).
#
# **Where the step-0 formula stops describing μP** (bottom row; both rows against their own step-0 formula). The
# largest gap of the μP network is 0.05 at step 3 and 0.11 at step 10, about 4.5 times the NTK row's 0.011 and
# 0.023. Its features move fastest in the same steps, and a kernel that moves is the natural reading of the gap,
# though this one run does not isolate the cause (the two rows also train at different learning rates). By step
# 200 both networks and both formulas pass through the 20 training points of this smooth target, and the gaps are
# close again (0.05 against 0.04): the end of training hides what the middle shows. What sets μP apart is that its
# features and kernel move by $O(1)$ at every width (lesson 05b). The rest of the lesson is about the first row:
# its formula, how well real networks follow it, and what it can and cannot learn.

# %% tags=["check"]
nh.check_between("NTK parameterization: largest feature change over the 4 snapshots (≤ 0.1 %)",
                 ntk_row.feature_change.max(), 0, 0.001)
nh.check_close("μP: feature change at steps 3, 10, 200 (29 %, 82 %, 120 %)", mup_row.feature_change[1:],
               [0.29, 0.82, 1.20], atol=0.005)
nh.check_close("μP: gap to its step-0 formula at steps 3, 10, 200 (0.05, 0.11, 0.05)", mup_row.gaps[1:],
               [0.05, 0.11, 0.05], atol=0.005)
nh.check_close("NTK parameterization: gap to its step-0 formula at steps 3, 10 (0.011, 0.023)",
               ntk_row.gaps[1:3], [0.011, 0.023], atol=0.0005)
nh.check_close("NTK parameterization: gap to its step-0 formula at step 200 (0.04)", ntk_row.gaps[3], 0.04,
               atol=0.005)
nh.check_between("step 3: μP gap / NTK-parameterization gap (about 4.5)", mup_row.gaps[1] / ntk_row.gaps[1],
                 4.4, 4.8)
nh.check_between("step 10: μP gap / NTK-parameterization gap (about 4.5)", mup_row.gaps[2] / ntk_row.gaps[2],
                 4.4, 4.8)
nh.check_between("μP: largest |f₀| on the test angles (almost flat: its readout bias)",
                 float(mup_row.network[0].abs().max()), 0, 0.5)
nh.check_between("μP: spread of f₀ over the test angles (flat)", float(mup_row.network[0].std()), 0, 0.02)
nh.check_between("NTK parameterization: max |network − target| at step 200", ntk_row.target_gap, 0, 0.1)
nh.check_between("μP: max |network − target| at step 200", mup_row.target_gap, 0, 0.1)

# %% [markdown]
# ## 4.4.2 The closed form
#
# Take the loss $\mathcal L = \frac{1}{2n}\sum_i (f(x_i) - y_i)^2$, gradient flow with learning rate $\eta$, and an
# NTK $\Theta$ that stays fixed (infinite width). Then $\dot f_t(X) = -\frac{\eta}{n}\Theta\,(f_t(X) - y)$ on the
# training inputs $X$, and the solution is (Jacot et al. 2018; Lee et al. 2019, eq. 8–9)
#
# $$f_t(X) = f_0(X) + \bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)),$$
# $$f_t(x^*) = f_0(x^*) + \Theta(x^*, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)).$$
#
# Here $\Theta$ alone is the $n \times n$ Gram matrix $\Theta(X, X)$. The first line solves the linear ODE for the
# residual $f_t(X) - y$, which decays like $e^{-\eta\Theta t/n}$. A test output moves with the same residual,
# $\dot f_t(x^*) = -\frac{\eta}{n}\Theta(x^*, X)\,(f_t(X) - y)$; integrating from 0 to $t$ gives
# $\Theta(x^*, X)\,\frac{\eta}{n}\int_0^t e^{-\eta\Theta s/n}ds\,(y - f_0(X))$, and
# $\frac{\eta}{n}\int_0^t e^{-\eta\Theta s/n}ds = \Theta^{-1}(I - e^{-\eta\Theta t/n})$: the second line. Discrete gradient descent replaces
# $e^{-\eta\Theta t/n}$ by $(I - \eta\Theta/n)^t$: every step multiplies the part of the residual $f - y$ along the
# $i$-th eigenvector of $\Theta$ by $1 - \eta\lambda_i/n$. The steps converge only if all these factors lie
# between $-1$ and $1$:
#
# $$\eta < \eta_\text{crit} = \frac{2n}{\lambda_\max},\qquad \lambda_\max = \text{largest eigenvalue of the NTK
# Gram matrix on the } n \text{ training inputs}.$$
#
# `nh.linearized_dynamics` computes these outputs and `nh.critical_learning_rate` the threshold.¹ For the
# lesson's data:

# %%
print(nh._("λ_max = {lam_max:.2f} (largest eigenvalue of the analytic NTK on the 20 training inputs); "
           "critical learning rate 2n/λ_max = {critical:.3f}").format(lam_max=data.lam_max,
                                                                     critical=data.critical_lr))

# %% [markdown]
# ¹ The $1/n$ comes from the mean in the loss. With $\frac12\sum_i$ it disappears ($\eta_\text{crit} = 2/\lambda_\max$),
# with PyTorch's `MSELoss` (mean, no ½) the factor $1/n$ becomes $2/n$, so $\eta_\text{crit} = n/\lambda_\max$;
# both functions take the convention as `loss=...`.

# %% tags=["check"]
nh.check_close("critical learning rate: course vs nh.critical_learning_rate", data.critical_lr,
               nh.critical_learning_rate(data.ntk_train), rtol=1e-12)
nh.check_close("critical learning rate 2n/λ_max (1.49)", data.critical_lr, 1.49, atol=0.005)

# %% [markdown]
# ## 1. Real gradient descent against the formula: what converges to what
#
# Three different statements hold as the width $m$ grows (for a fixed set of inputs):
#
# 1. At initialization, $f_0$ converges *in distribution* to a Gaussian process with the **NNGP** kernel: a random
#    function, not a kernel predictor.
# 2. During training the network stays close to its **linearization** $f^\text{lin}$, the first-order Taylor model
#    $f_0(x) + \nabla_\theta f_0(x)\cdot(\theta - \theta_0)$ around its own initial parameters, started from the
#    same $f_0$ and trained by the same gradient descent (on the squared loss its outputs are exactly the discrete
#    closed form with the network's own initial NTK $\hat\Theta_0$; the lesson computes them that way, without
#    training a second model):
#    $\sup_{t\le T}|f_t(x) - f^\text{lin}_t(x)| \to 0$. Lee et al. (2019, Thm 2.1) prove it with a bound
#    $O(m^{-1/2})$ for all $t$, for activations with a Lipschitz derivative $\phi'$, bounded inputs, an analytic
#    Gram matrix with $\lambda_\min > 0$ (0.1006 here) and learning rates below
#    $2n/(\lambda_\min + \lambda_\max)$ of that matrix in this loss convention (1.489 here; the lesson
#    uses $\eta = 1$). Jacot et al. (2018, Thm 2), for twice-differentiable activations, show that in the limit
#    taken layer by layer the NTK stays constant on a finite time interval $[0, T]$. Our ReLU network meets neither condition: for it, the measurements below
#    are the evidence (ReLU results of the same kind exist, e.g. Arora et al. 2019, Thm 3.2, for the trained
#    predictor at $t \to \infty$ with a small output scale).
# 3. As $t\to\infty$ the linearization tends to $f_0(x^*) + \Theta(x^*, X)\Theta^{-1}(y - f_0(X))$. This equals
#    the kernel-regression predictor $\Theta(x^*, X)\Theta^{-1}y$ exactly when the kernel interpolates $f_0$
#    itself, $f_0(x^*) = \Theta(x^*, X)\Theta^{-1}f_0(X)$ (for example when $f_0 = 0$), and on average over $f_0$.
#    At finite width the linearization's limit has $\hat\Theta_0$ in place of $\Theta$.
#
# The gap between a network and the closed form with the analytic NTK therefore has two parts, and we can measure
# each:
#
# $$\underbrace{f_t - f^\text{formula}_t}_{\text{total}}
# = \underbrace{\bigl(f_t - f^\text{lin}_t\bigr)}_{\text{statement 2}}
# + \underbrace{\bigl(f^\text{lin}_t - f^\text{formula}_t\bigr)}_{\text{random initial NTK vs analytic NTK}}.$$
#
# $f^\text{lin}$ is the same formula with the network's own initial NTK $\hat\Theta_0$, which differs from the
# analytic one by $O(m^{-1/2})$ (lesson 01). We train networks of four widths, 6 seeds each, for 200 steps with
# $\eta = 1$ (two thirds of the critical rate). Each number is the largest deviation over the 120 test inputs and
# over the run (every 20 steps). The 24 runs take about 10 s (a progress bar counts them).
#
# **Predict first.** If each of the two parts is $O(m^{-1/2})$, must the total fall with slope $-1/2$ over these
# widths too? Think about it before reading past the figure.

# %% tags=["nbval-ignore-output"]
widths, seeds = [256, 1024, 4096, 16384], range(6)
# gaps[part, width, seed]; parts: total, network − own linearization, own linearization − formula
gaps = np.zeros((3, len(widths), len(seeds)))
cosines = np.zeros((len(widths), len(seeds)))
runs = [(i, width, j, seed) for i, width in enumerate(widths) for j, seed in enumerate(seeds)]
for i, width, j, seed in tqdm(runs, desc=nh._("networks (width, seed)")):
    run = course.three_trajectories(width, seed)
    parts = [run.network - run.formula, run.network - run.own, run.own - run.formula]
    gaps[:, i, j] = [float(p.abs().max()) for p in parts]
    a, b = parts[1].flatten(), parts[2].flatten()
    cosines[i, j] = float(a @ b / (a.norm() * b.norm()))       # do the two parts point the same way?

# %%
names = [nh._("network − formula (total)"), nh._("network − own linearization"),
         nh._("own linearization − formula")]
mean, se = gaps.mean(2), gaps.std(2, ddof=1) / math.sqrt(len(seeds))
fits = [course.slope_with_error(widths, gaps[p]) for p in range(3)]
fig, ax = plt.subplots()
for p, (name, (slope, slope_se)) in enumerate(zip(names, fits)):
    bars = ax.errorbar(widths, mean[p], yerr=se[p], fmt="o", capsize=3,
                       label=nh._("{name}: slope {slope:.2f} ± {se:.2f}").format(name=name, slope=slope,
                                                                                  se=slope_se))
    fitted = np.exp(np.log(gaps[p]).mean() + slope * (np.log(widths) - np.log(widths).mean()))
    ax.plot(widths, fitted, "-", color=bars[0].get_color(), lw=1)
ax.plot(widths, mean[0, 0] * (np.array(widths) / widths[0]) ** -0.5, "k:", lw=1,
        label=nh._("slope −1/2 guide"))
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("largest deviation (test inputs, t ≤ 200)"))
ax.set_title(nh._("Three gaps against the width, with fitted slopes and a slope −1/2 guide"))
ax.legend(fontsize=8.5)
plt.show()

# %%
for i, width in enumerate(widths):
    print(nh._("width {width}: total {total:.4f}; cosine between the two parts {cosine:.2f}").format(
        width=width, total=mean[0, i], cosine=cosines[i].mean()))
total_slope, total_se = fits[0]
print(nh._("total: fitted slope {slope:.2f} ± {se:.2f}, {distance:.1f} standard errors from −1/2").format(
    slope=total_slope, se=total_se, distance=abs(total_slope + 0.5) / total_se))

# %% [markdown]
# Points: the mean over 6 seeds with its standard error; lines: least-squares fits of $\log(\text{gap})$ on
# $\log m$ through all 24 runs, with the standard error of the slope.²
#
# <details><summary>Answer</summary>
#
# No. Each part's fitted slope is consistent with $-1/2$ (within three standard errors). The *total*'s fitted
# slope, $-0.35 \pm 0.05$, is flatter, but only 2.7 standard errors from $-1/2$: suggestive, not significant by
# the same three-standard-error test. Two $O(m^{-1/2})$ parts give an $O(m^{-1/2})$ sum, but "$O$" is an upper
# bound: it fixes no slope for the sum at moderate widths.
#
# </details>
#
# **Why the total can be flatter.** The two parts point in
# roughly opposite directions (the cosine between them, printed above, is negative), so they cancel in part and the
# total is smaller than their sum. If both parts fell exactly like $m^{-1/2}$, a fixed fraction of cancellation
# would only lower the prefactor and a flatter slope would need the cancellation to *weaken* as $m$ grows (their
# fitted slopes only agree with $-1/2$ within the errors, so slightly different slopes could flatten it too); it
# does weaken: the cosine goes from $-0.71$ at width 256 to $-0.39$
# at 16384 (it compares whole paths, summed over inputs and steps, while the gaps are maxima: a hint, not a
# derivation). At width 16384 the total is below 2 % of the targets' largest value. For smooth activations the
# deviation from the linearization can fall faster, like $1/m$ (Dyer & Gur-Ari 2020; Huang & Yau 2020); with ReLU,
# units that switch on or off during training are one plausible reason for a slower rate (not measured here).
#
# ² $s \pm \sqrt{\text{residual variance}/\sum_k(\log m_k - \overline{\log m})^2}$, every seed one point.

# %% tags=["check"]
nh.check_between("network − own linearization: slope's distance from −1/2 in standard errors (< 3)",
                 abs(fits[1][0] + 0.5) / fits[1][1], 0, 3)
nh.check_between("own linearization − formula: slope's distance from −1/2 in standard errors (< 3)",
                 abs(fits[2][0] + 0.5) / fits[2][1], 0, 3)
nh.check_that("the two parts point in opposite directions at these widths (mean cosine < −0.25)",
              (cosines.mean(1) < -0.25).all(), measured=str(np.round(cosines.mean(1), 2)),
              expected="< −0.25")
nh.check_between("width 16384: total gap / largest target (below 2 %)",
                 mean[0, -1] / float(data.y_train.abs().max()), 0, 0.02)
nh.check_close("total: fitted slope (−0.35)", total_slope, -0.35, atol=0.01)
nh.check_between("total: slope's distance from −1/2 in standard errors (2.7: below 3, not significant)",
                 abs(total_slope + 0.5) / total_se, 2.65, 2.75)
nh.check_close("cosine between the parts at width 256 (−0.71)", cosines[0].mean(), -0.71, atol=0.005)
nh.check_close("cosine between the parts at width 16384 (−0.39): the cancellation weakens",
               cosines[-1].mean(), -0.39, atol=0.005)

# %% [markdown]
# ## 2. Lazy training, measured
#
# In the NTK parameterization the output changes by $O(1)$ (it fits the data, at every width), while what vanishes
# as $m$ grows is the change of the **NTK** and of the hidden **features** (Lee et al. 2019 prove $O(m^{-1/2})$ for
# the NTK, for activations with a Lipschitz $\phi'$; for our ReLU network the numbers below are the evidence). We
# measure the relative change $\lVert\text{after} - \text{before}\rVert/\lVert\text{before}\rVert$ of the outputs
# on the training inputs, of the NTK and of the last hidden layer's feature kernel over 200 steps, for
# three widths and 6 seeds each (18 runs, a few seconds).
#
# **Predict first.** The proved rate for the NTK's change is an upper bound, $O(m^{-1/2})$. Over widths 256 to
# 4096, will the measured changes of the NTK and of the features fall with a log-log slope of about $-1/2$, a
# flatter one, or a steeper one?

# %%
lazy_widths, lazy_seeds = [256, 1024, 4096], range(6)
changes = course.lazy_table(lazy_widths, lazy_seeds)    # changes[part, width, seed]: output, NTK, features
for i, width in enumerate(lazy_widths):
    output, ntk, features = changes[:, i].mean(1)
    print(nh._("width {width}, mean of 6 seeds: output changed by {output:.2f}, NTK by {ntk:.4f}, "
               "features by {features:.4f}").format(width=width, output=output, ntk=ntk, features=features))
ntk_slope, ntk_se = course.slope_with_error(lazy_widths, changes[1])
feature_slope, feature_se = course.slope_with_error(lazy_widths, changes[2])
print(nh._("fitted log-log slopes against the width: NTK {ntk:.2f} ± {ntk_se:.2f}, "
           "features {features:.2f} ± {features_se:.2f}").format(
    ntk=ntk_slope, ntk_se=ntk_se, features=feature_slope, features_se=feature_se))

# %% [markdown]
# <details><summary>Answer</summary>
#
# Steeper. The NTK's change falls with slope $-0.69 \pm 0.06$, 3.2 standard errors steeper than $-1/2$, and the
# features' with $-0.90 \pm 0.09$, 4.3 standard errors steeper than $-1/2$ and 1.1 from $-1$, while the output
# changes by 1.2 to 1.4 at every width. A proved $O(m^{-1/2})$ bounds the change from above; it does not say that
# the change cannot fall faster, and three widths of one data set do not fix the rate beyond that.
#
# </details>

# %% tags=["check"]
nh.check_between("smallest output change over the 18 runs (O(1): above 0.3)", changes[0].min(), 0.3, math.inf)
nh.check_close("NTK change: fitted slope (−0.69)", ntk_slope, -0.69, atol=0.01)
nh.check_between("NTK change: standard errors steeper than −1/2 (3.2)", (-0.5 - ntk_slope) / ntk_se,
                 3.1, 3.3)
nh.check_close("feature change: fitted slope (−0.90)", feature_slope, -0.90, atol=0.01)
nh.check_between("feature change: standard errors steeper than −1/2 (4.3)",
                 (-0.5 - feature_slope) / feature_se, 4.2, 4.4)
nh.check_between("feature change: standard errors from −1 (1.1)", abs(feature_slope + 1) / feature_se,
                 1.0, 1.2)
nh.check_between("mean output change, smallest over the widths (1.2)", changes[0].mean(1).min(), 1.15, 1.25)
nh.check_between("mean output change, largest over the widths (1.4)", changes[0].mean(1).max(), 1.35, 1.45)

# %% [markdown]
# ## Explore: width, learning rate, steps
#
# **Above the critical rate.** The formula has a fixed kernel: for $\eta > 2n/\lambda_\max$ its top component
# grows at every step, for ever (at equality it flips sign at every step without growing). A finite network's
# kernel is not fixed. Its own threshold is $2n/\hat\lambda_\max$, with $\hat\lambda_\max$ the largest eigenvalue
# of *its* NTK, which differs from the analytic one (above or below it, depending on the seed) and can move during
# training.
#
# The network (solid) against the formula (dashed) on the test circle, both started from the network's own $f_0$.
# While the formula's steps are stable you see the outputs after the chosen number of steps; when they are not, the
# picture switches to the **training loss on a log axis**. The title says what happened; its last line gives the
# critical learning rate of the formula, $2n/\lambda_\max$, that of this network's own NTK at step 0,
# $2n/\hat\lambda_\max$, and (while both are stable) $\max|\text{network} - \text{formula}|$ on the test angles.
# A printed line adds the network's $\hat\lambda_\max$ before and after training.

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_dynamics,
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       learning_rate=nh.widgets.sigma_slider(nh._("learning rate"), 1.0, min=0.1, max=3.5),
                       steps=nh.widgets.int_slider(nh._("steps"), 100, min=0, max=400))

# %% [markdown]
# **Predict, then check.**
#
# 1. Width 64, learning rate 1.4, 100 steps. The formula is stable ($1.4 < 1.49$), but this network's own
#    threshold at step 0 is lower (title: 1.32). Will the network fail to converge?
#
# <details><summary>Answer</summary>
#
# No. Its loss never rises above its start and ends at $2.7\cdot 10^{-4}$. What changes is its own kernel: its
# $\hat\lambda_\max$ falls from 30.3 to 26.9, below $2n/\eta = 28.6$, so that its steps become stable. A width-64
# network is far from the infinite-width limit: its NTK moves enough to get out of the unstable range, and that
# is already beyond the kernel regime.
#
# </details>
#
# 2. Width 4096, learning rate 1.6, 100 steps: above the formula's threshold. Which curve blows up, and can the
#    other one still converge? (Think of what question 1 showed the network's own kernel doing.)
#
# <details><summary>Answer</summary>
#
# The formula blows up: its top component is multiplied by $|1 - \eta\lambda_\max/n| = 1.14$ at every step. The
# network's loss first shoots up, to 25.2 at step 14, then falls to $5.8\cdot 10^{-5}$ by step 100, while its
# $\hat\lambda_\max$ falls from 27.1 to 22.9, below $2n/\eta = 25$. This is the *catapult* phase (Lewkowycz et
# al. 2020), outside the kernel regime. At $\eta = 1.6$ and $2.0$ every width of the slider recovers within 400
# steps (seed 0); at width 1024, $\eta = 2$ and only 5 steps it has not yet (the loss is still rising). Push on:
# at $\eta = 3.5$ every width of the slider diverges within 11 steps, while at $\eta = 3$ widths 64 and 4096
# still recover and 256 and 1024 diverge.
#
# </details>
#
# 3. Learning rate 1.0, 100 steps: move the width from 256 to 4096, 16 times wider. Section 1's fitted slope for
#    the total gap, $-0.35$, predicts on average a factor $16^{0.35} \approx 2.6$. Will this one seed's
#    $\max|\text{network} - \text{formula}|$ (title) shrink by about that?
#
# <details><summary>Answer</summary>
#
# No, barely: from 0.042 to 0.034 (and 0.029 at width 1024, so not even monotone). A fitted slope describes the
# mean over seeds; one seed's maximum over 120 inputs of a random gap scatters around it by about as much as
# the mean changes between neighbouring widths (section 1's 6 seeds: standard deviation 0.027 at width 256, mean
# 0.081 → 0.055 at 1024), and the slope was fitted to a different quantity, the maximum over the whole run. A width law needs many seeds and fitted slopes with error bars, as in
# section 1, not one run per width.
#
# </details>

# %% tags=["check"]
narrow = course.explorer_run(64, 1.4, 100)
nh.check_close("question 1: width 64, own critical learning rate (1.32)",
               narrow.own_critical_lr, 1.32, atol=0.005)
nh.check_that("question 1: the loss never rises above its start",
              float(narrow.loss.max()) <= float(narrow.loss[0]),
              measured=f"{float(narrow.loss.max()):.3g}", expected=f"≤ {float(narrow.loss[0]):.3g}")
nh.check_close("question 1: final loss (2.7e-4)", float(narrow.loss[-1]), 2.7e-4, rtol=0.05)
nh.check_close("question 1: own λ_max before and after (30.3, 26.9)", [narrow.own_start, narrow.own_end],
               [30.3, 26.9], atol=0.05)
catapult = course.explorer_run(4096, 1.6, 100)
nh.check_close("question 2: the formula's factor per step |1 − ηλ_max/n| (1.14)",
               abs(1 - catapult.ratio), 1.14,
               atol=0.005)
nh.check_close("question 2: the network's peak loss (25.2)", float(catapult.loss.max()), 25.2, atol=0.05)
nh.check_that("question 2: step of the peak (14)", int(catapult.loss.argmax()) == 14,
              measured=int(catapult.loss.argmax()), expected=14)
nh.check_close("question 2: final loss (5.8e-5)", float(catapult.loss[-1]), 5.8e-5, rtol=0.05)
nh.check_close("question 2: own λ_max before and after (27.1, 22.9)", [catapult.own_start, catapult.own_end],
               [27.1, 22.9], atol=0.05)
nh.check_between("question 2: η = 1.6, widths 64 … 4096, 400 steps: largest final loss",
                 max(course.final_losses(1.6).values()), 0, 1e-3)
nh.check_between("question 2: η = 2.0, widths 64 … 4096, 400 steps: largest final loss",
                 max(course.final_losses(2.0).values()), 0, 1e-3)
nh.check_that("question 2: η = 3.5, widths 64 … 4096: every one diverges within 11 steps",
              all(step is not None and step <= 11 for step in course.divergence_steps(3.5).values()),
              measured=str(course.divergence_steps(3.5)), expected="≤ 11")
nh.check_that("question 2: η = 3: widths 64 and 4096 recover, 256 and 1024 diverge",
              [step is None for step in course.divergence_steps(3.0).values()] == [True, False, False, True],
              measured=str(course.divergence_steps(3.0)),
              expected="{64: None, 256: ·, 1024: ·, 4096: None}")
nh.check_that("question 2: η = 2, 5 steps: the loss is still rising",
              float(course.explorer_run(1024, 2.0, 5).loss.argmax()) == 5,
              measured=int(course.explorer_run(1024, 2.0, 5).loss.argmax()), expected=5)
nh.check_close("question 3: max |network − formula| at widths 256, 1024, 4096 (0.042, 0.029, 0.034)",
               [course.explorer_gap(w) for w in (256, 1024, 4096)], [0.042, 0.029, 0.034], atol=0.0005)

# %% [markdown]
# ## 3. Early stopping is an implicit ridge
#
# In the eigenbasis of $\Theta$ (eigenvalues $\lambda_i$), gradient flow from $f_0 = 0$ (a symmetrized network:
# two copies with opposite readouts, whose outputs cancel at initialization)
# keeps the fraction $1 - e^{-\eta\lambda_i t/n}$ of each component of $y$, while ridge regression with penalty
# $\rho$ keeps $\lambda_i/(\lambda_i + \rho)$. Both shrink the small-eigenvalue (wiggly) directions, and the two
# filters cross ½ at the same $\lambda$ when $\rho = n\ln 2/(\eta t)$: roughly $\rho \approx n/(\eta t)$, the
# value the figure uses (so there the two curves cross ½ at nearby, not equal, $\lambda$). Trained
# to the end, the flow interpolates the data: **ridgeless** kernel regression. We add noise of standard deviation
# 0.5 to the 20 labels and measure the test error against the noise-free target.

# %%
noise = 0.5                     # standard deviation of the label noise: change it, rerun, and look
run = course.early_stopping(noise)
course.draw_early_stopping(run)
plt.show()
print(nh._("best test MSE: early stopping {stopping:.3f} (at t ≈ {time:.0f}), ridge {ridge:.3f}, "
           "trained to convergence (ridgeless) {ridgeless:.3f}").format(
    stopping=run.flow_error.min(), time=run.best_time, ridge=run.ridge_error.min(), ridgeless=run.ridgeless))

# %% [markdown]
# Left: the two curves have the same shape, a U, though not the same one (their minima differ in height and
# place): too little training (a large ridge) leaves the target unlearned, too much (a small ridge) fits the
# noise, and at the end the flow reaches the ridgeless interpolant. Right: the two filters at the best stopping
# time, with the eigenvalues of $\Theta$ marked: both keep the large-eigenvalue components of $y$ and cut the
# small ones, and they differ most in between. The numbers below come from one noise draw (seed 0).
#
# **Predict, then check** (change `noise` in the cell above and rerun it).
#
# 1. Set `noise = 0.1`. Will the best stopping time come earlier or later than at 0.5, and will stopping early
#    still beat training to the end?
#
# <details><summary>Answer</summary>
#
# Later, $t \approx 19$ instead of 12 (on a fine time grid; the figure's coarse grid shows its point 17): with less noise there is less to avoid fitting, so it pays to train longer.
# It still wins, by a factor 3.2 (0.0018 against 0.0059 ridgeless).
#
# </details>
#
# 2. Set `noise = 1.0`. Earlier or later, and by how much does stopping early win now?
#
# <details><summary>Answer</summary>
#
# Earlier, $t \approx 8$, and by a factor 4.0 (0.143 against 0.579): the more noise, the sooner the flow starts
# fitting it, and the more there is to gain from stopping.
#
# </details>

# %% tags=["check"]
nh.check_between("noise 0.5: best early stopping / ridgeless error (beats interpolation by 2×)",
                 course.early_stopping(0.5).flow_error.min() / course.early_stopping(0.5).ridgeless, 0, 0.5)
nh.check_between("noise 0.5: best ridge / ridgeless error (beats interpolation by 2×)",
                 course.early_stopping(0.5).ridge_error.min() / course.early_stopping(0.5).ridgeless, 0, 0.5)
nh.check_between("noise 0.5: best early stopping / best ridge (about equal, within 1.5×)",
                 course.early_stopping(0.5).flow_error.min() / course.early_stopping(0.5).ridge_error.min(),
                 1 / 1.5, 1.5)
nh.check_close("noise 0.5: the flow at t = 1e6 reaches the ridgeless error",
               course.early_stopping(0.5).flow_error[-1], course.early_stopping(0.5).ridgeless, rtol=1e-3)
nh.check_close("best stopping time at noise 0.1, 0.5, 1.0 on the figure's grid (17, 12, 8)",
               [course.early_stopping(v).best_time for v in (0.1, 0.5, 1.0)], [17, 12, 8], atol=0.5)
nh.check_close("best stopping time at noise 0.1 on a 300-point grid (19)",
               course.early_stopping(0.1, points=300).best_time, 19, atol=0.5)
nh.check_close("stopping early wins by a factor at noise 0.1 and 1.0 (3.2, 4.0)",
               [course.early_stopping(v).ridgeless / course.early_stopping(v).flow_error.min()
                for v in (0.1, 1.0)],
               [3.2, 4.0], atol=0.05)

# %% [markdown]
# ## 4. The trained infinite ensemble: its spread over initializations
#
# Over random initializations, the trained infinitely wide network is a Gaussian process (Lee et al. 2019,
# eq. 15–16). Write $A_t(x) = \Theta(x, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)$, a row of $n$ numbers,
# and $K$ for the NNGP kernel, the covariance of $f_0$. The closed form of section 4.4.2 reads
# $f_t(x) = f_0(x) - A_t(x)\,f_0(X) + A_t(x)\,y$: linear in the Gaussian $f_0$, so
#
# $$\text{mean}(x) = A_t(x)\,y,\qquad
# \Sigma_t(x, x') = K(x, x') + A_t(x)\,K(X, X)\,A_t(x')^\top - A_t(x)\,K(X, x') - K(x, X)\,A_t(x')^\top.$$
#
# (Lee et al. write $\eta$ where this lesson's loss convention has $\eta/n$.) All the spread comes from the random
# $f_0$; `nh.ensemble_prediction` computes both. We train 20 networks of width 1024
# (seeds 100–119) for 200 steps with $\eta = 1$ and compare them with this process at time $\eta t = 200$ (200
# discrete steps of size 1 differ from the flow by far less than the band).
#
# We test whether the spread over initializations matches this process: a 95 % band should hold 95 % of the
# networks (a test against the infinite-width process, not against the target).
# We count at the 20 midpoints between the training angles, where neighbouring midpoints are only weakly correlated
# under the process (checked below: at most 0.3), so the 20 × 20 = 400 z-scores $z = (f - \text{mean})/\sigma$
# behave nearly like independent draws, and we compare the count with the binomial standard error of 400
# independent draws, taking three of them as the tolerance (correlations this weak make the count scatter only a
# little more than independent draws would; the three standard errors leave room for that). No slack is added to
# the band.

# %%
mid = course.on_circle(data.angles_train + math.pi / 20)    # halfway between neighbouring training angles
kernels = course.ARCH.kernel(torch.cat([data.x_train, data.x_test, mid]))
K, T = kernels.nngp, kernels.ntk
ensemble = nh.ensemble_prediction(K[:20, :20], K[20:, :20], K[20:, 20:], T[:20, :20], T[20:, :20],
                                  data.y_train, 200)
sd = ensemble.covariance.diagonal().sqrt()
members = course.ensemble_members(range(100, 120), torch.cat([data.x_test, mid]))
deviation = members - ensemble.mean
z = (deviation[:, 120:] / sd[120:]).reshape(-1)               # 400 z-scores at the midpoints

# %%
levels = np.array([0.5, 0.6, 0.683, 0.8, 0.9, 0.95, 0.99])
course.draw_ensemble(data.angles_test, deviation[:, :120], sd[:120], data.angles_train, z, levels)
plt.show()
inside, tolerance = course.coverage(z, levels)
print(nh._("inside the 95 % band: {inside:.3f} of the 400 (nominal 0.950 ± {tolerance:.3f})").format(
    inside=inside[5], tolerance=tolerance[5]))

# %% [markdown]
# The band is narrow (σ at most 0.037 on the test circle, for outputs of size 1–2): the data pin every network
# down. It narrows at the training inputs (dotted lines) and opens between them. The right panel is the real test:
# at every nominal level, the fraction of networks inside the band lies within three binomial standard errors of
# the level. A band that is too wide would sit above the diagonal, one too narrow below it.
#
# Why does the band narrow at the inputs but not close? The next cell prints the band's width at the training
# inputs and halfway between them, from $\Sigma_t$, at a training time $\eta t$ that you choose.

# %%
time = 200          # ηt of the band: change it (try 2000, then 20), rerun, and look
at_inputs, between = course.band_widths(time)
print(nh._("ηt = {time}: largest σ at the training inputs {inputs:.2g}, halfway between them "
           "{between:.3f}").format(time=time, inputs=at_inputs, between=between))

# %% [markdown]
# **Predict, then check.**
#
# 1. At $\eta t = 200$ the band at the training inputs is about a third of its width between them. Set
#    `time = 2000`: will it close at the training inputs? And between them?
#
# <details><summary>Answer</summary>
#
# At the inputs, yes: $\sigma = 6\cdot10^{-7}$. Between them, no: 0.034. At a training input $x_i$,
# $A_t(x_i) = e_i^\top(I - e^{-\eta\Theta t/n})$, so $f_t(x_i) - \text{mean}(x_i) = [e^{-\eta\Theta t/n}f_0(X)]_i$:
# only the part of $f_0$ that training has not yet removed. Along the $i$-th eigenvector of $\Theta$ that part
# decays like $e^{-\eta\lambda_i t/n}$; the slowest direction ($\lambda_\min = 0.10$) still keeps
# $e^{-1} = 0.37$ of it at $\eta t = 200$, which is why the band only narrows there. Trained to the end, every
# network interpolates the same labels, so the spread at the inputs vanishes. Between them it tends to the spread
# of $f_0(x) - \Theta(x, X)\Theta^{-1}f_0(X)$: how badly the random $f_0$ is interpolated from its values at
# the inputs, which no amount of training removes.
#
# </details>
#
# 2. Set `time = 20`. Is the band narrower or wider than at 200, and how much does it narrow at the inputs?
#
# <details><summary>Answer</summary>
#
# Wider everywhere (0.078 between the inputs), and it hardly narrows at them (0.071): after so short a time most
# of $f_0$ is still there, at the inputs too.
#
# </details>

# %% tags=["check"]
nh.check_between("largest |correlation| between midpoints under the process (weak: ≤ 0.3)",
                 course.largest_correlation(ensemble.covariance[120:, 120:]), 0, 0.3)
nh.check_between("largest σ on the test circle (0.037)", float(sd[:120].max()), 0.0365, 0.0375)
nh.check_between("largest |coverage − nominal| over 7 levels, in units of 3 binomial standard errors",
                 float(np.abs((inside - levels) / tolerance).max()), 0, 1)
nh.check_close("band at ηt = 200: largest σ at the training inputs, between them (0.011, 0.037)",
               course.band_widths(200), [0.011, 0.037], atol=0.0005)
nh.check_that("band at ηt = 2000: largest σ at the training inputs (closed: 6e-7)",
              course.band_widths(2000)[0] < 1e-6, measured=course.band_widths(2000)[0], expected="< 1e-6")
nh.check_close("band at ηt = 2000: largest σ between the inputs (0.034)", course.band_widths(2000)[1],
               0.034, atol=0.0005)
nh.check_close("band at ηt = 20: at the inputs, between them (0.071, 0.078)", course.band_widths(20),
               [0.071, 0.078], atol=0.0005)
nh.check_close("slowest eigen-direction: λ_min (0.10)", float(torch.linalg.eigvalsh(data.ntk_train)[0]),
               0.10, atol=0.005)
nh.check_close("slowest eigen-direction: its factor e^(−λ_min · 200/n) at ηt = 200 (0.37)",
               math.exp(-float(torch.linalg.eigvalsh(data.ntk_train)[0]) * 200 / 20), 0.37, atol=0.005)

# %% [markdown]
# ## 5. What lazy training can learn: every continuous target only if every μ_k > 0
#
# A kernel regression can only produce functions built from the kernel. On the circle a kernel that depends on the
# angle $\theta$ between its inputs expands into harmonics, $\Theta(\theta) = \mu_0 + 2\sum_{k\ge1}\mu_k\cos k\theta$
# (its Mercer coefficients $\mu_k \ge 0$; on higher spheres the same holds with spherical harmonics). Every function
# kernel regression returns has a $k$-th harmonic only if $\mu_k > 0$. So, for such a dot-product kernel on the
# sphere, the NTK's function space is dense in the continuous functions (can approximate every one) **if and only
# if every $\mu_k$ is positive**. Whether that holds
# depends on the architecture:
#
# - the lesson's ReLU network *with a bias* ($\sigma_b = 0.3$) has every $\mu_k > 0$ (checked up to $k = 64$);
# - bias-free ReLU with one hidden layer (the default `nh.mlp(1)`) has $\mu_k = 0$ for every odd $k \ge 3$ (lesson
#   06); a second hidden layer fills them in (checked up to $k = 64$);
# - a bias-free odd activation such as erf gives an odd kernel: every even $\mu_k$ is zero, the constant included.
#
# `course.mercer_coefficients` reads the $\mu_k$ off `nh.dot_product_profile` (the kernel as a function of the
# angle) by a Fourier transform:

# %%
course.draw_mercer()
plt.show()

# %% tags=["check"]
mu = course.mercer_coefficients      # mu(name, 64): μ_0 … μ_64 / largest
nh.check_between("ReLU, σ_b = 0.3: smallest μ_k / largest, k ≤ 64 (positive)",
                 float(mu("ReLU, σ_b = 0.3", 64).min()), 1e-6, 1)
zero_odd = float(mu("ReLU, no bias", 64)[3::2].abs().max())     # rounding-level: printed only on failure
nh.check_that("ReLU, no bias: largest |μ_k| over odd k = 3 … 63 (zero: below 1e-12)", zero_odd < 1e-12,
              measured=zero_odd, expected="< 1e-12")
nh.check_between("ReLU, no bias: smallest μ_k over even k ≤ 64 (positive)",
                 float(mu("ReLU, no bias", 64)[0::2].min()), 1e-6, 1)
nh.check_between("ReLU, no bias: μ_1 (positive)", float(mu("ReLU, no bias", 64)[1]), 1e-6, 1)
zero_even = float(mu("erf, no bias", 64)[0::2].abs().max())
nh.check_that("erf, no bias: largest |μ_k| over even k ≤ 64 (zero: below 1e-12)", zero_even < 1e-12,
              measured=zero_even, expected="< 1e-12")
nh.check_between("ReLU, no bias, 2 layers: smallest μ_k / largest, k ≤ 64 (positive)",
                 float(mu("ReLU, no bias, 2 layers", 64).min()), 1e-6, 1)

# %% [markdown]
# ### Explore: fit cos kθ with a kernel
#
# Ridgeless NTK regression of the target $\cos k\theta$ from $n$ random angles (seeded by $n$), for one of the four
# kernels. The printed line gives $\mu_k$ and the test error divided by the target's variance ½ (an error of 1 is
# what predicting 0 everywhere scores).

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_fit,
                       kernel=nh.widgets.dropdown(
                           nh._("kernel"), "ReLU, σ_b = 0.3",
                           options=[(course.kernel_label(k), k) for k in course.KERNELS]),
                       frequency=nh.widgets.int_slider("k", 4, min=1, max=16),
                       n=nh.widgets.int_slider(nh._("training angles n"), 64, min=8, max=512))

# %% [markdown]
# **Predict, then check.**
#
# 1. Choose "ReLU, no bias" (the default `nh.mlp(1)`), $k = 3$, and move $n$ from 8 up to 512. Will the error
#    settle at 1 (the score of predicting 0 everywhere), below 1, or above 1?
#
# <details><summary>Answer</summary>
#
# Above 1 at every $n$: 3.0 at $n = 8$, 1.83 at $n = 64$, 1.65 at $n = 512$. $\mu_3 = 0$, so the fit contains no
# $\cos 3\theta$ at all; to pass through the samples it uses other harmonics instead, and whatever it adds is pure
# error on top of the missing target.
#
# </details>
#
# 2. Both "erf, no bias" and the lesson's "ReLU, σ_b = 0.3" have $\mu_3 > 0$. At $k = 3$ and $n = 64$, which one
#    learns $\cos 3\theta$ more accurately, and by roughly how much?
#
# <details><summary>Answer</summary>
#
# erf, by more than ten orders of magnitude: its error is below $10^{-15}$ (the exact value depends on rounding in
# an ill-conditioned Gram matrix), the ReLU kernel's $1.8\cdot10^{-3}$. The erf kernel is a smooth function of the
# angle, its $\mu_k$ fall fast (the figure above), and ridgeless regression of a low harmonic with such a kernel
# converges very quickly in $n$; the ReLU kernels have a kink at $\theta = 0$, their $\mu_k$ fall only like a power
# of $k$, and so does their error in $n$. (erf pays for it elsewhere: with $k = 2$ it has no harmonic to use, error
# 1.07 at $n = 512$.)
#
# </details>
#
# 3. With the lesson's kernel "ReLU, σ_b = 0.3": which is learned more accurately from the same $n$, $\cos 3\theta$
#    or $\cos 4\theta$? Decide first whether the frequency $k$ itself or something else decides it.
#
# <details><summary>Answer</summary>
#
# $\cos 4\theta$, at every $n$ from 8 to 512 (at $n = 64$: $1.1\cdot10^{-3}$ against $1.8\cdot10^{-3}$). The
# Mercer figure shows why: for this kernel $\mu_4$ is larger than $\mu_3$ (0.018 against 0.011 of the largest).
# What matters is the size of $\mu_k$, not the frequency itself, and the $\mu_k$ fall only roughly with $k$.
#
# </details>

# %% tags=["check"]
nh.check_close("question 1: ReLU no bias, cos 3θ, n = 512 and 64 (1.65, 1.83)",
               [course.ridgeless_fit("ReLU, no bias", 3, n)[1] for n in (512, 64)], [1.65, 1.83], atol=0.005)
mu_3 = abs(float(mu("ReLU, no bias", 3)[3]))                  # rounding-level: printed only on failure
nh.check_that("question 1: |μ_3| (zero to rounding: below 1e-15)", mu_3 < 1e-15, measured=mu_3,
              expected="< 1e-15")
nh.check_between("question 1: smallest error over n = 8 … 512 (at least 1)",
                 min(course.ridgeless_fit("ReLU, no bias", 3, n)[1] for n in (8, 16, 32, 64, 128, 256, 512)),
                 1, math.inf)
nh.check_close("question 1: ReLU no bias, cos 3θ, n = 8 (3.0)",
               course.ridgeless_fit("ReLU, no bias", 3, 8)[1], 3.0, atol=0.05)
nh.check_close("question 2: erf no bias, cos 2θ, n = 512 (1.07)",
               course.ridgeless_fit("erf, no bias", 2, 512)[1],
               1.07, atol=0.005)
erf_3 = course.ridgeless_fit("erf, no bias", 3, 64)[1]       # rounding-level: printed only on failure
relu_3 = course.ridgeless_fit("ReLU, σ_b = 0.3", 3, 64)[1]
nh.check_close("question 2: ReLU σ_b = 0.3, cos 3θ, n = 64 (1.8e-3)", relu_3, 1.8e-3, rtol=0.05)
nh.check_that("question 2: erf error below 1e-15 and more than ten orders below ReLU's",
              erf_3 < min(1e-15, 1e-10 * relu_3), measured=erf_3, expected="< 1e-15")
nh.check_close("question 3: μ_3 and μ_4 of the lesson's kernel / largest (0.011, 0.018)",
               mu("ReLU, σ_b = 0.3", 4)[3:5], [0.011, 0.018], atol=0.0005)
lesson_fit = lambda k, n: course.ridgeless_fit("ReLU, σ_b = 0.3", k, n)[1]      # relative test error
nh.check_between("question 3: largest error ratio cos 4θ / cos 3θ over n = 8 … 512 (below 1)",
                 max(lesson_fit(4, n) / lesson_fit(3, n) for n in (8, 16, 32, 64, 128, 256, 512)), 0, 1)
nh.check_close("question 3: cos 4θ at n = 64 (1.1e-3)", course.ridgeless_fit("ReLU, σ_b = 0.3", 4, 64)[1],
               1.1e-3, rtol=0.05)

# %% [markdown]
# ### Dense, but sample-hungry
#
# When every $\mu_k$ is positive, every continuous target can be approximated, and a noise-free target built from
# finitely many harmonics (such as $\cos k\theta$) is learned by ridgeless regression as $n$ grows (with noisy
# labels, ridgeless interpolation is not consistent in fixed dimension: Rakhlin & Zhai 2019 prove it for the
# Laplace kernel, and Li, Zhang & Lin (2024, "Kernel interpolation generalizes poorly") for kernels with
# polynomially decaying spectra, including the ReLU NTK on the sphere with a bias or with at least two hidden
# layers; that NTK's function space is the same as the Laplace kernel's (Geifman et al. 2020; Chen & Xu 2021)).
# But not cheaply: the smaller $\mu_k$, the more samples ridgeless regression needs. For this kernel the $\mu_k$
# mostly fall with $k$ ($\mu_4 > \mu_3$ is an exception: $\cos 4\theta$ is learned better than $\cos 3\theta$),
# so the high frequencies need many more samples. On the
# circle this is the decay of the spectrum: there are only $2k + 1$ harmonics of degree $\le k$. In high dimension
# it becomes a curse: for fixed $k$ and uniform data on the sphere in $d \to \infty$ dimensions, the number of
# spherical harmonics of degree $\le k$ grows like $d^k$, and so does the number of samples kernel regression needs
# (Ghorbani, Mei, Misiakiewicz & Montanari 2019/2021), while networks that learn features can need fewer (not
# shown here). We fit
# $\cos k\theta$ for $k = 1, 2, 4, 8, 16$ with the lesson's kernel (ReLU, $\sigma_b = 0.3$) from $n$ random angles.

# %%
frequencies, sizes = [1, 2, 4, 8, 16], [8, 16, 32, 64, 128, 256, 512]
relative_error = np.array([[course.ridgeless_fit("ReLU, σ_b = 0.3", k, n)[1] for n in sizes]
                           for k in frequencies])
fig, ax = plt.subplots()
for k, row in zip(frequencies, relative_error):
    ax.loglog(sizes, row, "o-", label=f"cos({k}θ)")
ax.axhline(0.01, color="k", ls=":", lw=1, label=nh._("1% of the variance"))
ax.set_xlabel(nh._("number of training angles n"))
ax.set_ylabel(nh._("test MSE / target variance"))
ax.set_title(nh._("Every frequency is learned, the high ones from many more samples"))
ax.legend(fontsize=9)
plt.show()
needed = [next((n for n, e in zip(sizes, row) if e < 0.01), None) for row in relative_error]
print(nh._("smallest n with error below 1%: {needed}").format(needed=dict(zip(frequencies, needed))))

# %% tags=["check"]
nh.check_between("every frequency k = 1 … 16 learned to < 1 % at n = 512 (largest error)",
                 relative_error[:, -1].max(), 0, 0.01)
nh.check_that("smallest n with error below 1 %, k = 1, 2, 4, 8, 16 (8, 16, 64, 128, 512)",
              needed == [8, 16, 64, 128, 512], measured=str(needed), expected="[8, 16, 64, 128, 512]")

# %% [markdown]
# ## Check your understanding
#
# 1. The lesson's Gram matrix has $\lambda_\max = 26.8$ with $n = 20$. A colleague writes the loss as
#    $\sum_i(f(x_i) - y_i)^2$, with neither the ½ nor the mean. Up to which learning rate are the formula's steps
#    stable?
#
# <details><summary>Answer</summary>
#
# The gradient of $\sum_i(f - y_i)^2$ is $2\sum_i(f - y_i)\nabla f$, so each step multiplies the residual along the
# $i$-th eigenvector by $1 - 2\eta\lambda_i$, and $\eta_\text{crit} = 1/\lambda_\max = 0.037$: forty times smaller
# than the lesson's $2n/\lambda_\max = 1.49$. The convention of the loss sets the scale of the learning rate.
#
# </details>
#
# 2. A learner trains a width-16384 network for a long time and compares its test predictions with kernel
#    regression $\Theta(x^*, X)\Theta^{-1}y$. She expects the difference to vanish if she makes the network
#    wider still. Is she right?
#
# <details><summary>Answer</summary>
#
# Training to the end gives $f_0(x^*) + \Theta(x^*, X)\Theta^{-1}(y - f_0(X))$, so the difference is
# $f_0(x^*) - \Theta(x^*, X)\Theta^{-1}f_0(X)$: how badly kernel regression interpolates the random function $f_0$
# from its values at the training inputs. It vanishes at the training inputs and is largest between them. It is
# much smaller than $f_0$: its standard deviation over initializations is the band of section 4 trained to the end,
# about 0.034 halfway between the inputs, against 1.45 for $f_0$. It does not vanish as the width grows: $f_0$
# tends to a Gaussian process, not to zero, and so does this difference. Remove it by averaging many networks (the
# ensemble mean), or start from $f_0 = 0$ by symmetrizing.
#
# </details>
#
# 3. Write the output as $f(x) = \frac{1}{\sqrt m}\sum_{j=1}^m a_j\,\phi(w_j\cdot x)$. Section 2 measured that the
#    output moves by $O(1)$ while the NTK's change shrinks with the width. If every weight moves by about the same
#    amount $\delta$, how large must $\delta$ be for the output to move by $O(1)$, and how much does one unit's
#    contribution to the kernel then change?
#
# <details><summary>Answer</summary>
#
# Each unit's term changes by about $\delta/\sqrt m$, and the $m$ changes add up coherently (gradient descent moves
# them all in the direction that reduces the loss), so the output moves by about $\sqrt m\,\delta$: $\delta$ of
# order $1/\sqrt m$ is enough. The kernel is an average over the units of products of their gradients; each unit's
# gradients change by $O(\delta) = O(1/\sqrt m)$, so the average changes by **at most** that, and freezes as $m$
# grows. It can change less: to first order a unit's change carries the random sign of its readout $a_j$, and
# such terms largely cancel in the average, leaving $O(1/m)$. That is a heuristic, not a proof; it fits the
# features' slope $-0.90 \pm 0.09$ of section 2. The NTK also contains $\phi'$, which jumps when a ReLU unit
# switches on or off, and such switches are one plausible reason why its slope, $-0.69 \pm 0.06$, lies between.
#
# </details>
#
# 4. On the noise-free labels of this lesson's target, would a small positive ridge (or stopping early) lower the
#    test error of ridgeless regression? And for "ReLU, no bias" on $\cos 3\theta$ (section 5)?
#
# <details><summary>Answer</summary>
#
# Here, no: ridge 0 gives test MSE $2.25\cdot10^{-5}$, ridge 0.01 gives $3.5\cdot10^{-5}$, ridge 0.1
# $2.9\cdot10^{-4}$. The kernel represents this smooth target well and there is no noise to damp. For the
# bias-free ReLU kernel on $\cos 3\theta$ ($n = 64$), yes: ridgeless scores 1.83 (relative to the variance),
# ridge 1 scores 1.07, and an infinite ridge (predicting 0) scores 1. When the kernel cannot represent the target,
# shrinking helps. In general the best ridge can be zero, positive or even negative (Kobak, Lomond & Sanchez 2020):
# "no ridge without noise" is typical, not guaranteed.
#
# </details>
#
# 5. Ridgeless NTK regression with the bias-free erf kernel (one hidden layer) fits the target $1 + \cos\theta$ on
#    the circle. How low can its test MSE go with many samples, and why?
#
# <details><summary>Answer</summary>
#
# Not below 1. The kernel is odd, so every function it represents is odd, $f(-x) = -f(x)$, and orthogonal to the
# constant 1 ($\mu_0 = 0$). The MSE is therefore $1 + $ the mean squared distance of the fit to the odd part $\cos\theta$:
# at least 1. At $n = 512$ the fit is close to $\cos\theta$ (distance 0.057, MSE 1.057); at $n = 64$ the MSE is
# 6.2, because interpolating data that are not odd forces the fit to oscillate.
#
# </details>

# %% tags=["check"]
nh.check_close("question 1: λ_max (26.8)", data.lam_max, 26.8, atol=0.05)
nh.check_close("question 1: 1/λ_max for Σ(f − y)² (0.037)", 1 / data.lam_max, 0.037, atol=0.0005)
nh.check_close("question 1: the lesson's 2n/λ_max is 40 times larger", data.critical_lr * data.lam_max, 40,
               rtol=1e-12)
nh.check_close("question 2: standard deviation of f₀ on the test circle (1.45)",
               float(course.ARCH.kernel(data.x_test).nngp.diagonal().sqrt().max()), 1.45, atol=0.005)
nh.check_close("question 4: lesson's target, test MSE at ridge 0 (2.25e-5)", course.lesson_ridge_mse(0),
               2.25e-5, rtol=0.01)
nh.check_close("question 4: ridge 0.01 (3.5e-5)", course.lesson_ridge_mse(0.01), 3.5e-5, rtol=0.01)
nh.check_close("question 4: ridge 0.1 (2.9e-4)", course.lesson_ridge_mse(0.1), 2.9e-4, rtol=0.03)
nh.check_close("question 4: ReLU no bias, cos 3θ, n = 64, ridge 1 (1.07)",
               course.fit_error("ReLU, no bias", 64, ((3, 1.0),), ridge=1.0)[0] / 0.5, 1.07, atol=0.005)
constant_plus_cos = ((0, 1.0), (1, 1.0))                  # the target 1 + cos θ
erf_512 = course.fit_error("erf, no bias", 512, constant_plus_cos)          # (test MSE, prediction)
nh.check_close("question 5: MSE = 1 + distance to cos θ (n = 512)", erf_512[0],
               1 + float(((erf_512[1] - course.EVAL_ANGLES.cos()) ** 2).mean()), rtol=1e-4)
nh.check_close("question 5: MSE at n = 512 and 64 (1.057, 6.2)",
               [course.fit_error("erf, no bias", n, constant_plus_cos)[0] for n in (512, 64)], [1.057, 6.2],
               atol=0.03)

# %% [markdown]
# ## Summary
#
# - An infinitely wide network in the NTK parameterization trained on the squared loss follows a closed form on
#   training and test inputs; discrete steps are stable only for $\eta < 2n/\lambda_\max$.
# - What converges: $f_0$ to the NNGP Gaussian process (in distribution); the trained network to its own
#   linearization, and that linearization to the analytic formula, each gap here consistent with $O(m^{-1/2})$
#   (proved for activations with a Lipschitz $\phi'$). Their sum partly cancels; its fitted slope here, $-0.35 \pm 0.05$, is
#   not significantly different from $-1/2$.
# - Lazy training: the outputs move by $O(1)$ while the NTK and the features freeze as the width grows; under μP
#   the features move by $O(1)$ instead.
# - Training to the end is *ridgeless* regression plus the $f_0$ offset; stopping early filters the same
#   eigen-directions a ridge does, with $\rho \approx n/(\eta t)$.
# - The trained infinite ensemble is a Gaussian process, and the spread of 20 width-1024 networks over
#   initializations matches it at every tested level; for a dot-product kernel on the sphere the
#   function space is dense iff every Mercer coefficient $\mu_k > 0$, and even then high frequencies cost many
#   samples.
#
# **Exercise 4.9** (`solutions/chapter4/ex4_9_early_stopping.py`, "Early stopping is an implicit ridge"):
# compute the closed form stably and find the ridge that early stopping imitates.

# %% [markdown]
# ## For readers of chapter 4
#
# <details><summary>Overview §3.2: the closed form, and the NNGP prior (errata B9, B27)</summary>
#
# **The text says:** $f(t) = e^{-Kt}f(0) + (I - e^{-Kt})\,y$, and "NNGP: $f \sim \mathcal{GP}(0, k_\text{NTK})$".
#
# **What is true:** that formula holds on the **training** inputs only, for $\eta = 1$ and the $\frac12\sum$ loss;
# test inputs need the $\Theta(x^*,X)\Theta^{-1}$ factor of section 4.4.2 above. The prior over functions at
# initialization is a Gaussian process with the **NNGP** kernel, not the NTK; the NTK governs training
# ([errata B9](../ERRATA.md#b9), [errata B27](../ERRATA.md#b27)).
#
# </details>
#
# <details><summary>Overview §3.1: what converges to what (errata B6, B7)</summary>
#
# **The text says:** as the width grows, two random processes converge to each other: the network's output at
# initialization and the output of kernel regression; the difference vanishes uniformly over time and over all $x$.
#
# **What is true:** three different statements (section 1): $f_0$ converges in distribution to the NNGP Gaussian
# process; the trained network stays close to its linearization, for fixed inputs, within $O(m^{-1/2})$ for small
# enough learning rates, activations with a Lipschitz derivative, bounded inputs and $\lambda_\min > 0$ (Lee et al.
# 2019, Thm 2.1); the $t \to \infty$ limit of
# the linearization is kernel regression on $y - f_0$ plus the $f_0$ offset. The theorems hold for a fixed finite set of inputs, not uniformly over
# all of input space ([errata B6](../ERRATA.md#b6), [errata B7](../ERRATA.md#b7)).
#
# </details>
#
# <details><summary>Overview §3.3: how much the output moves in lazy training (errata B11)</summary>
#
# **The text says:** in the lazy regime the output changes by $O(t/\sqrt m)$.
#
# **What is true:** the output changes by $O(1)$: it fits the data, at every width. What vanishes as $m$ grows is
# the change of the **NTK** and of the hidden **features** (section 2) ([errata B11](../ERRATA.md#b11)).
#
# </details>
#
# <details><summary>§4.4.2: "training equals kernel ridge regression" (errata A19)</summary>
#
# **The text says:** the NTK parameterization keeps training in the linearized regime throughout, and training is
# equivalent to kernel **ridge** regression.
#
# **What is true:** linearized training is exact only in the limit $m\to\infty$ (fixed learning rate; finite time
# for a general loss, all time for the squared loss with a small enough learning rate); section 1 measures the
# finite-width gap. It is kernel **gradient descent** started from $f_0$, and as $t\to\infty$ it gives
# **ridgeless** kernel regression on $y - f_0$ plus the offset $f_0$. A ridge appears only with a penalty towards
# the initial parameters: with $\frac{1}{2n}\sum_i(f(x_i)-y_i)^2 + \frac{\lambda}{2}\lVert\theta-\theta_0\rVert^2$
# the linearized model converges to $f_0 + \Theta^*(\Theta + n\lambda I)^{-1}(y - f_0)$, a ridge $\rho = n\lambda$.
# Stopping early acts *like* a ridge (section 3) ([errata A19](../ERRATA.md#a19)).
#
# </details>
#
# <details><summary>Overview §7.1: "the lazy regime has limited expressive power" (errata B31)</summary>
#
# **The text says:** the lazy regime has limited expressive power.
#
# **What is true:** it depends on the kernel, and where it is expressive, it is sample-hungry. The NTK's function
# space is dense on the sphere if and only if every Mercer coefficient $\mu_k$ is positive: true for the lesson's
# ReLU network with a bias and for bias-free ReLU with two hidden layers (section 5), false for the bias-free one-hidden-layer ReLU
# network (no odd harmonics $k \ge 3$: cos 3θ has relative test error 1.65 at $n = 512$) and for bias-free odd
# activations such as erf (no even harmonics). Where it is dense, the limitation is **sample efficiency**: without
# feature learning, complicated targets need many samples (Ghorbani et al. 2019/2021) ([errata B31](../ERRATA.md#b31)).
#
# </details>
#
# **Next:** [08 · Effective rank](08_effective_rank.ipynb)
