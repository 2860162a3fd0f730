# %% [markdown]
# # 07 · Training dynamics: the closed form against real gradient descent
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/07_training_dynamics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F07_training_dynamics.ipynb)
#
# *Chapter 4.4.2; overview text §3 and §7.1.*
#
# **You will learn**
# - the closed-form outputs of an infinitely wide network trained by gradient descent, on training **and** test
#   inputs, and which learning rates keep the steps stable;
# - what converges to what as the width $m$ grows, and how fast, measured with error bars;
# - what "lazy training" measures: the output moves by $O(1)$ while the kernel and the features freeze, and how μP
#   differs;
# - why stopping early acts like a ridge penalty, and why training to the end is *ridgeless* regression;
# - that the trained infinite ensemble's error band is calibrated, and which targets a kernel can learn at all:
#   every one only when every Mercer coefficient of the kernel is positive.
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
# gradient descent, in both parameterizations. Solid: the network; dashed: the closed form of this lesson for its
# linearized model (with the analytic NTK for the NTK parameterization; with the network's own NTK at step 0 for
# μP, whose kernel moves during training even at infinite width).

# %%
data = course.circle()                    # 20 training angles, 120 test angles, y = sin 2a + 0.5 cos a
rows = [course.snapshots("ntk"), course.snapshots("mup")]
course.draw_snapshots(rows)
plt.show()

# %% [markdown]
# Read the panels from left to right. The network in the NTK parameterization starts from a random function
# $f_0$ of size one and reaches the data within a few steps, on top of the formula at every step, while its
# features move by 0.1 % at most. The μP network starts almost flat (its output at initialization shrinks with
# the width, here to about its bias) and fits the data too, but its features move by 29 %, 82 % and 120 %: it
# learns a new representation, and its NTK moves with it. On this smooth target the path still stays within 0.11 of
# the formula with its step-0 NTK; what sets μP apart is that its features and kernel move by $O(1)$ at every
# width (lesson 05b). The rest of the lesson is about the first row: its formula, how well real networks follow
# it, and what it can and cannot learn.

# %% tags=["check"]
ntk_row, mup_row = rows
nh.check_between("NTK parameterization: largest feature change over the 4 snapshots (≤ 0.1 %)",
                 ntk_row.feature_change.max(), 0, 0.001)
nh.check_close("μP: feature change at steps 3, 10, 200 (29 %, 82 %, 120 %)", mup_row.feature_change[1:],
               [0.29, 0.82, 1.20], atol=0.005)
nh.check_between("NTK parameterization: max |network − formula| at step 200", ntk_row.gaps[-1], 0, 0.05)
nh.check_between("μP: largest gap to the formula with its step-0 NTK (within 0.11)",
                 mup_row.gaps.max(), 0.1, 0.11)
mup_f0 = float(mup_row.network[0].abs().max())
nh.check_between("μP: largest |f₀| on the test angles (almost flat: its readout bias)", mup_f0, 0, 0.5)
nh.check_between("μP: spread of f₀ over the test angles (flat)", float(mup_row.network[0].std()), 0, 0.02)
for row in rows:
    fit = float((row.network[-1] - course.target(data.angles_test)).abs().max())
    nh.check_between("both: max |network − target| on the test angles at step 200", fit, 0, 0.1)

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
# Here $\Theta$ alone is the $n \times n$ Gram matrix $\Theta(X, X)$. Discrete gradient descent replaces
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
# with PyTorch's `MSELoss` (mean, no ½) it becomes $2/n$; both functions take the convention as `loss=...`.

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
#    around its own initial parameters, started from the same $f_0$ and trained by the same gradient descent:
#    $\sup_{t\le T}|f_t(x) - f^\text{lin}_t(x)| \to 0$ (Jacot et al. 2018, Thm 2). Lee et al. (2019, Thm 2.1) bound
#    it by $O(m^{-1/2})$ for all $t$, for learning rates below a threshold.
# 3. The kernel-regression predictor is only the $t\to\infty$ limit of $f^\text{lin}$, and it keeps the random
#    offset from $f_0$.
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
names = ["network − formula (total)", "network − own linearization", "own linearization − formula"]
mean, se = gaps.mean(2), gaps.std(2, ddof=1) / math.sqrt(len(seeds))
fits = [course.slope_with_error(widths, gaps[p]) for p in range(3)]
fig, ax = plt.subplots()
for p, (name, (slope, slope_se)) in enumerate(zip(names, fits)):
    bars = ax.errorbar(widths, mean[p], yerr=se[p], fmt="o", capsize=3,
                       label=f"{name}: slope {slope:.2f} ± {slope_se:.2f}")
    fitted = np.exp(np.log(gaps[p]).mean() + slope * (np.log(widths) - np.log(widths).mean()))
    ax.plot(widths, fitted, "-", color=bars[0].get_color(), lw=1)
ax.plot(widths, mean[0, 0] * (np.array(widths) / widths[0]) ** -0.5, "k:", lw=1, label="slope −1/2 guide")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("width m")
ax.set_ylabel("largest deviation (test inputs, t ≤ 200)")
ax.set_title(nh._("Each part shrinks like m^(−1/2); here their sum shrinks more slowly"))
ax.legend(fontsize=8.5)
plt.show()
for i, width in enumerate(widths):
    print(nh._("width {width}: total {total:.4f}; cosine between the two parts {cosine:.2f}").format(
        width=width, total=mean[0, i], cosine=cosines[i].mean()))

# %% [markdown]
# Points: the mean over 6 seeds with its standard error; lines: least-squares fits of $\log(\text{gap})$ on
# $\log m$ through all 24 runs, with the standard error of the slope.²
#
# **What the data say.** Each of the two parts shrinks like $m^{-1/2}$: both fitted slopes lie within three
# standard errors of $-1/2$. The *total* falls more slowly over these widths (its fitted slope is printed in the
# legend), because at these widths the two parts point in roughly opposite directions (the cosine between them,
# printed above, is negative) and cancel in part. That slope describes these widths only, not a law: theory gives
# an **upper bound**, both parts are $O(m^{-1/2})$ and so is their sum, and a fitted slope above $-1/2$ at moderate
# widths does not contradict it. At width 16384 the total is below 2 % of the targets' largest value. For smooth
# activations the deviation from the linearization can fall faster, like $1/m$ (Dyer & Gur-Ari 2020; Huang & Yau
# 2020); with ReLU, units that switch on or off during training keep it nearer $m^{-1/2}$.
#
# ² $s \pm \sqrt{\text{residual variance}/\sum_k(\log m_k - \overline{\log m})^2}$, every seed one point.

# %% tags=["check"]
(slope_1, se_1), (slope_2, se_2) = fits[1], fits[2]
nh.check_between("network − own linearization: fitted slope within 3 standard errors of −1/2", slope_1,
                 -0.5 - 3 * se_1, -0.5 + 3 * se_1)
nh.check_between("own linearization − formula: fitted slope within 3 standard errors of −1/2", slope_2,
                 -0.5 - 3 * se_2, -0.5 + 3 * se_2)
nh.check_that("the two parts point in opposite directions at these widths (mean cosine < −0.25)",
              (cosines.mean(1) < -0.25).all(), measured=str(np.round(cosines.mean(1), 2)),
              expected="< −0.25")
target_size = float(data.y_train.abs().max())
nh.check_between("width 16384: total gap / largest target (below 2 %)", mean[0, -1] / target_size, 0, 0.02)
nh.check_that("the total never exceeds the sum of the two parts (triangle inequality, every run)",
              (gaps[0] <= gaps[1] + gaps[2] + 1e-12).all(), measured="all runs", expected="all runs")

# %% [markdown]
# ## 2. Lazy training, measured
#
# In the NTK parameterization the output changes by $O(1)$ (it fits the data, at every width), while what vanishes
# as $m$ grows is the change of the **NTK** and of the hidden **features** (Lee et al. 2019 prove $O(m^{-1/2})$ for
# the NTK). We measure the relative change $\lVert\text{after} - \text{before}\rVert/\lVert\text{before}\rVert$ of
# the outputs on the training inputs, of the NTK and of the last hidden layer's feature kernel over 200 steps.

# %%
changes = [course.lazy_changes(width) for width in (256, 1024, 4096)]
for c in changes:
    print(nh._("width {width}: output changed by {output:.2f}, NTK by {ntk:.4f}, features by {features:.4f}")
          .format(width=c.width, output=c.output, ntk=c.ntk, features=c.features))

# %% tags=["check"]
nh.check_between("smallest output change over the three widths (O(1): above 0.3)",
                 min(c.output for c in changes),
                 0.3, math.inf)
nh.check_between("NTK change: log-log slope against width (shrinks: below −0.3)",
                 nh.loglog_slope([c.width for c in changes], [c.ntk for c in changes]), -math.inf, -0.3)
nh.check_between("feature change: log-log slope against width (shrinks: below −0.3)",
                 nh.loglog_slope([c.width for c in changes], [c.features for c in changes]), -math.inf, -0.3)

# %% [markdown]
# ## Explore: width, learning rate, steps
#
# The network (dashed) against the formula (solid) on the test circle, both started from the network's own $f_0$.
# While the formula's steps are stable you see the outputs after the chosen number of steps; when they are not, the
# picture switches to the **training loss on a log axis**. The first printed line gives the critical learning rate
# of the formula, $2n/\lambda_\max$, and that of this network's own NTK at step 0, $2n/\hat\lambda_\max$, with the
# network's $\hat\lambda_\max$ before and after training. The title says what happened.

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_dynamics,
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       learning_rate=nh.widgets.sigma_slider("learning rate", 1.0, min=0.1, max=2.0),
                       steps=nh.widgets.int_slider("steps", 100, min=0, max=400))

# %% [markdown]
# **Predict, then check.**
#
# 1. Width 64, learning rate 1.4, 100 steps. The formula is stable ($1.4 < 1.49$), but this network's own
#    threshold at step 0 is lower (printed: 1.32). Will the network fail to converge?
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
# 2. Width 4096, learning rate 1.6, 100 steps: above the formula's threshold. Which curve blows up, and what does
#    the other one do?
#
# <details><summary>Answer</summary>
#
# The formula blows up: its top component is multiplied by $|1 - \eta\lambda_\max/n| = 1.14$ at every step. The
# network's loss first shoots up, to 25.2 at step 14, then falls to $5.8\cdot 10^{-5}$ by step 100, while its
# $\hat\lambda_\max$ falls from 27.1 to 22.9, below $2n/\eta = 25$. This is the *catapult* phase (Lewkowycz et
# al. 2020), outside the kernel regime. At $\eta = 1.6$ and $2.0$ every width of the slider recovers within 400
# steps (seed 0); at width 1024, $\eta = 2$ and only 5 steps it has not yet (the loss is still rising).
#
# </details>
#
# 3. Learning rate 1.0, 100 steps: move the width from 256 to 4096, 16 times wider. Will the printed
#    $\max|\text{network} - \text{formula}|$ shrink by $\sqrt{16} = 4$?
#
# <details><summary>Answer</summary>
#
# No, barely: from 0.042 to 0.034 (and 0.029 at width 1024). This is one seed, and a maximum over 120 inputs of a
# random gap scatters a lot; section 1 showed too that at these widths the total gap falls more slowly than its two
# parts. A width law needs many seeds and fitted slopes with error bars, as in section 1, not one run per width.
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
recovered = {(width, lr): course.explorer_run(width, lr, 400)
             for width in (64, 256, 1024, 4096) for lr in (1.6, 2.0)}
final = {key: (math.inf if run.diverged_at is not None else float(run.loss[-1]))
         for key, run in recovered.items()}
nh.check_between("question 2: η = 1.6, 2.0, 400 steps, widths 64 … 4096: largest final loss",
                 max(final.values()), 0, 1e-3)
short = course.explorer_run(1024, 2.0, 5)
nh.check_that("question 2: η = 2, 5 steps: the loss is still rising",
              float(short.loss[-1]) == float(short.loss.max()),
              measured=f"{float(short.loss[-1]):.3g}", expected="the largest loss so far")
gap = {w: float((course.explorer_run(w, 1.0, 100).outputs[-1] - course.explorer_run(w, 1.0, 100).formula_test)
                .abs().max()) for w in (256, 1024, 4096)}
nh.check_close("question 3: max |network − formula| at widths 256, 1024, 4096 (0.042, 0.029, 0.034)",
               [gap[256], gap[1024], gap[4096]], [0.042, 0.029, 0.034], atol=0.0005)

# %% [markdown]
# ## 3. Early stopping is an implicit ridge
#
# In the eigenbasis of $\Theta$ (eigenvalues $\lambda_i$), gradient flow from $f_0 = 0$ (a symmetrized network)
# keeps the fraction $1 - e^{-\eta\lambda_i t/n}$ of each component of $y$, while ridge regression with penalty
# $\rho$ keeps $\lambda_i/(\lambda_i + \rho)$. Both shrink the small-eigenvalue (wiggly) directions, and the two
# filters cross ½ at the same $\lambda$ when $\rho = n\ln 2/(\eta t)$: roughly $\rho \approx n/(\eta t)$. Trained
# to the end, the flow interpolates the data: **ridgeless** kernel regression. We add noise of standard deviation
# 0.5 to the 20 labels and measure the test error against the noise-free target.

# %%
noisy = data.y_train + 0.5 * torch.randn(20, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
truth = course.target(data.angles_test)
times = np.geomspace(1, 1e6, 40)
flow = nh.linearized_dynamics(data.ntk_train, noisy, times, ntk_test_train=data.ntk_test)
flow_error = ((flow.test - truth) ** 2).mean(1).numpy()
ridges = 20 / times
ridge_fits = [nh.kernel_regression(data.ntk_train, data.ntk_test, noisy, ridge=r) for r in ridges]
ridge_error = np.array([float(((fit - truth) ** 2).mean()) for fit in ridge_fits])
fig, ax = plt.subplots()
ax.semilogx(times, flow_error, label="gradient flow, time t")
ax.semilogx(times, ridge_error, "--", label="ridge regression, ρ = n/(ηt)")
ax.set_xlabel("training time t (η = 1)")
ax.set_ylabel("test MSE against the noise-free target")
ax.set_title(nh._("Stopping early beats training to the end, like a ridge does"))
ax.legend()
plt.show()
interpolation = float(((nh.kernel_regression(data.ntk_train, data.ntk_test, noisy) - truth) ** 2).mean())
print(nh._("best test MSE: early stopping {stopping:.3f}, ridge {ridge:.3f}, trained to convergence "
           "(ridgeless) {ridgeless:.3f}, the flow at t = 1e6 {flow:.3f}").format(
    stopping=flow_error.min(), ridge=ridge_error.min(), ridgeless=interpolation, flow=flow_error[-1]))

# %% [markdown]
# The two curves are the same U: too little training (a large ridge) leaves the target unlearned, too much (a small
# ridge) fits the noise, and at the end the flow reaches the ridgeless interpolant.

# %% tags=["check"]
best_stop, best_ridge = flow_error.min(), ridge_error.min()
nh.check_between("best early stopping / ridgeless error (beats interpolation by 2×)",
                 best_stop / interpolation,
                 0, 0.5)
nh.check_between("best ridge / ridgeless error (beats interpolation by 2×)",
                 best_ridge / interpolation, 0, 0.5)
nh.check_between("best early stopping / best ridge (about equal, within 1.5×)",
                 best_stop / best_ridge, 1 / 1.5, 1.5)
nh.check_close("the flow at t = 1e6 reaches the ridgeless error", flow_error[-1], interpolation, rtol=1e-3)

# %% [markdown]
# ## 4. The trained infinite ensemble and its calibration
#
# Averaged over initializations, the trained infinitely wide network is a Gaussian process (Lee et al. 2019,
# eq. 15–16): mean $\Theta^*\Theta^{-1}(I - e^{-\eta\Theta t/n})\,y$, covariance built from both the NNGP and the NTK
# kernels. Its spread comes from the random $f_0$ (the offset of statement 3). We train 20 networks of width 1024
# (seeds 100–119) for 200 steps with $\eta = 1$ and compare them with this process at time $\eta t = 200$ (200
# discrete steps of size 1 differ from the flow by far less than the band).
#
# A band is *calibrated* when its nominal coverage is what one sees: a 95 % band should hold 95 % of the networks.
# We count at the 20 midpoints between the training angles, where neighbouring midpoints are only weakly correlated
# under the process, so the 20 × 20 = 400 z-scores $z = (f - \text{mean})/\sigma$ act as independent draws, and a
# count of 400 draws scatters by a binomial standard error. No slack is added to the band.

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
levels = np.array([0.5, 0.6, 0.683, 0.8, 0.9, 0.95, 0.99])
course.draw_ensemble(data.angles_test, deviation[:, :120], sd[:120], data.angles_train, z, levels)
plt.show()
inside, tolerance = course.coverage(z, levels)
print(nh._("inside the 95 % band: {inside:.3f} of the 400 (nominal 0.950 ± {tolerance:.3f})").format(
    inside=inside[5], tolerance=tolerance[5]))

# %% [markdown]
# The band is narrow (σ at most 0.037 on the test circle, for outputs of size 1–2): the data pin every network
# down. It narrows near the training inputs and opens between them. The right panel is the real test: at
# every nominal level, the fraction of networks inside the band lies within three binomial standard errors of the
# level. A band that is too wide would sit above the diagonal, one too narrow below it.

# %% tags=["check"]
sd_mid = sd[120:]
correlation = ensemble.covariance[120:, 120:] / (sd_mid[:, None] * sd_mid[None, :])
largest_correlation = float((correlation - torch.eye(20, dtype=torch.float64)).abs().max())
nh.check_between("largest |correlation| between midpoints under the process (weak: ≤ 0.3)",
                 largest_correlation,
                 0, 0.3)
nh.check_between("largest σ on the test circle (0.037)", float(sd[:120].max()), 0.0365, 0.0375)
nh.check_between("largest |coverage − nominal| over 7 levels, in units of 3 binomial standard errors",
                 float(np.abs((inside - levels) / tolerance).max()), 0, 1)

# %% [markdown]
# ## 5. What lazy training can learn: every target only if every μ_k > 0
#
# A kernel regression can only produce functions built from the kernel. On the circle a kernel that depends on the
# angle $\theta$ between its inputs expands into harmonics, $\Theta(\theta) = \mu_0 + 2\sum_{k\ge1}\mu_k\cos k\theta$
# (its Mercer coefficients $\mu_k \ge 0$; on higher spheres the same holds with spherical harmonics). Every function
# kernel regression returns has a $k$-th harmonic only if $\mu_k > 0$. So the NTK's function space is dense in the
# continuous functions (can approximate every one) **if and only if every $\mu_k$ is positive**. Whether that holds
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
mu = {name: course.mercer_coefficients(name, 64) for name in course.KERNELS}
nh.check_between("ReLU, σ_b = 0.3: smallest μ_k / largest, k ≤ 64 (positive)",
                 float(mu["ReLU, σ_b = 0.3"].min()),
                 1e-6, 1)
nh.check_that("ReLU, no bias: every |μ_k| over odd k = 3 … 63 below 1e-12 (zero)",
              float(mu["ReLU, no bias"][3::2].abs().max()) < 1e-12,
              measured=f'{float(mu["ReLU, no bias"][3::2].abs().max()):.1e}', expected="< 1e-12")
nh.check_between("ReLU, no bias: smallest μ_k over even k ≤ 64 and k = 1 (positive)",
                 float(torch.cat([mu["ReLU, no bias"][0::2], mu["ReLU, no bias"][1:2]]).min()), 1e-6, 1)
nh.check_that("erf, no bias: every |μ_k| over even k ≤ 64 below 1e-12 (zero)",
              float(mu["erf, no bias"][0::2].abs().max()) < 1e-12,
              measured=f'{float(mu["erf, no bias"][0::2].abs().max()):.1e}', expected="< 1e-12")
nh.check_between("ReLU, no bias, 2 layers: smallest μ_k / largest, k ≤ 64 (positive)",
                 float(mu["ReLU, no bias, 2 layers"].min()), 1e-6, 1)

# %% [markdown]
# ### Explore: fit cos kθ with a kernel
#
# Ridgeless NTK regression of the target $\cos k\theta$ from $n$ random angles (seeded by $n$), for one of the four
# kernels. The printed line gives $\mu_k$ and the test error divided by the target's variance ½ (an error of 1 is
# what predicting 0 everywhere scores).

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_fit,
                       kernel=nh.widgets.dropdown(nh._("kernel"), "ReLU, σ_b = 0.3",
                                                  options=list(course.KERNELS)),
                       frequency=nh.widgets.int_slider("k", 4, min=1, max=16),
                       n=nh.widgets.int_slider(nh._("training angles n"), 64, min=8, max=512))

# %% [markdown]
# **Predict, then check.**
#
# 1. Choose "ReLU, no bias" (the default `nh.mlp(1)`), $k = 3$, and move $n$ up to 512. Will more data help?
#
# <details><summary>Answer</summary>
#
# No: the error is 1.65 at $n = 512$ (1.83 at $n = 64$), worse than predicting 0. $\mu_3 = 0$ (the printed line
# says so), so the fit contains no $\cos 3\theta$ at all: whatever it does add is pure error, and the error can
# never fall below 1, at any $n$.
#
# </details>
#
# 2. Now "erf, no bias" with $k = 2$, then $k = 3$. What do you expect?
#
# <details><summary>Answer</summary>
#
# $k = 2$: error 1.07 at $n = 512$, the kernel is odd and has no even harmonics. $k = 3$: an error below
# $10^{-20}$, learned essentially exactly. A bias-free erf network represents only odd functions, $f(-x) = -f(x)$.
#
# </details>
#
# 3. "ReLU, no bias, 2 layers", $k = 3$, $n = 512$: does depth repair the first question?
#
# <details><summary>Answer</summary>
#
# Yes: error $4\cdot10^{-7}$. The second hidden layer makes every $\mu_k$ positive (the figure above), so
# $\cos 3\theta$ is in its function space and enough data learn it.
#
# </details>

# %% tags=["check"]
nh.check_close("question 1: ReLU no bias, cos 3θ, n = 512 and 64 (1.65, 1.83)",
               [course.ridgeless_fit("ReLU, no bias", 3, n)[1] for n in (512, 64)], [1.65, 1.83], atol=0.005)
mu_3 = abs(float(course.mercer_coefficients("ReLU, no bias", 3)[3]))
nh.check_that("question 1: μ_3 is zero to rounding (|μ_3| < 1e-15)", mu_3 < 1e-15, measured=f"{mu_3:.1e}",
              expected="< 1e-15")
nh.check_that("question 1: error ≥ 1 at every n = 8 … 512 tried",
              all(course.ridgeless_fit("ReLU, no bias", 3, n)[1] >= 1 for n in (8, 16, 32, 128, 256, 512)),
              measured="n = 8, 16, 32, 128, 256, 512", expected="≥ 1")
nh.check_close("question 2: erf no bias, cos 2θ, n = 512 (1.07)",
               course.ridgeless_fit("erf, no bias", 2, 512)[1],
               1.07, atol=0.005)
erf_3 = course.ridgeless_fit("erf, no bias", 3, 512)[1]
nh.check_that("question 2: erf no bias, cos 3θ, n = 512 (learned: error below 1e-20)", erf_3 < 1e-20,
              measured=f"{erf_3:.1e}", expected="< 1e-20")
nh.check_close("question 3: ReLU no bias 2 layers, cos 3θ, n = 512 (4e-7)",
               course.ridgeless_fit("ReLU, no bias, 2 layers", 3, 512)[1], 4e-7, rtol=0.1)

# %% [markdown]
# ### Dense, but sample-hungry
#
# When every $\mu_k$ is positive, every target can be learned, but not cheaply: the $\mu_k$ fall with $k$, and
# the higher the frequency, the more samples ridgeless regression needs. In $d$ dimensions the number of harmonics
# of degree $\le k$ grows like $d^k$, and so does the number of samples kernel regression needs (Ghorbani, Mei,
# Misiakiewicz & Montanari 2019/2021); a network that learns features can need far fewer. We fit
# $\cos k\theta$ for $k = 1, 2, 4, 8, 16$ with the lesson's kernel (ReLU, $\sigma_b = 0.3$) from $n$ random angles.

# %%
frequencies, sizes = [1, 2, 4, 8, 16], [8, 16, 32, 64, 128, 256, 512]
relative_error = np.array([[course.ridgeless_fit("ReLU, σ_b = 0.3", k, n)[1] for n in sizes]
                           for k in frequencies])
fig, ax = plt.subplots()
for k, row in zip(frequencies, relative_error):
    ax.loglog(sizes, row, "o-", label=f"cos({k}θ)")
ax.axhline(0.01, color="k", ls=":", lw=1, label="1% of the variance")
ax.set_xlabel("number of training angles n")
ax.set_ylabel("test MSE / target variance")
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
# 1. The lesson's Gram matrix has $\lambda_\max = 26.8$ with $n = 20$. What is the critical learning rate for the
#    loss $\frac12\sum_i(f(x_i) - y_i)^2$, and for PyTorch's `MSELoss`?
#
# <details><summary>Answer</summary>
#
# The factor per step is $1 - c\,\eta\lambda$ with $c = 1$ for $\frac12\sum$ and $c = 2/n$ for the mean without ½.
# So $\eta_\text{crit} = 2/\lambda_\max = 0.075$ and $2/(c\lambda_\max) = n/\lambda_\max = 0.75$; the lesson's
# $\frac1{2n}\sum$ gives $2n/\lambda_\max = 1.49$.
#
# </details>
#
# 2. A learner trains a width-16384 network for a long time and compares its test predictions with kernel
#    regression $\Theta(x^*, X)\Theta^{-1}y$. They differ by about as much as $f_0$ does. Why, and how would you
#    remove the difference?
#
# <details><summary>Answer</summary>
#
# Training to the end gives ridgeless regression on $y - f_0(X)$ **plus** $f_0$: the prediction is
# $f_0(x^*) + \Theta(x^*, X)\Theta^{-1}(y - f_0(X))$, and $f_0$ is a random function of size one at every width.
# Remove it by averaging many networks (the ensemble mean), or start from $f_0 = 0$ by symmetrizing (two copies
# with opposite readouts).
#
# </details>
#
# 3. Why do the network's NTK and features freeze as the width grows, while its outputs still move by $O(1)$?
#
# <details><summary>Answer</summary>
#
# The output is a sum over $m$ units, each weighted by $1/\sqrt m$: moving every weight by $O(1/\sqrt m)$ moves
# the output by $O(1)$, because $m$ small changes add up coherently. The kernel is an average over the units of
# products of their gradients; each unit changes by $O(1/\sqrt m)$, so the average does too (section 2: the
# NTK change falls with width, the output change does not).
#
# </details>
#
# 4. With noisy labels, about which ridge $\rho$ does stopping at time $t$ (with $\eta = 1$, $n = 20$) imitate,
#    and why does neither help with noise-free labels?
#
# <details><summary>Answer</summary>
#
# $\rho \approx n/(\eta t) = 20/t$ (the two filters cross ½ at $\rho = n\ln 2/(\eta t)$). Both damp the
# small-eigenvalue directions, where noise dominates. Without noise there is nothing to damp: interpolation of
# noise-free labels is what you want, and the smallest ridge (the longest training) does best.
#
# </details>
#
# 5. Ridgeless NTK regression with the bias-free erf kernel (one hidden layer) fits the target $1 + \cos\theta$ on
#    the circle. Why can its test MSE never fall below 1, whatever the number of samples?
#
# <details><summary>Answer</summary>
#
# The kernel is odd, so every function it represents is odd, $f(-x) = -f(x)$, and orthogonal to the constant 1
# ($\mu_0 = 0$). The MSE is therefore $1 + $ the mean squared distance of the fit to the odd part $\cos\theta$:
# at least 1. At $n = 512$ the fit is close to $\cos\theta$ (distance 0.057, MSE 1.057); at $n = 64$ the MSE is
# 6.2, because interpolating data that are not odd forces the fit to oscillate.
#
# </details>

# %% tags=["check"]
nh.check_close("question 1: λ_max (26.8)", data.lam_max, 26.8, atol=0.05)
nh.check_close("question 1: 2/λ_max and n/λ_max (0.075, 0.75)", [2 / data.lam_max, 20 / data.lam_max],
               [0.075, 0.75], atol=0.005)
nh.check_close("question 1: nh.critical_learning_rate with loss='half_sum' and 'mean'",
               [nh.critical_learning_rate(data.ntk_train, loss="half_sum"),
                nh.critical_learning_rate(data.ntk_train, loss="mean")],
               [2 / data.lam_max, 20 / data.lam_max], rtol=1e-12)

erf_fits = {}
for n in (64, 512):
    angles = course.training_angles(n)
    points = course.on_circle(torch.cat([angles, course.EVAL_ANGLES]))
    gram = course.KERNELS["erf, no bias"].kernel(points).ntk
    erf_fits[n] = nh.kernel_regression(gram[:n, :n], gram[n:, :n], 1 + torch.cos(angles))
mse = {n: float(((fit - 1 - course.EVAL_ANGLES.cos()) ** 2).mean()) for n, fit in erf_fits.items()}
to_odd = float(((erf_fits[512] - course.EVAL_ANGLES.cos()) ** 2).mean())
nh.check_close("question 5: MSE = 1 + distance to cos θ (n = 512)", mse[512], 1 + to_odd, rtol=1e-4)
nh.check_close("question 5: MSE at n = 512 and 64 (1.057, 6.2)", [mse[512], mse[64]], [1.057, 6.2], atol=0.03)

# %% [markdown]
# ## Summary
#
# - An infinitely wide network in the NTK parameterization trained on the squared loss follows a closed form on
#   training and test inputs; discrete steps are stable only for $\eta < 2n/\lambda_\max$.
# - What converges: $f_0$ to the NNGP Gaussian process (in distribution); the trained network to its own
#   linearization, and that linearization to the analytic formula, each within $O(m^{-1/2})$. The sum of the two
#   can fall more slowly at moderate widths, where they partly cancel.
# - Lazy training: the outputs move by $O(1)$ while the NTK and the features freeze as the width grows; under μP
#   the features move by $O(1)$ instead.
# - Training to the end is *ridgeless* regression plus the $f_0$ offset; stopping early filters the same
#   eigen-directions a ridge does, with $\rho \approx n/(\eta t)$.
# - The trained infinite ensemble is a calibrated Gaussian process; the kernel's function space is dense iff every
#   Mercer coefficient $\mu_k > 0$, and even then high frequencies cost many samples.
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
# enough learning rates (Lee et al. 2019); the kernel-regression predictor is the $t \to \infty$ limit of the
# linearization and keeps the $f_0$ offset. The theorems hold for a fixed finite set of inputs, not uniformly over
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
