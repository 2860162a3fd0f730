# %% [markdown]
# # 07 · Training dynamics: the closed form against real gradient descent
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/07_training_dynamics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F07_training_dynamics.ipynb)
#
# *Overview text §3 and §7.1; chapter 4.4.2.*
#
# **You will learn**
# - the closed-form outputs of an infinitely wide network trained by gradient descent, on training **and**
#   test inputs, how the loss normalization sets the clock, and which learning rates keep the steps stable;
# - what converges to what as the width $m$ grows, and how fast, measured with error bars;
# - what "lazy training" measures: the output moves by $O(1)$ while the kernel and the features freeze;
# - why stopping early acts like a ridge penalty, and why training to the end is *ridgeless* regression;
# - that the trained infinite ensemble's error band is calibrated, and that lazy training is not
#   "inexpressive" but sample-hungry.
#
# **Prerequisites:** lessons 01–02.

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
from matplotlib.ticker import MaxNLocator
import torch
from tqdm.auto import tqdm
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## The formula
#
# Loss $\mathcal L = \frac{1}{2n}\sum_i (f(x_i) - y_i)^2$, gradient flow with learning rate $\eta$, NTK
# $\Theta$ fixed (infinite width). Then $\dot f_t(X) = -\frac{\eta}{n}\Theta\,(f_t(X) - y)$, so
#
# $$f_t(X) = f_0(X) + \bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)),$$
# $$f_t(x^*) = f_0(x^*) + \Theta(x^*, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)).$$
#
# Discrete gradient descent replaces $e^{-\eta\Theta t/n}$ by $(I - \eta\Theta/n)^t$: every step multiplies
# the part of the residual $f - y$ that lies along the $i$-th eigenvector of the Gram matrix $\Theta(X, X)$
# by $1 - \eta\lambda_i/n$. The steps converge only if all these factors lie between $-1$ and $1$, that is
#
# $$\eta < \eta_\text{crit} = \frac{2n}{\lambda_\max},\qquad \lambda_\max = \text{largest eigenvalue of the
# NTK Gram matrix on the } n \text{ training inputs}.$$
#
# With $\mathcal L = \frac12\sum_i$ drop the $1/n$ (so $\eta_\text{crit} = 2/\lambda_\max$); with PyTorch's
# `MSELoss` (mean, no ½) use $2/n$: `nh.linearized_dynamics(..., loss=...)` and
# `nh.critical_learning_rate`.
#
# > **The text says:** $f(t) = e^{-Kt}f(0) + (I - e^{-Kt})\,y$, and "NNGP:
# > $f \sim \mathcal{GP}(0, k_\text{NTK})$".  
# > **What is true:** that formula holds on the **training** inputs only, for $\eta = 1$ and the $\frac12\sum$
# > loss; test inputs need the $\Theta(x^*,X)\Theta^{-1}$ factor above. The prior over functions at
# > initialization is a Gaussian process with the **NNGP** kernel, not the NTK; the NTK governs training
# > ([errata B9](../ERRATA.md#b9), [errata B27](../ERRATA.md#b27)).

# %% [markdown]
# ## 1. Real gradient descent vs the formula
#
# A one-hidden-layer ReLU network on the circle: 20 training angles, 200 steps of gradient descent with
# $\eta = 1$ (the critical rate here is 1.49, printed in the explorer below); we compare its outputs on 120 test
# angles with the formula, using the analytic NTK and the network's own $f_0$. We record the outputs every 20
# steps.

# %%
angles_train = torch.linspace(0, 2 * math.pi, 21, dtype=torch.float64)[:-1] + 0.1
angles_test = torch.linspace(0, 2 * math.pi, 121, dtype=torch.float64)[:-1]
on_circle = lambda a: torch.stack([a.cos(), a.sin()], 1) * math.sqrt(2)
x_train, x_test = on_circle(angles_train), on_circle(angles_test)
x_all = torch.cat([x_train, x_test])
y_train = torch.sin(2 * angles_train) + 0.5 * torch.cos(angles_train)
arch = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.3)
k = arch.kernel(x_all).ntk
ntk_train, ntk_test = k[:20, :20], k[20:, :20]
steps = 200


def three_trajectories(width, seed=0, lr=1.0):
    """Test outputs every 20 steps: network, its own linearization, closed form with the analytic NTK."""
    model = arch.network(2, width=width, seed=seed)
    with torch.no_grad():
        f0_train, f0_test = model(x_train)[:, 0], model(x_test)[:, 0]
    own = nh.empirical_ntk(model, x_all)                    # this network's NTK at initialization
    record = nh.train(model, x_train, y_train, lr=lr, steps=steps, x_eval=x_test, record_every=20,
                      track_kernels=False)

    def linearized(kernel):                                 # f_0 + the formula, run for the same steps
        return nh.linearized_dynamics(kernel[:20, :20], y_train, record.steps, lr=lr, discrete=True,
                                      ntk_test_train=kernel[20:, :20], f0_train=f0_train,
                                      f0_test=f0_test).test

    return record.outputs, linearized(own), linearized(k)


first = three_trajectories(16384)
network, _, formula = first
fig, ax = plt.subplots()
ax.plot(angles_test, formula[-1], label="closed form (analytic NTK)")
ax.plot(angles_test, network[-1], "--", label="network, width 16384")
ax.plot(angles_train, y_train, "ko", ms=4, label="training data")
ax.set_xlabel("angle (radians)")
ax.set_ylabel("output after 200 steps")
ax.legend()
plt.show()

# %% [markdown]
# ### What converges to what
#
# > **The text says:** as the width grows, two random processes converge to each other: the network's output
# > at initialization and the output of kernel regression; the difference vanishes uniformly over time and over
# > all $x$.  
# > **What is true:** three different statements.
# > (1) At initialization, $f_0$ converges *in distribution* to a Gaussian process with the NNGP kernel: a
# > random function, not a kernel predictor.
# > (2) During training, the network stays close to its **linearization** $f^\text{lin}$ (the first-order Taylor
# > model around its own initial parameters, started from the same $f_0$ and trained by the same gradient
# > descent): $\sup_{t\le T}|f_t(x) - f^\text{lin}_t(x)| \to 0$ for fixed inputs $x$ (Jacot et al. 2018,
# > Thm 2); Lee et al. (2019, Thm 2.1) bound it by $O(m^{-1/2})$ for all $t$, for learning rates below a
# > threshold.
# > (3) The kernel-regression predictor is only the $t\to\infty$ limit of $f^\text{lin}$, and it keeps the
# > random offset from $f_0$ ([errata B6](../ERRATA.md#b6), [errata B7](../ERRATA.md#b7)).
#
# The gap between the network and our formula has two sources, and we can measure each:
#
# $$\underbrace{f_t - f^\text{formula}_t}_{\text{total}}
# = \underbrace{\bigl(f_t - f^\text{lin}_t\bigr)}_{\text{statement (2)}}
# + \underbrace{\bigl(f^\text{lin}_t - f^\text{formula}_t\bigr)}_{\text{random initial NTK vs analytic NTK}}.$$
#
# $f^\text{lin}$ is the same formula with the network's own initial NTK $\hat\Theta_0$; that kernel differs from
# the analytic one by $O(m^{-1/2})$ (lesson 01). For each width, 8 seeds; each number is the largest deviation
# over the 120 test inputs and over the training run (every 20 steps up to 200). These 32 runs take about 15 s on
# a laptop (a progress bar counts them).

# %% tags=["nbval-ignore-output"]
widths, seeds = [256, 1024, 4096, 16384], range(8)
names = ["network − formula (total)", "network − own linearization", "own linearization − formula"]
printed_names = [nh._("network − formula (total)"), nh._("network − own linearization"),
                 nh._("own linearization − formula")]
gaps = np.zeros((3, len(widths), len(seeds)))              # part, width, seed
cosines = np.zeros((len(widths), len(seeds)))
runs = [(i, width, j, seed) for i, width in enumerate(widths) for j, seed in enumerate(seeds)]
for i, width, j, seed in tqdm(runs, desc=nh._("networks (width, seed)")):
    network, own, formula = first if (width, seed) == (16384, 0) else three_trajectories(width, seed)
    parts = [network - formula, network - own, own - formula]
    gaps[:, i, j] = [float(p.abs().max()) for p in parts]
    a, b = parts[1].flatten(), parts[2].flatten()
    cosines[i, j] = float(a @ b / (a.norm() * b.norm()))

# %%
mean, se = gaps.mean(2), gaps.std(2, ddof=1) / math.sqrt(len(seeds))
width_header, cosine_header = nh._("width"), nh._("cos(parts)")
print(f"{width_header:>6}" + "".join(f"{name:>32}" for name in printed_names) + f"{cosine_header:>12}")
for i, width in enumerate(widths):
    cells = "".join(f"{f'{mean[p, i]:.4f} ± {se[p, i]:.4f}':>32}" for p in range(3))
    print(f"{width:>6}{cells}{cosines[i].mean():>12.2f}")


# %% [markdown]
# The slope of a log-log plot, with an error bar: fit $\log(\text{gap}) = a + s\log m$ through all 32 points
# (every seed is one point) by least squares; the standard error of $s$ is
# $\sqrt{\text{residual variance}/\sum_k(\log m_k - \overline{\log m})^2}$.

# %%
def slope_with_error(widths, values):
    """Least-squares slope of log(values) on log(width), values (W, S): slope and its standard error."""
    x = np.repeat(np.log(widths), values.shape[1])
    y = np.log(values).reshape(-1)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (intercept + slope * x)
    return slope, math.sqrt(residual @ residual / (len(x) - 2) / ((x - x.mean()) ** 2).sum())


fits = [slope_with_error(widths, gaps[p]) for p in range(3)]
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
ax.set_title("mean ± standard error over 8 seeds; lines: least-squares fits")
ax.legend(fontsize=9)
plt.show()

# %%
for name, (slope, slope_se) in zip(printed_names, fits):
    print(nh._("{name:>32}: fitted slope {slope:.2f} ± {error:.2f}").format(
        name=name, slope=slope, error=slope_se))

# %% [markdown]
# **What the data say.** Each of the two parts shrinks like $m^{-1/2}$: their fitted slopes are within three
# standard errors of $-1/2$. The *total* falls more slowly over this range of widths, because the two parts point
# in roughly opposite directions (the cosine between them, last column of the table, is clearly negative) and
# cancel in part; the cancellation fades as $m$ grows. Theory only gives an **upper bound**: both parts are
# $O(m^{-1/2})$, so the total is too; a fitted slope above $-1/2$ at moderate widths does not contradict it. At
# width 16384 the total is below 2% of the targets' largest value. (The bound of Lee et al. needs a small enough
# learning rate; here $\eta = 1$ is two thirds of the critical rate. For smooth activations the deviation from the
# linearization can fall faster, like $1/m$ (Dyer & Gur-Ari 2020; Huang & Yau 2020); ReLU's kinks, where units
# switch on or off during training, keep it near $m^{-1/2}$.)

# %%
for p in (1, 2):
    slope, slope_se = fits[p]
    assert abs(slope + 0.5) <= 3 * slope_se, (
        f"{names[p]}: expected slope −0.5 within 3 standard errors (±{3 * slope_se:.3f}), "
        f"measured {slope:.3f}")
slope, slope_se = fits[0]
assert slope + 0.5 >= 3 * slope_se, (
    f"total gap: expected a slope above −0.5 by at least 3 standard errors ({3 * slope_se:.3f}), "
    f"measured {slope:.3f} ± {slope_se:.3f}")
assert (cosines.mean(1) < -0.25).all() and cosines[0].mean() < cosines[-1].mean(), (
    f"parts should point in opposite directions (mean cosine < −0.25 at every width), most at the smallest "
    f"width: measured {np.round(cosines.mean(1), 2)}")
target_size = float(y_train.abs().max())
assert mean[0, -1] <= 0.02 * target_size, (
    f"at width 16384 the total gap should be below 2% of the largest target ({0.02 * target_size:.3f}), "
    f"measured {mean[0, -1]:.4f}")

# %% [markdown]
# ## 2. Lazy training, measured
#
# > **The text says:** in the lazy regime the output changes by $O(t/\sqrt m)$.  
# > **What is true:** the output changes by $O(1)$: it fits the data, at every width. What vanishes as $m$
# > grows is the change of the **NTK** and of the hidden **features** (Lee et al. 2019 prove $O(m^{-1/2})$ for
# > the NTK) ([errata B11](../ERRATA.md#b11)).

# %%
rows = []
for width in [256, 1024, 4096]:
    model = arch.network(2, width=width, seed=0)
    record = nh.train(model, x_train, y_train, lr=1.0, steps=steps)
    output_change = float((record.outputs[-1] - record.outputs[0]).norm() / record.outputs[0].norm())
    rows.append((width, output_change, record.ntk_change, record.feature_change))
print(nh._("relative changes ‖after − before‖/‖before‖ over 200 steps"))
headers = nh._("width"), nh._("output change"), nh._("NTK change"), nh._("feature change")
print("{:>6} {:>14} {:>11} {:>15}".format(*headers))
for width, out, ntk, feat in rows:
    print(f"{width:>6} {out:>14.2f} {ntk:>11.4f} {feat:>15.4f}")

# %%
widths_lazy = [r[0] for r in rows]
smallest_output_change = min(r[1] for r in rows)
assert smallest_output_change > 0.3, (
    f"outputs should move by O(1) (relative change > 0.3 at every width), "
    f"measured minimum {smallest_output_change:.2f}")
for column, name in [(2, "NTK"), (3, "feature kernel")]:
    slope = nh.loglog_slope(widths_lazy, [r[column] for r in rows])
    assert slope < -0.3, (
        f"{name} change should shrink with width (log-log slope < −0.3), measured slope {slope:.2f}")

# %% [markdown]
# ## 3. Early stopping is an implicit ridge
#
# In the eigenbasis of $\Theta$ (eigenvalues $\lambda_i$), gradient flow from $f_0 = 0$ (a symmetrized network)
# keeps the fraction $1 - e^{-\eta\lambda_i t/n}$ of each component of $y$, while ridge regression with penalty
# $\rho$ keeps $\lambda_i/(\lambda_i + \rho)$. Both shrink the small-eigenvalue (wiggly) directions; roughly
# $\rho \approx n/(\eta t)$. With noisy labels both beat running to convergence (ridgeless interpolation).
#
# > **The text says** (chapter 4.4.2): the NTK parameterization keeps training in the linearized regime
# > throughout, and training is equivalent to kernel **ridge** regression.  
# > **What is true:** linearized training is exact only in the limit $m\to\infty$ (fixed learning rate, finite
# > time, squared loss; section 1 measures the finite-width gap). It is kernel **gradient descent** started from
# > $f_0$, and as $t\to\infty$ it gives **ridgeless** kernel regression on $y - f_0$ plus the offset $f_0$ (the
# > formula above with $e^{-\eta\Theta t/n}\to 0$). A ridge appears only if one adds a penalty towards the
# > initial parameters: with $\frac{1}{2n}\sum_i(f(x_i)-y_i)^2 + \frac{\lambda}{2}\lVert\theta-\theta_0\rVert^2$
# > the linearized model converges to $f_0 + \Theta^*(\Theta + n\lambda I)^{-1}(y - f_0)$, a ridge
# > $\rho = n\lambda$. Stopping early acts *like* a ridge, as the experiment shows
# > ([errata A19](../ERRATA.md#a19)).

# %%
noisy = y_train + 0.5 * torch.randn(20, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
truth = torch.sin(2 * angles_test) + 0.5 * torch.cos(angles_test)
times = np.geomspace(1, 1e6, 40)
flow = nh.linearized_dynamics(ntk_train, noisy, times, ntk_test_train=ntk_test)
flow_error = ((flow.test - truth) ** 2).mean(1).numpy()
ridges = 20 / times
ridge_error = np.array([float(((nh.kernel_regression(ntk_train, ntk_test, noisy, ridge=r) - truth) ** 2)
                              .mean()) for r in ridges])
fig, ax = plt.subplots()
ax.semilogx(times, flow_error, label="gradient flow, time t")
ax.semilogx(times, ridge_error, "--", label="ridge regression, ρ = n/(ηt)")
ax.set_xlabel("training time t (η = 1)")
ax.set_ylabel("test MSE against the noise-free target")
ax.legend()
plt.show()

# %%
interpolation = float(((nh.kernel_regression(ntk_train, ntk_test, noisy) - truth) ** 2).mean())
print(nh._("best test MSE: early stopping {stopping:.3f}, ridge {ridge:.3f}, trained to convergence "
           "(ridgeless) {ridgeless:.3f}, the flow at t = 1e6 {flow:.3f}").format(
    stopping=flow_error.min(), ridge=ridge_error.min(), ridgeless=interpolation, flow=flow_error[-1]))
best_stop, best_ridge = flow_error.min(), ridge_error.min()
assert max(best_stop, best_ridge) < 0.5 * interpolation, (
    f"early stopping and ridge should both beat interpolation by 2×: expected < {0.5 * interpolation:.3f}, "
    f"measured {best_stop:.3f} and {best_ridge:.3f}")
assert max(best_stop, best_ridge) < 1.5 * min(best_stop, best_ridge), (
    f"early stopping and ridge should do about equally well (within 1.5×): "
    f"measured {best_stop:.3f}, {best_ridge:.3f}")
assert abs(flow_error[-1] - interpolation) <= 1e-3 * interpolation, (
    f"long training should reach the ridgeless solution: expected {interpolation:.4f} ± 0.1%, "
    f"measured {flow_error[-1]:.4f}")

# %% [markdown]
# ## 4. The trained infinite ensemble
#
# Averaging over initializations, the trained infinitely wide network is a Gaussian process (Lee et al. 2019,
# eq. 15–16): mean $\Theta^*\Theta^{-1}(I - e^{-\eta\Theta t/n})\,y$, covariance from both the NNGP and the NTK.
# Its spread comes from the random $f_0$ (the offset of section 3). We train 20 networks of width 1024 (seeds
# 100–119) and compare them with this process at time $\eta t = 200$ (200 steps of size 1 differ from the flow by
# far less than the band).

# %%
mid = on_circle(angles_train + math.pi / 20)                # halfway between neighbouring training angles
kernels = arch.kernel(torch.cat([x_train, x_test, mid]))
K, T = kernels.nngp, kernels.ntk
ensemble = nh.ensemble_prediction(K[:20, :20], K[20:, :20], K[20:, 20:], T[:20, :20], T[20:, :20], y_train,
                                  steps)
sd = ensemble.covariance.diagonal().sqrt()
members = torch.stack([nh.train(arch.network(2, width=1024, seed=100 + s), x_train, y_train, lr=1.0,
                                steps=steps, x_eval=torch.cat([x_test, mid]), record_every=steps,
                                track_kernels=False).outputs[-1] for s in range(20)])
deviation = members - ensemble.mean
fig, ax = plt.subplots(figsize=(9, 4))
ax.fill_between(angles_test, -2 * sd[:120], 2 * sd[:120], alpha=0.2, color="C0", label="ensemble ±2σ")
ax.fill_between(angles_test, -sd[:120], sd[:120], alpha=0.35, color="C0", label="ensemble ±1σ")
for index, d in enumerate(deviation[:5, :120]):
    ax.plot(angles_test, d, color="k", lw=0.8, alpha=0.7,
            label="5 of the 20 networks" if index == 0 else None)
ax.plot(angles_train, torch.zeros(20), "o", color="C1", ms=4, label="training inputs")
ax.set_xlabel("angle (radians)")
ax.set_ylabel("network output − ensemble mean")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))          # outside: the curves fill the whole panel
plt.show()

# %% [markdown]
# The band is narrow (σ at most 0.037, printed below, for outputs of size 1–2): the data pin every network down
# near the training inputs. A fair check of its width counts how often a network lands inside **±1σ** and
# **±2σ**: 68.3% and 95.4% of the time if the networks are draws from the process. A band that is too wide fails
# the first count, one too narrow the second. We count at the 20 midpoints between training angles, where
# neighbours are only weakly correlated under the process (|correlation| ≤ 0.23, printed), so the 20 × 20 = 400
# z-scores $z = (f - \text{mean})/\sigma$ act as independent draws; a count of 400 draws has binomial standard
# error $\sqrt{p(1-p)/400}$ (0.023 at 68.3%, 0.010 at 95.4%), and we accept three standard errors. No slack is
# added to the band.

# %%
z = (deviation[:, 120:] / sd[120:]).reshape(-1)
sd_mid = sd[120:]
correlation = ensemble.covariance[120:, 120:] / (sd_mid[:, None] * sd_mid[None, :])
largest_correlation = float((correlation - torch.eye(20, dtype=torch.float64)).abs().max())
print(nh._("largest σ on the test circle: {sigma:.3f}; largest |correlation| between midpoints under the "
           "process: {correlation:.2f}").format(sigma=float(sd[:120].max()), correlation=largest_correlation))
for width_in_sigma, expected in [(1, math.erf(1 / math.sqrt(2))), (2, math.erf(2 / math.sqrt(2)))]:
    inside = float((z.abs() <= width_in_sigma).double().mean())
    tolerance = 3 * math.sqrt(expected * (1 - expected) / z.numel())
    print(nh._("inside ±{width}σ: {inside:.3f} (expected {expected:.3f} ± {tolerance:.3f})").format(
        width=width_in_sigma, inside=inside, expected=expected, tolerance=tolerance))
    assert abs(inside - expected) <= tolerance, (
        f"fraction inside ±{width_in_sigma}σ: expected {expected:.3f} ± {tolerance:.3f}, "
        f"measured {inside:.3f}")
assert largest_correlation <= 0.3, (
    f"midpoints should be weakly correlated (|correlation| ≤ 0.3), measured {largest_correlation:.2f}")

# %% [markdown]
# ## 5. Lazy does not mean inexpressive
#
# > **The text says** (overview §7.1): the lazy regime has limited expressive power.  
# > **What is true:** the NTK's function space is *dense*: kernel regression with it can approximate any
# > continuous function on the sphere. What the lazy regime lacks is **sample efficiency**: without feature
# > learning it needs many samples for complicated targets; in $d$ dimensions the number of harmonics of degree
# > $\le k$ grows like $d^k$, and so does the number of samples kernel regression needs (Ghorbani, Mei,
# > Misiakiewicz & Montanari 2019/2021) ([errata B31](../ERRATA.md#b31)).
#
# On the circle a kernel's function space is dense when every Fourier coefficient $\mu_k$ of the kernel is
# positive (with the bias $\sigma_b = 0.3$ this holds; lesson 06 shows the bias-free ReLU NTK missing odd
# $k \ge 3$). We fit $\cos(k\theta)$ for $k = 1, 2, 4, 8, 16$ by ridgeless NTK regression from $n$ random angles
# and measure the test error relative to the target's variance ½, on 400 test angles.

# %%
grid = torch.linspace(0, 2 * math.pi, 1025, dtype=torch.float64)[:-1]
mu = torch.fft.rfft(nh.dot_product_profile(arch, grid.cos(), 2)).real / 1024    # Fourier coefficients mu_k
ratios = mu[[1, 2, 4, 8, 16, 64]] / mu[0]
print(nh._("mu_k / mu_0 for k = 1, 2, 4, 8, 16, 64: {ratios}").format(
    ratios=", ".join(f"{v:.2g}" for v in ratios)))
frequencies, sizes = [1, 2, 4, 8, 16], [8, 16, 32, 64, 128, 256, 512]
angles_eval = torch.linspace(0, 2 * math.pi, 401, dtype=torch.float64)[:-1]
relative_error = np.zeros((len(frequencies), len(sizes)))
for j, n in enumerate(sizes):
    angles_fit = torch.rand(n, generator=torch.Generator().manual_seed(n), dtype=torch.float64) * 2 * math.pi
    K_circle = arch.kernel(on_circle(torch.cat([angles_fit, angles_eval]))).ntk
    for i, freq in enumerate(frequencies):
        prediction = nh.kernel_regression(K_circle[:n, :n], K_circle[n:, :n], torch.cos(freq * angles_fit))
        relative_error[i, j] = float(((prediction - torch.cos(freq * angles_eval)) ** 2).mean() / 0.5)
fig, ax = plt.subplots()
for i, freq in enumerate(frequencies):
    ax.loglog(sizes, relative_error[i], "o-", label=f"cos({freq}θ)")
ax.axhline(0.01, color="k", ls=":", lw=1, label="1% of the variance")
ax.set_xlabel("number of training angles n")
ax.set_ylabel("test MSE / target variance")
ax.legend(fontsize=9)
plt.show()

# %%
needed = [next((n for n, e in zip(sizes, row) if e < 0.01), None) for row in relative_error]
print(nh._("smallest n with error below 1%: {needed}").format(needed=dict(zip(frequencies, needed))))
print(nh._("error at n = 512: {errors}").format(
    errors={f: f"{100 * e:.2f}%" for f, e in zip(frequencies, relative_error[:, -1])}))
smallest_mu = float(mu[1:65].min() / mu[0])
assert smallest_mu > 1e-6, (
    f"every mu_k/mu_0 up to k = 64 should be positive (> 1e-6), smallest {smallest_mu:.2e}")
assert (relative_error[:, -1] < 0.01).all(), (
    f"every frequency should be learned to < 1% at n = 512, measured {np.round(relative_error[:, -1], 4)}")
assert all(a < b for a, b in zip(needed, needed[1:])) and needed[-1] >= 16 * needed[0], (
    f"higher frequencies should need more samples (16× more for k = 16 than for k = 1), measured {needed}")

# %% [markdown]
# ## Explore: width, learning rate, steps
#
# The network (dashed) against the formula (solid) on the test circle. The printed line gives
# $\eta\lambda_\max/n$ and the critical learning rate $\eta_\text{crit} = 2n/\lambda_\max$ of the formula (analytic
# NTK), and the largest eigenvalue $\hat\lambda_\max$ of this network's own NTK before and after training.
#
# - **Below $\eta_\text{crit}$** both converge and you see the outputs. A finite network's own threshold
#   $2n/\hat\lambda_\max$ differs from the analytic one by $O(m^{-1/2})$: at width 64 it is lower (1.32), and
#   between the two thresholds that network goes through the catapult of the next point while the formula
#   converges smoothly.
# - **At or above $\eta_\text{crit}$** the formula diverges: its top component is multiplied by
#   $|1 - \eta\lambda_\max/n| > 1$ at every step (just above the threshold this factor is barely above 1, so the
#   blow-up takes many steps). The picture then shows the **training loss on a log axis**. The finite network
#   follows its own NTK: while $\eta < 2n/\hat\lambda_\max$ it simply converges; above that, its loss first shoots
#   up, then its NTK's top eigenvalue falls until $\eta\hat\lambda_\max/n < 2$ again, and (given enough steps) it
#   converges. This is the *catapult* phase (Lewkowycz et al. 2020), outside the kernel regime. In this slider's
#   range ($\eta \le 2$) the network always recovered in our runs; from about twice the critical rate on
#   ($\eta \approx 3$ here) it diverges too.

# %%
n_train = 20
lam_max = float(nh.eigenvalues(ntk_train)[0])
lr_critical = 2 * n_train / lam_max
print(nh._("λ_max = {lam_max:.2f} (largest eigenvalue of the analytic NTK on the 20 training inputs); "
           "critical learning rate 2n/λ_max = {critical:.3f}").format(lam_max=lam_max, critical=lr_critical))


def draw_dynamics(width, learning_rate, steps):
    model = arch.network(2, width=width, seed=0)
    with torch.no_grad():
        f0_train, f0_test = model(x_train)[:, 0], model(x_test)[:, 0]
    own_start = float(nh.eigenvalues(nh.empirical_ntk(model, x_train))[0])
    try:
        record = nh.train(model, x_train, y_train, lr=learning_rate, steps=steps, x_eval=x_test,
                          record_every=max(steps, 1), track_kernels=False)
    except FloatingPointError as error:
        print(nh._("the network diverged too: {error}").format(error=error))
        return
    own_end = float(nh.eigenvalues(nh.empirical_ntk(model, x_train))[0])
    formula = nh.linearized_dynamics(ntk_train, y_train, list(range(steps + 1)), lr=learning_rate,
                                     ntk_test_train=ntk_test, f0_train=f0_train, f0_test=f0_test,
                                     discrete=True, allow_unstable=True)
    ratio = learning_rate * lam_max / n_train
    print(nh._("width {width}, lr {lr:.2f}, {steps} steps: ηλ_max/n = {ratio:.2f} "
               "(critical lr {critical:.2f}); network's own λ_max {start:.1f} → {end:.1f} "
               "(2n/η = {limit:.1f})").format(
        width=width, lr=learning_rate, steps=steps, ratio=ratio, critical=lr_critical, start=own_start,
        end=own_end, limit=2 * n_train / learning_rate))
    fig, ax = plt.subplots()
    if steps == 0:
        print(nh._("0 steps: nothing is trained yet; the network and the formula both show the "
                   "initial outputs f₀"))
    if learning_rate < lr_critical or steps == 0:
        ax.plot(angles_test, formula.test[-1], label="closed form (analytic NTK)")
        ax.plot(angles_test, record.outputs[-1], "--", label=f"network, width {width}")
        ax.plot(angles_train, y_train, "ko", ms=4, label="training data")
        ax.set_xlabel("angle (radians)")
        ax.set_ylabel(f"output after {steps} steps")
        gap = float((record.outputs[-1] - formula.test[-1]).abs().max())
        status = nh._("stable") if learning_rate < lr_critical else nh._("before the first step")
        print(nh._("{status}: max |network − formula| on the test angles {gap:.3f}").format(
            status=status, gap=gap))
    else:
        formula_loss = 0.5 * ((formula.train - y_train) ** 2).mean(1)
        top = 1e4 * max(float(record.loss.max()), float(formula_loss[0]))  # keeps the network legible
        above = (formula_loss > top).nonzero().flatten()
        shown = int(above[0]) if len(above) else steps + 1                   # the steps drawn: 0 … shown − 1
        label = "closed form (linearized model)"
        if shown < steps + 1:
            label += f"; above {top:.0e} from step {shown} on, not drawn"
        ax.semilogy(range(shown), formula_loss[:shown], label=label)
        ax.semilogy(range(steps + 1), record.loss, "--", label=f"network, width {width}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))                 # steps are whole numbers
        ax.set_xlabel("gradient-descent step")
        ax.set_ylabel("training loss (log scale)")
        peak = int(record.loss.argmax())
        print(nh._("unstable: the formula's top component grows ×{factor:.2f} per step; the network's "
                   "loss peaked at {peak:.3g} (step {step}), final {final:.3g}").format(
            factor=abs(1 - ratio), peak=float(record.loss[peak]), step=peak, final=float(record.loss[-1])))
        if shown < steps + 1:
            print(nh._("The closed form's loss grows without bound ({loss:.3g} at step {steps}); it is "
                       "drawn only up to {top:.0e}, so that the network's curve stays visible.").format(
                loss=float(formula_loss[-1]), steps=steps, top=top))
    ax.legend(**({} if learning_rate < lr_critical or steps == 0        # unstable: below, clear of the curves
                 else dict(loc="upper center", bbox_to_anchor=(0.5, -0.22))))


# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_dynamics, width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       learning_rate=nh.widgets.sigma_slider("learning rate", 1.0, min=0.1, max=2.0),
                       steps=nh.widgets.int_slider("steps", 100, min=0, max=400))

# %% [markdown]
# ## Summary
#
# - The linearized network's outputs have a closed form on training and test inputs; the loss normalization sets
#   the time scale (`loss=` argument), and discrete steps are stable only for $\eta < 2n/\lambda_\max$.
# - What converges: $f_0$ to the NNGP Gaussian process (in distribution); the trained network to its own
#   linearization, within $O(m^{-1/2})$; that linearization to the analytic formula, within $O(m^{-1/2})$. Both parts
#   measured slopes near $-1/2$; the total falls more slowly at moderate widths because the parts partly cancel.
# - Lazy training: outputs move $O(1)$, the NTK and features move less and less as width grows.
# - Training to convergence is *ridgeless* regression plus the $f_0$ offset; early stopping filters the same
#   eigen-directions a ridge penalty does.
# - The trained infinite ensemble is a Gaussian process built from the NNGP and the NTK; finite networks land inside
#   its ±1σ and ±2σ bands as often as they should.
# - Lazy training can learn any continuous target on the sphere; it is sample-hungry, not inexpressive.
#
# **Next:** [08 · Effective rank](08_effective_rank.ipynb)
