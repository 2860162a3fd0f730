# %% [markdown]
# # 06 · Activations: ReLU against tanh, from homogeneity to spectral bias
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/06_activations.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F06_activations.ipynb)
#
# *Chapter 4.5.*
#
# **You will learn**
# - 4.5.1: why a bias-free ReLU network's kernels are positively **homogeneous**, $\Theta(ax, bx') = ab\,\Theta(x, x')$,
#   and how tanh and erf depend on the size of their inputs instead;
# - 4.5.2: how the smoothness of the activation sets the decay of the kernel's eigenvalues: a power law for ReLU,
#   faster than any power for tanh and erf, and why that decay is the speed at which each frequency is learned;
# - which frequencies a kernel has at all: bias-free ReLU needs two layers for odd ones, bias-free tanh has only odd
#   ones and can fit only odd functions;
# - 4.5.3: the ReLU-against-tanh comparison table, including what depth does to each.
#
# **Prerequisites:** lessons 01–02 (the NTK and its layer recursion).

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
import ntk_helpers as nh
from ntk_helpers.course import activations as course     # this lesson's spectra, picture and explorer

nh.plotting.use_style()
PALETTE = nh.plotting.PALETTE
SQRT2 = math.sqrt(2)

# %% [markdown]
# ## The idea in one picture
#
# An activation $\phi$ enters the NTK only through two Gaussian averages, $\mathbb E[\phi(u)\phi(v)]$ and
# $\mathbb E[\phi'(u)\phi'(v)]$ (lesson 02). ReLU's kink at $0$ gives its NTK a corner where the two inputs
# meet (through the jump of $\phi'$ in $\mathbb E[\phi'\phi']$), and a corner costs a power-law tail of
# eigenvalues; tanh is smooth, and its eigenvalues fall faster than any power.

# %%
course.idea_figure()
plt.show()

# %% [markdown]
# Left: the two activations. Middle: how far the NTK $\kappa$ of one hidden layer (no bias) between a point $x$ of the
# circle and a point $x'$ at angle $\theta$ has fallen from its value at $\theta = 0$, $1 - \kappa(\theta)/\kappa(0)$,
# on logarithmic axes: near $\theta = 0$ ReLU's falls like $\lvert\theta\rvert$ (slope 1, a corner), tanh's like
# $\theta^2$ (slope 2, a rounded top). Right: the kernel's eigenvalues $\mu_k$ on the
# circle, one for each frequency $k$ (defined in §4.5.2), divided by the largest one, $\mu_{\max}$. The dashed line
# $0.3\,k^{-2}$ is a guide of slope $-2$ with the constant chosen to sit near ReLU's points. tanh shows only odd
# $k$ and stops at $k = 25$: its even eigenvalues are exactly zero, and we do not draw its coefficients below
# $10^{-10}\mu_{\max}$, a safety margin above the error of the quadrature that computes them (§4.5.2 explains both).
#
# ## 4.5.1 Homogeneity, and what replaces it for tanh
#
# ReLU is **positively homogeneous**: $\mathrm{ReLU}(cu) = c\,\mathrm{ReLU}(u)$ and $\mathrm{ReLU}'(cu) =
# \mathrm{ReLU}'(u)$ for $c > 0$. Without biases, scaling the input $x \to ax$ scales every pre-activation by $a$,
# so the forward signal of every layer scales by $a$ and the backward signal does not change. The NTK is a sum of
# products of the two, one factor from each input, so
#
# $$\Theta(ax, bx') = ab\,\Theta(x, x'), \qquad \Sigma(ax, bx') = ab\,\Sigma(x, x') \qquad (a, b > 0,\ \sigma_b = 0).$$
#
# Only the *normalized* kernel $\Theta(x, x')/\sqrt{\Theta(x,x)\Theta(x',x')}$ is scale invariant. A bias adds a
# term that does not scale, and tanh and erf are not homogeneous at all: near $0$ they are linear ($\tanh u \approx
# u$), for large $u$ they saturate at $\pm 1$.
#
# Experiment: two inputs $60°$ apart, both scaled by $a$. For each network we plot $\Theta(ax, ax')/(a^2
# \Theta(x, x'))$, which is 1 at every $a$ exactly when the kernel is homogeneous. Each curve is divided by its
# own network's $\Theta(x, x')$ at $a = 1$, so where a curve levels off, its height depends on that network's kernel
# at $a = 1$ and says nothing about homogeneity by itself.

# %% [markdown]
# **Predict before you run the next cell** (and scroll no further): ReLU **with** a bias, at the smallest scale
# $a = 0.01$. Will its ratio sit above 1, at 1, or below 1?

# %%
pair = nh.pair_at_angle(math.radians(60), d=2)                 # |x|² = d
scales = np.geomspace(0.01, 10, 16)
networks = {nh._("ReLU, no bias"): nh.mlp(2, "relu"), nh._("ReLU, σ_b = 0.5"): nh.mlp(2, "relu", sigma_b=0.5),
            "tanh": nh.mlp(2, "tanh", sigma_w=1.5), "erf": nh.mlp(2, "erf", sigma_w=1.5)}
scaled = {}
for name, net in networks.items():
    base = float(net.kernel(pair[:1], pair[1:]).ntk)
    scaled[name] = np.array([float(net.kernel(a * pair[:1], a * pair[1:]).ntk) / (a * a * base)
                             for a in scales])
linear_limit = float(nh.mlp(2, "identity", sigma_w=1.5).kernel(pair[:1], pair[1:]).ntk) / \
    float(networks["tanh"].kernel(pair[:1], pair[1:]).ntk)
fig, ax = plt.subplots(figsize=(8, 4))
for (name, ratio), marker in zip(scaled.items(), "os^v"):
    ax.loglog(scales, ratio, marker + "-", ms=4, label=name)
ax.axhline(linear_limit, color="k", ls=":", lw=1,
           label=nh._("tanh's small-input limit: the linear network"))
ax.set_xlabel(nh._("input scale a"))
ax.set_ylabel(nh._("Θ(ax, ax′) / (a² Θ(x, x′))"))
ax.set_title(nh._("Homogeneous means flat at 1; plateau heights depend on the kernel at a = 1"))
ax.legend(fontsize=9)
plt.show()

# %% [markdown]
# The dotted line is the NTK of the same network with the identity in place of tanh, divided by the tanh network's
# NTK at $a = 1$: for small inputs tanh's kernel is the linear network's, scaled like $a^2$, because $\tanh'(0) =
# 1$. (erf levels off at its own height: question 2 of "Check your understanding".) For large inputs the curve
# falls: a saturated tanh neither grows with its input nor passes gradients back.
#
# <details><summary>Answer: ReLU with a bias at small inputs</summary>
#
# Only bias-free ReLU stays at 1. ReLU with a bias sits far above 1: about 3700 at $a = 0.01$ (37 at $a = 0.1$). The bias terms do not shrink with the input, so for small inputs the kernel
# tends to a constant while the denominator $a^2\Theta(x, x')$ goes to 0: the ratio grows like $a^{-2}$.
#
# </details>

# %% tags=["check"]
grid = [0.25, 1.0, 4.0]
mixed = [float(networks[nh._("ReLU, no bias")].kernel(a * pair[:1], b * pair[1:]).ntk) / (a * b) for a in grid
         for b in grid]
nh.check_close("ReLU, no bias: Θ(ax, bx′)/(ab) for a, b ∈ {¼, 1, 4} is one number",
               np.array(mixed) / mixed[4], np.ones(9), rtol=1e-12)
nh.check_close("ReLU, no bias: Θ(ax, ax′)/(a²Θ(x, x′)) over a = 0.01 … 10", scaled[nh._("ReLU, no bias")],
               np.ones_like(scales), rtol=1e-12)
nh.check_close("tanh at a = 0.01: the linear network's kernel (ratio)", scaled["tanh"][0] / linear_limit, 1.0,
               rtol=0.005)
nh.check_between("tanh at a = 10: far below 1 (saturation)", scaled["tanh"][-1], 0, 0.1)
with_bias = networks[nh._("ReLU, σ_b = 0.5")]
base_bias = float(with_bias.kernel(pair[:1], pair[1:]).ntk)
bias_ratio = [float(with_bias.kernel(a * pair[:1], a * pair[1:]).ntk) / (a * a * base_bias)
              for a in (0.1, 0.01)]
nh.check_close("ReLU with σ_b = 0.5: the ratio at a = 0.1 and 0.01 (37, 3700)",
               [bias_ratio[0] / 36.71, bias_ratio[1] / 3746], [1.0, 1.0], rtol=0.01)
nh.check_close("ReLU with σ_b = 0.5: ratio(0.01) / ratio(0.1), about 100 (like a⁻²)",
               bias_ratio[1] / bias_ratio[0], 100, rtol=0.05)

# %% [markdown]
# ### tanh and erf: the size of the input sets the shape
#
# Like every MLP with i.i.d. Gaussian weights, a bias-free tanh or erf network has kernels that depend on the inputs
# only through $\lVert x\rVert$, $\lVert x'\rVert$ and $x \cdot x'$: they are **rotation invariant** (turn both inputs
# together and nothing changes). That has nothing to do with homogeneity. What tanh and erf lack is the scaling:
# their *normalized* kernels depend on the scale. erf has a closed form (Williams 1997), which we use because it
# reaches any scale:
#
# $$\mathbb E[\operatorname{erf}(u)\operatorname{erf}(v)] = \tfrac2\pi\arcsin\frac{2\Sigma_{12}}{\sqrt{(1 + 2\Sigma_{11})
#   (1 + 2\Sigma_{22})}}.$$
#
# For small inputs erf is linear and the normalized NNGP of one hidden layer tends to $\cos\theta$; for large ones
# erf tends to $\operatorname{sign}$, and the normalized NNGP of one hidden layer tends to the **arcsine kernel**
# $\tfrac2\pi\arcsin(\cos\theta) = 1 - 2\theta/\pi$ of $\operatorname{sign}$. tanh has no closed form; the package
# integrates it numerically, which limits the pre-activation variance to 500, so its largest scale here is
# $a = 20$. Below, the normalized NNGP $K(ax, ax')/K(ax, ax)$ of one hidden layer, $\sigma_w = 1$, minus
# $\cos\theta$: the linear kernel is the zero line, and the arcsine kernel is the dashed curve
# $1 - 2\theta/\pi - \cos\theta$.

# %%
angle = np.linspace(0, math.pi, 61)
ring = torch.tensor(np.stack([np.cos(angle), np.sin(angle)], 1)) * SQRT2       # |x|² = d = 2
one_layer = {"erf": nh.mlp(1, "erf", sigma_w=1.0), "tanh": nh.mlp(1, "tanh", sigma_w=1.0)}
input_scales = {"erf": [0.1, 1.0, 10.0, 1000.0], "tanh": [0.1, 1.0, 3.0, 20.0]}
normalized = {(name, a): (net.kernel(a * ring[:1], a * ring).nngp[0]
                          / net.kernel(a * ring[:1]).nngp[0, 0]).numpy()
              for name, net in one_layer.items() for a in input_scales[name]}
fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
for ax, name in zip(axes, one_layer):
    for a, marker in zip(input_scales[name], "os^D"):
        ax.plot(angle, normalized[name, a] - np.cos(angle), marker, ms=4, mfc="none",
                label=nh._("input scale a = {a:g}").format(a=a))
    ax.axhline(0, color="k", ls=":", lw=1.5, label=nh._("cos θ (linear kernel)"))
    ax.plot(angle, 1 - 2 * angle / math.pi - np.cos(angle), "k--", lw=1,
            label=nh._("1 − 2θ/π (arcsine kernel of sign)"))
    ax.set_xlabel(nh._("angle θ between x and x′ (radians)"))
    ax.legend(fontsize=8)
axes[0].set_ylabel(nh._("normalized NNGP minus cos θ"))
axes[0].set_title(nh._("erf (closed form): from cos θ to the arcsine kernel as a grows"))
axes[1].set_title(nh._("tanh (quadrature): at a = 20 it stops within 0.03 of the arcsine kernel"))
plt.show()

# %% [markdown]
# The markers sit on $\cos\theta$ (the zero line) for $a = 0.1$ and move towards $1 - 2\theta/\pi$ as $a$ grows:
# erf's reach it at $a = 1000$, tanh's come within 0.03 of it at $a = 20$, the largest scale its quadrature allows.
# Both limits are
# statements about the **NNGP of one hidden layer**. The normalized NTK has a different large-scale limit: its
# derivative term $\mathbb E[\operatorname{erf}'(u)\operatorname{erf}'(v)]$ concentrates where both
# pre-activations are near 0, so $\Theta(ax, ax)$ grows like $a$ while $\Theta(ax, ax')$ between different
# directions stays bounded, and the normalized NTK tends to 0 for $0 < \theta < \pi$ (checked below). And deeper
# layers apply the map again, so the arcsine shape is no limit of a deep network either.
#
# Rotation invariant is not *stationary*: a stationary kernel (an RBF kernel, for example) depends only on
# $x - x'$. Move both inputs by the same vector and their distance does not change, but the erf kernel does:

# %%
x_pair = nh.sphere(2, d=3, seed=0)
shift = torch.tensor([[1.5, -1.0, 0.5]], dtype=torch.float64)
before = float(one_layer["erf"].kernel(x_pair[:1], x_pair[1:]).nngp)
after = float(one_layer["erf"].kernel(x_pair[:1] + shift, x_pair[1:] + shift).nngp)
print(nh._("|x − x′| = {distance:.3f} for both pairs; erf NNGP {before:.3f} before the shift, {after:.3f} "
           "after").format(distance=float((x_pair[0] - x_pair[1]).norm()), before=before, after=after))

# %% tags=["check"]
nh.check_close("erf, a = 0.1: normalized NNGP = cos θ", normalized["erf", 0.1], np.cos(angle), atol=1e-4)
nh.check_close("tanh, a = 0.1: normalized NNGP = cos θ", normalized["tanh", 0.1], np.cos(angle), atol=1e-3)
nh.check_close("erf, a = 1000: normalized NNGP = 1 − 2θ/π", normalized["erf", 1000.0],
               1 - 2 * angle / math.pi, atol=1e-3)
nh.check_close("tanh, a = 20: normalized NNGP within 0.03 of 1 − 2θ/π", normalized["tanh", 20.0],
               1 - 2 * angle / math.pi, atol=0.03)
erf_ntk = one_layer["erf"]
growth = float(erf_ntk.kernel(1000 * ring[:1]).ntk) / 1000
nh.check_close("erf NTK, a = 1000: Θ(ax, ax)/a → 2/π", growth, 2 / math.pi, rtol=0.01)
at_60 = [float(erf_ntk.kernel(a * ring[:1], a * ring[20:21]).ntk) for a in (10.0, 100.0, 1000.0)]
nh.check_between("erf NTK at 60°, a = 10, 100, 1000: bounded (spread)", np.ptp(at_60), 0, 0.05)
nh.check_between("erf normalized NTK at 60°, a = 1000: near 0", at_60[-1] / (1000 * growth), 0, 0.002)
nh.check_between("erf NNGP: relative change under the shift", abs(after - before) / abs(before), 0.1, np.inf)

# %% [markdown]
# ## 4.5.2 Eigen-decay on the circle
#
# On the circle, the NTK between points at angles $\alpha$ and $\beta$ is a function $\kappa(\cos(\alpha -
# \beta))$ of their difference. Such a kernel is diagonalized by the Fourier modes: $\cos k\theta$ and $\sin k\theta$
# are eigenfunctions of its integral operator (uniform measure on the circle) with the eigenvalue
# $\mu_k = \tfrac1{2\pi}\int_{-\pi}^{\pi}\kappa(\cos\theta)\cos k\theta\,d\theta$, the $k$-th cosine coefficient of
# $\kappa(\cos\theta)$ in this normalization. These $\mu_k$ are the kernel's **Mercer coefficients**. One FFT of the
# kernel between one point and 768 equally spaced points gives them (`course.circle_spectrum`; for tanh, whose
# kernel comes from slower numerical integration, 384 points).

# %% [markdown]
# Why should smoothness matter? A Fourier series falls fast exactly when the function is smooth. ReLU's
# $\kappa(\cos\theta)$ has a corner, $\kappa \approx \kappa(1)(1 - c\,\lvert\theta\rvert)$ near $\theta = 0$, and a
# corner makes the Fourier coefficients fall like $k^{-2}$. On the sphere $S^{d-1}$ the one-hidden-layer ReLU
# NTK's nonzero coefficients fall like $k^{-d}$ (Bietti & Mairal 2019), and deeper ReLU NTKs keep the same $k^{-d}$
# (Bietti & Bach 2021). With a bias (Geifman et al. 2020), or with two or more hidden layers (Chen & Xu 2021), its
# function space on the sphere is that of the Laplace kernel $e^{-\lVert x - x'\rVert}$; bias-free with one hidden
# layer it is smaller: it misses the odd degrees $k \ge 3$ (next section).

# %% [markdown]
# Smooth activations give smooth kernels:
#
# - **erf** is an entire function, but off the real axis it grows like $e^{y^2}$, and the Gaussian average feels
#   that growth: its one-hidden-layer kernels are analytic in $\rho = \cos\theta$ only up to the singularity
#   $\rho_0 = 1 + 1/(2q)$ of the closed form above ($q$: the pre-activation variance, $\sigma_w^2$ here). Being
#   entire alone would not give more. A function analytic up to $\rho_0 > 1$ has coefficients that fall
#   **geometrically**, like $r^k$ with $r = \rho_0 - \sqrt{\rho_0^2 - 1}$ (`course.erf_rate`).
# - **tanh** is analytic only in the strip $\lvert\operatorname{Im} u\rvert < \pi/2$ (poles at $u = \pm i\pi/2$).
#   By Hille's theorem on Hermite series (Hille 1940), a function analytic in a strip, and in no wider one, has
#   Hermite coefficients $a_n$ that fall like $e^{-c\sqrt n}$, with $c$ set by the strip's width, and no faster.
#   So its dual kernel, $\sum_n a_n^2\rho^n$ (Daniely et al. 2016), has radius of convergence exactly 1, and
#   because its coefficients are positive, it is not analytic at $\rho = 1$ (Pringsheim's theorem). The same holds
#   for $\tanh'$ and for the NTK built from the two. It is still infinitely differentiable on $[-1, 1]$, so its
#   $\mu_k$ fall faster than any power of $k$.
# - Why not geometrically? If $\lvert\mu_k\rvert \le C r^k$ with $r < 1$, the series $\sum_k \mu_k e^{ik\theta}$ would
#   make $\kappa(\cos\theta)$ analytic and even in $\theta$ near 0, hence a power series in $\theta^2$, and
#   $\theta^2 = \arccos^2\rho$ is analytic at $\rho = 1$: $\kappa$ would be analytic there, a contradiction.
#   Our measurement below is consistent with that.
#
# A statistic that tells these decays apart is the **step ratio** $\mu_{k+2}/\mu_k$: it tends to 1 for a power law
# ($(k/(k+2))^p \to 1$), to the constant $r^2 < 1$ for a geometric decay, and creeps up towards 1, slowly, for a
# decay between the two.

# %% [markdown]
# **Predict before you run the next cell:** at $\sigma_w = 1$ erf's rate is $r = 0.382$. If $\mu_k/\mu_{\max}$ were exactly
# $r^{k-1}$, at which $k$ would erf's coefficients drop below the plot's floor, $10^{-13}\mu_{\max}$?

# %%
settings = {"ReLU": ("relu", SQRT2), "tanh": ("tanh", 1.0), "erf": ("erf", 1.0)}   # one hidden layer, no bias
spectra = {name: course.circle_spectrum(act, 1, sigma_w) for name, (act, sigma_w) in settings.items()}
r_squared = course.erf_rate(1.0) ** 2
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
for (name, mu), color in zip(spectra.items(), PALETTE):
    act = settings[name][0]
    # the modes present (ReLU's k = 0 lies off the logarithmic axis)
    ks = np.r_[1, 2:81:2] if act == "relu" else np.arange(1, 81, 2)
    relative = mu[ks] / np.abs(mu).max()
    keep = relative > course.noise_floor(act)
    axes[0].loglog(ks[keep], relative[keep], "o", ms=3, color=color, label=name)
    pairs = ks[keep][:-1][np.isin(ks[keep][:-1] + 2, ks[keep])]
    axes[1].semilogx(pairs, [course.step_ratio(mu, k) for k in pairs], "o-", ms=3, color=color, label=name)
axes[0].loglog(np.arange(2, 81), 0.3 * np.arange(2, 81) ** -2.0, "k--", lw=1, label="0.3 k⁻²")
axes[0].axhline(course.QUADRATURE_FLOOR, color="0.5", ls=":",
                label=nh._("tanh's floor: 10⁻¹⁰ μ_max, above the quadrature error"))
axes[0].set_ylabel("μ_k / μ_max")
axes[0].set_title(nh._("ReLU falls like k⁻², tanh and erf far faster"))
axes[1].axhline(r_squared, color=PALETTE[2], ls="--", lw=1, label=nh._("erf: r² from the closed form"))
axes[1].axhline(1, color="k", ls=":", lw=1, label=nh._("1: the limit of every power law"))
axes[1].set_ylabel("μ_(k+2) / μ_k")
axes[1].set_title(nh._("Step ratio: ReLU's climbs to 1, erf's levels at r², tanh's keeps climbing"))
for ax in axes:
    ax.set_xlabel(nh._("frequency k"))
    ax.legend(fontsize=9)
plt.show()

# %% [markdown]
# On the left, ReLU's even coefficients follow the $k^{-2}$ guide; tanh's and erf's (only odd $k$) bend down. On the
# right, each point compares a coefficient with the one two steps higher (only the modes present, above the floor).
# erf's ratio creeps up to just below the dashed line $r^2 = 0.146$ computed from the closed form (0.135 at $k = 13$,
# 0.140 at $k = 23$): a geometric decay. tanh's ratio rises faster (from 0.19 at $k = 13$ to 0.25 at $k = 23$),
# which is consistent with a decay that is not geometric (only thirteen odd modes, $k = 1, 3, \dots, 25$, are above
# the floor, giving twelve ratios, so this is evidence, not proof; the reason is the one given above). It stays far
# below ReLU's ratios, which approach 1.
#
# <details><summary>Answer: where erf's spectrum stops</summary>
#
# A pure $r^{k-1}$ falls below $10^{-13}$ when $k - 1 > \ln 10^{-13}/\ln r = 31.1$: it would keep $k = 31$ and drop
# $k = 33$. The plot keeps erf's odd $k$ up to 29 ($\mu_{29} = 1.7 \cdot 10^{-13}\mu_{\max}$, $\mu_{31} = 2.5 \cdot
# 10^{-14}\mu_{\max}$): one odd step earlier, because before it levels off the step ratio is a little below $r^2$,
# so the coefficients fall a little faster than $r^k$.
#
# </details>
#
# <details><summary>Numerics: where the plotted spectra stop</summary>
#
# Closed-form coefficients (ReLU, erf) are dropped below $10^{-13}\mu_{\max}$ (float64 rounding). tanh's kernel
# comes from a quadrature (the trapezoidal rule for $z \in [-7, 7]$, step 0.33), which is accurate to about
# $10^{-10}$ of the kernel. Recomputed on a finer grid (step 0.1, $z \in [-11, 11]$, `course.fine_tanh_spectrum`),
# its coefficients are off by at most $3 \cdot 10^{-11}\mu_{\max}$ (at $k = 1$) and by about $10^{-12}\mu_{\max}$
# for $k \ge 25$. As a safety margin we drop every tanh coefficient below $10^{-10}\mu_{\max}$
# (`course.QUADRATURE_FLOOR`), so the plotted tanh spectrum ends at $k = 25$ by our choice, not the kernel's: the
# finer grid gives $\mu_{27} = 5.4 \cdot 10^{-11}\mu_{\max}$ and $\mu_{29} = 1.4 \cdot 10^{-11}\mu_{\max}$.
#
# </details>

# %% tags=["check"]
relu, tanh_mu, erf_mu = spectra["ReLU"], spectra["tanh"], spectra["erf"]
nh.check_close("ReLU: local exponent log(μ_k/μ_(k+2))/log((k+2)/k) at k = 20 and 40 (2)",
               [course.local_exponent(relu, k) for k in (20, 40)], [2.0, 2.0], atol=0.03)
nh.check_close("erf: step ratio at k = 25 / r² of the closed form", course.step_ratio(erf_mu, 25) / r_squared,
               1.0, rtol=0.05)
nh.check_between("erf: step ratio at k = 23 / at k = 13 (levelled off)",
                 course.step_ratio(erf_mu, 23) / course.step_ratio(erf_mu, 13), 1.0, 1.06)
nh.check_between("tanh: step ratio at k = 23 / at k = 13 (still climbing)",
                 course.step_ratio(tanh_mu, 23) / course.step_ratio(tanh_mu, 13), 1.2, 1.4)
nh.check_close("tanh: step ratios at k = 13 and 23 (0.19, 0.25)",
               [course.step_ratio(tanh_mu, 13), course.step_ratio(tanh_mu, 23)], [0.19, 0.245], atol=0.006)
nh.check_close("erf: step ratios at k = 13 and 23 (0.135, 0.140)",
               [course.step_ratio(erf_mu, 13), course.step_ratio(erf_mu, 23)], [0.135, 0.1395], atol=0.002)
erf_kept = [k for k in range(1, 81) if erf_mu[k] / np.abs(erf_mu).max() > course.ROUNDING_FLOOR]
nh.check_close("erf: a pure r^(k−1) would cross 1e-13 at k − 1 = 31.1", math.log(1e-13) / math.log(
    course.erf_rate(1.0)), 31.1, atol=0.05)
nh.check_close("erf: the last k above the floor (29)", max(erf_kept), 29, atol=0.5)
nh.check_close("erf: μ₂₉/μ_max and μ₃₁/μ_max (1.7e-13, 2.5e-14)",
               [erf_mu[29] / erf_mu[1] / 1.74e-13, erf_mu[31] / erf_mu[1] / 2.45e-14], [1.0, 1.0], rtol=0.03)
nh.check_between("tanh: μ_25 / μ_max, the last coefficient kept, above the floor",
                 tanh_mu[25] / tanh_mu[1], 1e-10, 1e-9)
fine_mu = course.fine_tanh_spectrum(1.0)       # the same kernel on a finer grid (step 0.1, z in ±11)
nh.check_between("tanh, finer grid: largest |Δμ_k| / μ_max (below 3e-11)",
                 np.abs(fine_mu - tanh_mu).max() / fine_mu[1], 0, 3e-11)
nh.check_between("tanh, finer grid: largest |Δμ_k| / μ_max for k ≥ 25 (about 1e-12)",
                 np.abs(fine_mu - tanh_mu)[25:].max() / fine_mu[1], 0, 2e-12)
nh.check_close("tanh, finer grid: μ₂₇ / μ_max (5.4e-11, below our floor)", fine_mu[27] / fine_mu[1], 5.44e-11,
               rtol=0.02)
nh.check_close("tanh: μ₂₇ of the lesson's grid / of the finer grid", tanh_mu[27] / fine_mu[27], 1.0,
               rtol=0.05)
_, circle = nh.circle(course.POINTS)             # erf by the same quadrature as tanh, against its closed form
by_quadrature = nh.mlp(1, nh.elementwise(torch.erf, "erf"), sigma_w=1.0).kernel(circle[:1], circle).ntk[0]
quadrature_error = (torch.fft.rfft(by_quadrature).real / course.POINTS).numpy() - erf_mu
worst = np.abs(quadrature_error).max() / erf_mu[1]
nh.check_that("erf by quadrature − closed form: largest coefficient error below 1e-11 μ_max", worst < 1e-11,
              measured=worst, expected="< 1e-11")

# %% [markdown]
# ### Which modes exist: parity and depth
#
# The left panel showed only $k = 1$ and even $k$ for ReLU ($k = 0$, also present, lies off the logarithmic axis)
# and only odd $k$ for tanh and erf. Both are parity
# facts about networks **without bias**:
#
# - tanh and erf are odd functions, so a bias-free network is odd, $f(-x) = -f(x)$, and so are its kernels in each
#   argument: $\kappa(-t) = -\kappa(t)$ with $t = \cos\theta$, and every even Fourier coefficient vanishes, at every
#   depth.
# - ReLU is "linear + even": $\mathrm{ReLU}(u) = \tfrac u2 + \tfrac{\lvert u\rvert}2$. For jointly Gaussian $(u, v)$
#   with correlation $\rho$, the cross terms $\mathbb E[u\,\lvert v\rvert]$ vanish, $\mathbb E[uv]/4$ is linear in
#   $\rho$ and $\mathbb E[\lvert u\rvert\,\lvert v\rvert]/4$ is even in $\rho$. Likewise $\mathrm{ReLU}' = \tfrac12 +
#   \tfrac12\operatorname{sign}$ makes $\mathbb E[\phi'\phi']$ a constant plus an odd function of $\rho$, which
#   multiplies the linear input kernel. With one hidden layer $\rho = \cos\theta$: the NTK is $c\cos\theta$ plus an
#   even function of $\cos\theta$, and the only odd mode is $k = 1$ (Cho & Saul 2009 give the arc-cosine kernels
#   in closed form). A second layer receives a correlation that is no longer odd in $\cos\theta$, and odd modes
#   $k \ge 3$ appear.
#
# A bias breaks both parities. We measure $\mu_3/\mu_1$ of bias-free ReLU networks of 1 to 6 hidden layers.

# %% [markdown]
# **Predict before you run the next cell** (and scroll no further): from two layers to six, will $\mu_3/\mu_1$
# grow, shrink or stay where it is?

# %%
depths = np.arange(1, 7)
odd_ratio = np.array([course.circle_spectrum("relu", int(L), SQRT2)[[3, 5]] / course.circle_spectrum(
    "relu", int(L), SQRT2)[1] for L in depths])
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.plot(depths, odd_ratio[:, 0], "o-", label="μ₃ / μ₁")
ax.plot(depths, odd_ratio[:, 1], "s-", label="μ₅ / μ₁")
ax.set_xlabel(nh._("number of hidden ReLU layers (no bias)"))
ax.set_ylabel(nh._("odd eigenvalue / μ₁"))
ax.set_title(nh._("Odd modes beyond k = 1 by depth: zero at one layer, present from two"))
ax.legend()
plt.show()
print(nh._("μ₃/μ₁ at depth 1: zero (below 1e-12, rounding); at depth 2: {two:.4f}; at depth 6: {six:.3f}")
      .format(two=odd_ratio[1, 0], six=odd_ratio[-1, 0]))

# %% [markdown]
# <details><summary>Answer</summary>
#
# It grows, from 0.083 at two layers to 0.272 at six (and $\mu_5/\mu_1$ with it). Why odd modes exist from two
# layers on has a reason: each further layer applies ReLU's layer map to a correlation that is already not odd in
# $\cos\theta$. That their share keeps growing is only measured here: we give no simple argument for it.
#
# </details>

# %% tags=["check"]
nh.check_that("one ReLU layer, no bias: |μ₃|/μ₁ below 1e-12 (rounding only)", abs(odd_ratio[0, 0]) < 1e-12,
              measured=abs(odd_ratio[0, 0]), expected="< 1e-12")
nh.check_close("two ReLU layers: μ₃/μ₁ and μ₅/μ₁ (0.0829, 0.0206)", odd_ratio[1], [0.0829, 0.0206], atol=5e-4)
nh.check_that("μ₃/μ₁ grows with depth from 2 to 6 layers", np.all(np.diff(odd_ratio[1:, 0]) > 0),
              measured=np.round(odd_ratio[:, 0], 4), expected="increasing")
nh.check_close("μ₃/μ₁ at six layers (0.272)", odd_ratio[-1, 0], 0.272, atol=5e-4)
nh.check_that("μ₅/μ₁ grows with depth from 2 to 6 layers", np.all(np.diff(odd_ratio[1:, 1]) > 0),
              measured=np.round(odd_ratio[:, 1], 4), expected="increasing")
deep_tanh = course.circle_spectrum("tanh", 3, 1.0)
tanh_even = np.abs(deep_tanh[2:40:2]).max() / deep_tanh[1]
nh.check_that("tanh, 3 layers, no bias: even μ_k / μ₁ below 1e-14 (zero up to rounding)", tanh_even < 1e-14,
              measured=tanh_even, expected="< 1e-14")

# %% [markdown]
# ### …and on the sphere $S^2$
#
# On the sphere $S^{d-1}$ the eigenfunctions are the spherical harmonics. Degree $k$ has $2k + 1$ of them on $S^2$,
# all with the same eigenvalue, and the Funk–Hecke formula gives it from the kernel as a function of $t = x \cdot
# x'/d$: $\mu_k = \tfrac12\int_{-1}^{1}\kappa(t)P_k(t)\,dt$ with the Legendre polynomial $P_k$
# (`course.sphere_coefficients`). For ReLU, $\mu_k \propto k^{-3}$ ($k^{-d}$ with $d = 3$). Sorted, with their
# multiplicities, the eigenvalues form a staircase: the degrees up to $k$ fill about $k^2/2$ places (only $k = 0, 1$
# and the even $k$ are nonzero for one bias-free layer), so the $i$-th largest eigenvalue falls like $(\sqrt{2i})^{-3}
# \propto i^{-3/2}$. The eigenvalues of the Gram matrix $K/n$ of $n = 800$ random points of $S^2$ estimate the
# operator's: they should come in blocks of $2k + 1$ near $\mu_k$.

# %%
sphere_mu = {"ReLU": course.sphere_coefficients("relu", SQRT2), "erf": course.sphere_coefficients("erf", 1.0)}
points = nh.sphere(800, d=3, seed=0)
gram = nh.eigenvalues(nh.mlp(1, "relu").kernel(points).ntk).numpy() / len(points)
stairs = course.staircase(sphere_mu["ReLU"])
index = np.arange(1, len(stairs) + 1)
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
even = np.arange(2, 61, 2)
axes[0].loglog(even, sphere_mu["ReLU"][even] / sphere_mu["ReLU"][0], "o", ms=3, label=nh._("ReLU, even k"))
axes[0].loglog(even, sphere_mu["ReLU"][40] / sphere_mu["ReLU"][0] * (even / 40.0) ** -3.0, "k--", lw=1,
               label=nh._("k⁻³ through the point k = 40"))
odd = np.arange(1, 30, 2)
axes[0].loglog(odd, sphere_mu["erf"][odd] / sphere_mu["erf"][1], "s", ms=3, label=nh._("erf, odd k"))
axes[0].set_xlabel(nh._("degree k"))
axes[0].set_ylabel("μ_k / μ_max")
axes[0].set_title(nh._("On S², ReLU's μ_k falls like k⁻³, erf's far faster"))
axes[1].loglog(index[:800], stairs[:800], "k-", lw=1.5, label=nh._("operator: μ_k repeated 2k + 1 times"))
axes[1].loglog(np.arange(1, 801), gram, ".", ms=3, color=PALETTE[1], label=nh._("Gram matrix K/n, n = 800"))
axes[1].loglog(index[30:800], 1.3 * index[30:800] ** -1.5, "--", color=PALETTE[0], lw=1, label="1.3 i^(−3/2)")
axes[1].set_xlabel(nh._("index i (largest first)"))
axes[1].set_ylabel(nh._("i-th eigenvalue"))
axes[1].set_title(nh._("The staircase falls like i^(−3/2); the Gram matrix follows its first blocks"))
for ax in axes:
    ax.legend(fontsize=9)
plt.show()

# %% [markdown]
# Left: ReLU's coefficients approach the guide of slope $-3$ (drawn through $k = 40$) from above, erf's bend
# down: geometric again, with a step ratio that approaches the circle's $r^2$ from below ($0.91\,r^2$ at $k = 21$). Right: the operator's staircase (black), the Gram matrix's eigenvalues (dots; its top blocks agree with the
# staircase to 2 %, the next ones drift up as 800 points resolve fine harmonics less well), and a guide of slope
# $-3/2$ (its constant 1.3 only places it above the points). The $-3/2$ is the large-$i$ limit: degree $k$'s
# block ends at index $N(k) = k^2/2 + 3k/2 + 4$ (for even $k$), not exactly $k^2/2$, so between the
# ends of blocks 40 and 60 ($N = 864$ and $1894$) the staircase falls with slope $-1.53$, and the slope approaches
# $-3/2$ as $k$ grows. (A fitted $-1.4$ or $-1.6$ would be a different law.)

# %% tags=["check"]
relu_sphere = sphere_mu["ReLU"]
nh.check_close("S², ReLU: local exponent of μ_k at k = 20 and 40 (3)",
               [course.local_exponent(relu_sphere, k) for k in (20, 40)], [3.0, 3.0], atol=0.05)
degree_of = [k for k in range(61) if relu_sphere[k] > 1e-12 * relu_sphere.max()]
ends = dict(zip(degree_of, np.cumsum([2 * k + 1 for k in degree_of])))            # N(k): the end of block k
slope = math.log(relu_sphere[60] / relu_sphere[40]) / math.log(ends[60] / ends[40])
nh.check_close("S², ReLU: slope of the staircase between the ends of blocks 40 and 60 (−1.53)", slope, -1.53,
               atol=0.01)
nh.check_close("S², ReLU: N(60), the places filled by degrees 0 … 60 (1894)", float(ends[60]), 1894.0,
               atol=0.5)
blocks, start = [], 0
for k in [0, 1, 2, 4, 6]:
    blocks.append(gram[start:start + 2 * k + 1].mean() / relu_sphere[k])
    start += 2 * k + 1
nh.check_close("S², ReLU: Gram block means / μ_k for k = 0, 1, 2, 4, 6", blocks, np.ones(5), rtol=0.02)
nh.check_between("S², erf: step ratio at k = 21 / r² (0.91: approaching the circle's rate from below)",
                 course.step_ratio(sphere_mu["erf"], 21) / r_squared, 0.88, 0.95)

# %% [markdown]
# ## 4.5.3 ReLU against tanh: depth, order and chaos
#
# Depth applies the layer map again and again. For ReLU without bias, homogeneity makes $\sigma_w$ a pure scale:
# with $\sigma_w^2 = 2$ the variance stays put and $\Theta(x, x) = (L + 1)\,\Sigma^{(1)}(x, x)$ grows linearly.
#
# One warning before the names: in Poole et al. (2016) the "ordered" phase drives every correlation to 1, but that
# needs a bias, $\sigma_b > 0$. Our tanh networks have no bias, and for them "ordered" below means only
# $\sigma_w < 1$: the variance goes to 0, the deeper layers act almost linearly, and they keep the correlation they
# receive.
#
# For tanh without bias the variance map has the fixed point $q = 0$, and the slope factor $\chi(q) = \sigma_w^2\,\mathbb
# E[\tanh'(u)^2]$ ($u \sim \mathcal N(0, q)$), taken at $q = 0$ where it equals $\sigma_w^2$, decides its fate (lesson 02; Poole et al. 2016; Schoenholz et al.
# 2017): for $\sigma_w < 1$ (we call it **ordered**, as those papers do) the variance dies out exponentially;
# $\sigma_w = 1$ is the boundary, where $\chi(0) = \tanh'(0)^2 = 1$ and the variance decays only like $1/(2l)$; for
# $\sigma_w > 1$ (**chaotic**) the variance settles at some $q^* > 0$ and the correlation of two different inputs is
# driven to 0.

# %% [markdown]
# On the diagonal, each layer adds its variance and multiplies what came before by $\chi$ at that layer's variance:
# $\Theta^{(l+1)}(x, x) = \Sigma^{(l+1)}(x, x) + \chi^{(l+1)}\,\Theta^{(l)}(x, x)$. We follow the NTK at 60°
# (normalized) and on the diagonal, for depths 1 to 12.

# %% [markdown]
# **Predict before you run the next cell** (and scroll no further): tanh saturates at $\pm 1$, so each layer's
# variance stays below $\sigma_w^2$. Will the chaotic network's $\Theta(x, x)$ ($\sigma_w = 1.5$) stay bounded as
# the depth grows, or grow without bound?

# %%
depth_settings = {nh._("ReLU, σ_w = √2"): ("relu", SQRT2), nh._("tanh, σ_w = 0.8 (ordered)"): ("tanh", 0.8),
                  nh._("tanh, σ_w = 1 (boundary)"): ("tanh", 1.0),
                  nh._("tanh, σ_w = 1.5 (chaotic)"): ("tanh", 1.5)}
layers = np.arange(1, course.MAX_DEPTH + 1)
rows = {name: course.circle_kernels(act, sigma_w) for name, (act, sigma_w) in depth_settings.items()}
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
for (name, row), marker in zip(rows.items(), "os^D"):
    axes[0].plot(layers, row[:, row.shape[1] // 6] / row[:, 0], marker + "-", ms=4, label=name)
    axes[1].semilogy(layers, row[:, 0], marker + "-", ms=4, label=name)
axes[0].set_ylabel(nh._("normalized NTK at 60°"))
axes[0].set_title(nh._("Chaos decorrelates; ReLU drifts; bias-free order and the boundary barely move"))
axes[1].axhline(0.5, color="k", ls=":", lw=1, label=nh._("½: the boundary's limit"))
axes[1].set_ylabel("Θ(x, x)")
axes[1].set_title(nh._("Θ(x, x) by depth (logarithmic axis)"))
for ax in axes:
    ax.set_xlabel(nh._("number of hidden layers L"))
    ax.legend(fontsize=8)
plt.show()
chaos = {L: course.circle_spectrum("tanh", L, 1.5) for L in (1, 12)}
print(nh._("tanh, σ_w = 1.5: μ₉/μ_max = {one:.1e} at depth 1, {twelve:.3f} at depth 12").format(
    one=chaos[1][9] / chaos[1][1], twelve=chaos[12][9] / chaos[12][1]))

# %% [markdown]
# <details><summary>Answer: does the chaotic Θ(x, x) stay bounded?</summary>
#
# No: in spite of the saturation it grows without bound, **exponentially**, from 2.9 at one layer to 27.4 at 12,
# past ReLU's linear $2(L + 1) = 26$.
# The ratio $\Theta^{(l+1)}/\Theta^{(l)} = \chi^{(l+1)} + \Sigma^{(l+1)}/\Theta^{(l)}$ is 1.30 at the first step (there $\chi = 0.97 < 1$: the added variance makes the
# growth) and 1.17 at the twelfth ($\chi = 1.139$ plus $0.034$), and it tends to $\chi_1 = \chi(q^*) = 1.14$ at the
# fixed point $q^* = 0.79$ (Poole et al.'s $\chi_1$), so $\Theta \propto \chi_1^L$ for deep networks. Saturation
# bounds each layer's variance, $\Sigma^{(l)} \le \sigma_w^2 = 2.25$, but not the product of the $\chi$ factors that
# multiplies the contributions of the layers below.
#
# </details>
#
# The ordered network's $\Theta(x, x)$ falls towards 0 (0.0096 at 12 layers).
#
# The dotted line at ½ belongs to the boundary case: there $\Theta(x, x)$ falls only slowly, 0.60 at 12 layers and
# 0.503 at 1000. Why ½? Unrolling the recursion, $\Theta^{(L)} = \sum_l \Sigma^{(l)}\prod_{m > l}\chi^{(m)}$. The
# variance decays like $\Sigma^{(l)} \approx 1/(2l)$ ($l\,\Sigma^{(l)} = 0.501$ at $l = 1000$), and for small variance
# $\chi \approx 1 - 2\Sigma$, so $\chi^{(m)} \approx 1 - 1/m$ and the product is about $l/L$. The sum becomes
# $\sum_{l \le L} \tfrac1{2l}\cdot\tfrac lL = \tfrac12$.
#
# On the left, only the chaotic tanh network's normalized NTK at 60° falls fast (0.388 → 0.098 in 12 layers); ReLU's
# drifts (0.471 → 0.363), and the bias-free ordered network's stays between 0.46 and 0.47, near the linear kernel's
# $\cos 60° = 0.5$, and does not go to 1 (the boundary's stays between 0.41 and 0.45). In the chaotic spectrum the
# decorrelation is weight moving to high frequencies (the printed $\mu_9$). Yang & Salman (2019) map how $\sigma_w$, $\sigma_b$ and depth move the NTK's
# spectrum between low and high degrees.

# %% tags=["check"]
by_depth = {name: row[:, row.shape[1] // 6] / row[:, 0] for name, row in rows.items()}       # 60°
nh.check_close("ReLU: Θ(x, x) = 2(L + 1) for L = 1 … 12", rows[nh._("ReLU, σ_w = √2")][:, 0].numpy(),
               2 * (layers + 1.0), rtol=1e-12)
nh.check_close("ReLU: normalized NTK at 60°, depth 1 and 12 (0.471, 0.363)",
               by_depth[nh._("ReLU, σ_w = √2")][[0, 11]],
               [0.471, 0.3635], atol=0.001)
nh.check_close("tanh, σ_w = 1.5: normalized NTK at 60°, depth 1 and 12 (0.388, 0.098)",
               by_depth[nh._("tanh, σ_w = 1.5 (chaotic)")][[0, 11]], [0.388, 0.098], atol=0.001)
ordered = by_depth[nh._("tanh, σ_w = 0.8 (ordered)")]
nh.check_between("tanh, σ_w = 0.8: spread of the normalized NTK at 60° over depth 1 … 12", np.ptp(ordered),
                 0, 0.02)
nh.check_close("tanh, σ_w = 0.8: normalized NTK at 60°, depth 1 and 12 (0.462, 0.469)", ordered[[0, 11]],
               [0.462, 0.469], atol=0.001)
chaotic_diagonal = rows[nh._("tanh, σ_w = 1.5 (chaotic)")][:, 0].numpy()
nh.check_close("tanh, σ_w = 1.5: Θ(x, x) at depth 1 and 12 / (2.897, 27.44)",
               chaotic_diagonal[[0, 11]] / [2.897, 27.44], [1.0, 1.0], rtol=0.002)
nh.check_close("tanh, σ_w = 1.5: Θ⁽¹²⁾/Θ⁽¹¹⁾ on the diagonal (1.17)",
               chaotic_diagonal[11] / chaotic_diagonal[10], 1.173, atol=0.001)
z = np.linspace(-12, 12, 4001)                    # an independent χ₁ at the fixed point q*, by numpy
gauss = np.exp(-z * z / 2) / np.exp(-z * z / 2).sum()
q_star = 1.0
for _ in range(300):
    q_star = 2.25 * float(gauss @ np.tanh(math.sqrt(q_star) * z) ** 2)
chi_star = 2.25 * float(gauss @ (1 - np.tanh(math.sqrt(q_star) * z) ** 2) ** 2)
_, deep_chaos = nh.self_kernels_by_depth(1.0, depth=200, activation="tanh", sigma_w=1.5)
chi_at = lambda q: 2.25 * float(gauss @ (1 - np.tanh(math.sqrt(q) * z) ** 2) ** 2)      # χ at variance q
var_12, ntk_12 = (t.numpy() for t in nh.self_kernels_by_depth(1.0, depth=12, activation="tanh", sigma_w=1.5))
nh.check_close("tanh, σ_w = 1.5: Θ⁽²⁾/Θ⁽¹⁾ (1.30) = χ⁽²⁾ + Σ⁽²⁾/Θ⁽¹⁾", [ntk_12[1] / ntk_12[0] / 1.3016,
               (chi_at(var_12[0]) + var_12[1] / ntk_12[0]) / 1.3016], [1.0, 1.0], rtol=5e-4)
nh.check_close("tanh, σ_w = 1.5: χ at the first step (0.97, below 1)", chi_at(var_12[0]), 0.968, atol=0.001)
nh.check_close("tanh, σ_w = 1.5: χ and Σ/Θ at the twelfth step (1.139, 0.034)",
               [chi_at(var_12[10]), var_12[11] / ntk_12[10]], [1.139, 0.034], atol=6e-4)
boundary = by_depth[nh._("tanh, σ_w = 1 (boundary)")]
nh.check_between("tanh, σ_w = 1: normalized NTK at 60° over depth 1 … 12 (min, 0.41 … 0.45)", boundary.min(),
                 0.41, 0.45)
nh.check_between("tanh, σ_w = 1: normalized NTK at 60° over depth 1 … 12 (max, 0.41 … 0.45)", boundary.max(),
                 0.41, 0.45)
nh.check_close("tanh, σ_w = 1.5: q* (0.79)", q_star, 0.793, atol=0.001)
nh.check_close("tanh, σ_w = 1.5: Θ⁽²⁰⁰⁾/Θ⁽¹⁹⁹⁾ → χ₁ at q* (1.14)", float(deep_chaos[-1] / deep_chaos[-2]),
               chi_star, rtol=1e-6)
nh.check_close("tanh, σ_w = 0.8: Θ(x, x) at depth 12 (0.0096)",
               float(rows[nh._("tanh, σ_w = 0.8 (ordered)")][11, 0]), 0.0096, rtol=0.02)
variance, ntk_diagonal = nh.self_kernels_by_depth(1.0, depth=1000, activation="tanh", sigma_w=1.0)
nh.check_close("tanh, σ_w = 1: Θ(x, x) at depth 12 and 1000 (0.602, 0.503)", ntk_diagonal[[11, 999]].numpy(),
               [0.602, 0.503], atol=0.001)
nh.check_close("tanh, σ_w = 1: l Σ⁽ˡ⁾ at l = 1000 (½)", 1000 * float(variance[999]), 0.5, rtol=0.005)
nh.check_close("tanh, σ_w = 1.5: μ₉/μ_max at depth 1 (7.0e-4)", chaos[1][9] / chaos[1][1], 7.0e-4, rtol=0.03)
nh.check_close("tanh, σ_w = 1.5: μ₉/μ_max at depth 12 (0.058)", chaos[12][9] / chaos[12][1], 0.058, rtol=0.03)

# %% [markdown]
# ### The comparison table
#
# Everything so far, for ReLU and tanh as the chapter compares them (bias-free unless a row says otherwise; the
# numbers are this lesson's, checked in its check cells; "one layer" means one hidden layer):
#
# | property | ReLU | tanh |
# |---|---|---|
# | homogeneity | $\Theta(ax, bx') = ab\,\Theta(x, x')$ for $a, b > 0$; a bias breaks it | none: linear near 0, saturates far out |
# | small inputs | same shape at every scale | the linear network's kernel (two layers, $\sigma_w = 1.5$: to 0.5 % at $a = 0.01$) |
# | normalized kernel vs input scale | independent of the scale | one layer's NNGP: $\cos\theta$ for small inputs, arcsine $1 - 2\theta/\pi$ for large ones |
# | NTK at $\theta = 0$ | a corner, $1 - c\lvert\theta\rvert$ (the NNGP is smoother: its singular term is $\lvert\theta\rvert^3$) | smooth, $1 - c\,\theta^2$ |
# | circle spectrum, one layer | $\mu_k \propto k^{-2}$ (local exponent 2.00 at $k = 40$); $k^{-d}$ on $S^{d-1}$, at every depth | faster than any power, not geometric (dual kernel not analytic at $\rho = 1$); measured: $\mu_{k+2}/\mu_k$ rises 0.19 → 0.25 from $k = 13$ to 23 (erf: geometric, ratio → $r^2 = 0.146$) |
# | modes present without bias | $k = 0, 1$ and even $k$ at one layer; all $k$ from two layers ($\mu_3/\mu_1 = 0.083$ at two) | odd $k$ only, at every depth |
# | depth | $\Theta(x, x) = 2(L + 1)$ at $\sigma_w^2 = 2$; normalized NTK at 60°: 0.471 → 0.363 (1 → 12 layers) | $\sigma_w < 1$: $\Theta \to 0$, correlations kept (no bias); $\sigma_w = 1$: $\Theta(x, x) \to \tfrac12$; $\sigma_w > 1$: $\Theta(x, x)$ grows like $\chi_1^L$, $\chi_1 = \chi(q^*)$ (2.9 → 27.4 for $\sigma_w = 1.5$), correlations → 0 (0.388 → 0.098 at 60°) and the spectrum spreads |
# | what a bias is needed for | odd modes $k \ge 3$ at one layer | any even function (next sections) |
#
# ## Spectral bias = per-mode learning speed
#
# Why do the $\mu_k$ matter? Train the infinitely wide network by gradient flow with learning rate $\eta$ on the
# squared loss $\tfrac1{2n}\sum_i (f(x_i) - y_i)^2$. In the kernel regime (infinite width, the NTK stays fixed), the
# chain rule gives $\partial_t f(x) = \nabla_\theta f(x) \cdot \partial_t\theta = -\tfrac{\eta}{n}\sum_i \Theta(x,
# x_i)(f(x_i) - y_i)$. On the training inputs the residual $r = f - y$ therefore obeys $\partial_t r =
# -\tfrac\eta n K r$, so $r_t = e^{-\eta K t/n}\,r_0$. Take $n = 256$ equally spaced points of the circle (uniform
# data, so $K$ is circulant and its eigenvectors are the Fourier modes, with eigenvalues $n\mu_k$) and start from
# $f_0 = 0$, the **mean** network over initializations (one random network starts elsewhere; the mean of $r$ obeys
# the same equation). Then the residual in mode $k$ decays like $e^{-\eta\mu_k t}$: each frequency has its own clock.
# (We plot $y - f_t = -r_t$, so each target mode's curve starts at $+1$.)
#
# **Predict, then check.**
#
# 1. Before you run it: the target has the modes 1, 4 and 10. If $\mu_k$ fell like $k^{-2}$ all the way from $k = 1$, mode
#    10 would take $10^2 = 100$ times longer than mode 1 to be learned. Will the lesson's network take more or
#    less than 100 times longer?

# %%
n = 256
theta_train, x_circle = nh.circle(n)
frequencies = [1, 4, 10]
target = sum(torch.cos(f * theta_train) for f in frequencies)
K = nh.mlp(1, "relu").kernel(x_circle).ntk
eigenvalues, eigenvectors = torch.linalg.eigh(K)
times = np.geomspace(1e-1, 1e5, 60)


def residual_of_mode(t, f):
    # y − f_t = −r_t (η = 1; it starts at y)
    residual = eigenvectors @ (torch.exp(-eigenvalues * t / n) * (eigenvectors.T @ target))
    return float(2 * (residual * torch.cos(f * theta_train)).mean())                        # its cos(fθ) part


curves = {f: np.array([residual_of_mode(t, f) for t in times]) for f in frequencies}
mu = (torch.fft.rfft(K[0]).real / n).numpy()        # this Gram matrix's μ_k
fig, ax = plt.subplots(figsize=(8, 4))
for f, curve in curves.items():
    line, = ax.semilogx(times, curve, label=nh._("mode k = {k}: gradient flow").format(k=f))
    ax.semilogx(times[::3], np.exp(-mu[f] * times[::3]), "o", mfc="none", ms=5, color=line.get_color(),
                label=nh._("mode k = {k}: exp(−μ_k t)").format(k=f))
ax.set_xlabel(nh._("training time t (η = 1)"))
ax.set_ylabel(nh._("residual in mode k"))
ax.set_title(nh._("Spectral bias: mode k decays like exp(−μ_k t), the high modes later"))
ax.legend(fontsize=8)
plt.show()
half_life = {f: float(times[curve < 0.5][0]) if (curve < 0.5).any() else math.inf
             for f, curve in curves.items()}
for f in frequencies:
    if half_life[f] < math.inf:
        print(nh._("mode k = {k}: residual halved at t = {t:.3g} (ln 2/μ_k = {clock:.3g})").format(
            k=f, t=half_life[f], clock=math.log(2) / mu[f]))
    else:
        print(nh._("mode k = {k}: residual never halved up to t = 10⁵ (μ_k/μ_max = {size:.1e})").format(
            k=f, size=abs(mu[f]) / np.abs(mu).max()))

# %% tags=["check"]
nh.check_close("each mode decays like exp(−μ_k t) (residuals start at 1)",
               np.concatenate([curves[f] - np.exp(-mu[f] * times) for f in frequencies]), np.zeros(180),
               atol=1e-9)
nh.check_close("μ₁/μ₁₀ of the ReLU NTK on 256 points (234)", mu[1] / mu[10], 233.7, rtol=0.002)
nh.check_between("half-life of mode 10 / mode 1 (about μ₁/μ₁₀; the time grid has 10 points per decade)",
                 half_life[10] / half_life[1], 234 / 1.3, 234 * 1.3)
nh.check_that("higher modes are slower", half_life[1] < half_life[4] < half_life[10], measured=half_life,
              expected="k = 1 < 4 < 10")
nh.check_close("answer 1: ln 2/μ_k for k = 1 and 10 (0.69, 162)",
               [math.log(2) / mu[1] / 0.693, math.log(2) / mu[10] / 162], [1.0, 1.0], rtol=0.005)
nh.check_close("answer 1: local exponent between k = 2 and 4, and between 10 and 12 (3.2, 2.08)",
               [course.local_exponent(mu, 2), course.local_exponent(mu, 10)], [3.20, 2.08], atol=0.01)
nh.check_that("answer 2: one layer, μ₃/μ_max below 1e-15 (rounding)", abs(mu[3]) / np.abs(mu).max() < 1e-15,
              measured=abs(mu[3]) / np.abs(mu).max(), expected="< 1e-15")
mu_two = (torch.fft.rfft(nh.mlp(2, "relu").kernel(x_circle).ntk[0]).real / n).numpy()     # answer 3's network
nh.check_close("answer 3: two layers, μ₃/μ₁ on 256 points (0.083)", mu_two[3] / mu_two[1], 0.083, atol=5e-4)
nh.check_close("answer 3: two layers, μ₃/μ₁₀ (13)", mu_two[3] / mu_two[10], 13.0, rtol=0.01)
nh.check_close("answer 3: two layers, ln 2/μ_k for k = 1, 3, 10 (0.59, 7.1, 92)",
               [math.log(2) / mu_two[k] / v for k, v in ((1, 0.59), (3, 7.11), (10, 92.3))], [1.0, 1.0, 1.0],
               rtol=0.01)
nh.check_close("answer 3: the grid times just after them (0.65, 8.6, 112)",
               [times[times > math.log(2) / mu_two[k]][0] for k in (1, 3, 10)], [0.651, 8.55, 112.4],
               rtol=0.002)

# %% [markdown]
# <details><summary>Answer</summary>
#
# More, about 234 times: $\mu_1/\mu_{10} = 234$, so mode 10's residual is halved at $t = \ln 2/\mu_{10} = 162$,
# mode 1's at $0.69$ (the printed grid times are 180 and 0.82). The $k^{-2}$ law describes the tail. At small $k$ the
# coefficients fall faster: the local exponent is 3.2 between $k = 2$ and 4 and 2.08 between 10 and 12.
#
# </details>
#
# Change one number at a time in the cell above (and change it back afterwards: the check cells test the lesson's
# settings).
#
# 2. Replace the target's mode 4 by mode 3: `frequencies = [1, 3, 10]`. Mode 3 lies between modes 1 and 10. Will it be
#    learned at a time between theirs?
#
# <details><summary>Answer</summary>
#
# No: mode 3's curve stays at 1 and is never halved. One bias-free ReLU hidden layer has no odd mode $k \ge 3$
# (the parity section), so $\mu_3 = 0$ (the printed value, below $10^{-15}\mu_{\max}$, is rounding) and
# $e^{-\mu_3 t} = 1$. It is not slow: it is missing.
#
# </details>
#
# 3. Keep `frequencies = [1, 3, 10]` and give the network a second hidden layer: `nh.mlp(2, "relu")`. Is mode 3
#    learned now, and how many times sooner than mode 10?
#
# <details><summary>Answer</summary>
#
# Learned, about 13 times sooner than mode 10: the second layer brings in $\mu_3$ ($\mu_3/\mu_1 = 0.083$,
# $\mu_3/\mu_{10} = 13$), and the residuals are halved at $t = 0.65$ (mode 1), $8.6$ (mode 3) and $112$ (mode 10),
# the grid times just after $\ln 2/\mu_k = 0.59$, $7.1$ and $92$.
#
# </details>
#
# ReLU's polynomial decay makes high frequencies slow, not impossible (for the even modes; with one bias-free hidden
# layer the odd $k \ge 3$ need a bias or a second layer): that is spectral bias (Basri et al. 2019; Bietti & Mairal
# 2019). A kernel whose $\mu_k$ falls faster learns high frequencies far more slowly still.
#
# ## The parity pitfall
#
# Without biases, tanh is odd and so is every network built from it: $f(-x) = -f(x)$. Its kernels are odd in each
# argument, so kernel regression can only produce **odd functions**. When the training inputs come in mirror pairs
# ($x$ and $-x$), as here, it fits the odd part of the target and drops the even part. We fit $y = x^2 + x/2$ (even
# part $x^2$, odd part $x/2$) on 21 inputs in $[-2, 2]$, with a tanh network of two hidden layers ($\sigma_w =
# 1.5$) with and without a bias. The bias-free Gram matrix annihilates every even target vector, so the regression needs a small
# ridge ($10^{-4}$).

# %%
x_fit = torch.linspace(-2, 2, 21, dtype=torch.float64)[:, None]
x_plot = torch.linspace(-2.5, 2.5, 201, dtype=torch.float64)[:, None]
parabola = lambda x: x[:, 0] ** 2 + x[:, 0] / 2
parity_nets = {nh._("tanh, no bias"): nh.mlp(2, "tanh", sigma_w=1.5),
               nh._("tanh, σ_b = 0.5"): nh.mlp(2, "tanh", sigma_w=1.5, sigma_b=0.5)}
grams = {name: (net.kernel(x_fit).ntk, net.kernel(x_plot, x_fit).ntk) for name, net in parity_nets.items()}


def fit(name, y):
    train, test_train = grams[name]
    return nh.kernel_regression(train, test_train, y, ridge=1e-4)


predictions = {name: fit(name, parabola(x_fit)) for name in parity_nets}
fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(x_plot, parabola(x_plot), "k--", lw=1, label=nh._("target x² + x/2"))
ax.plot(x_plot[::8], x_plot[::8, 0] / 2, "kx", ms=6, zorder=3, label=nh._("its odd part x/2 (crosses)"))
for name, p in predictions.items():
    ax.plot(x_plot, p, label=nh._("NTK regression, {name}").format(name=name))
ax.plot(x_fit, parabola(x_fit), "ko", ms=4, label=nh._("training points"))
ax.set_xlabel(nh._("input x"))
ax.set_ylabel(nh._("prediction f(x)"))
ax.set_title(nh._("Without a bias, tanh keeps the odd part x/2 and drops x²"))
ax.legend(fontsize=9)
plt.show()
errors = {name: float(((p - parabola(x_plot)) ** 2).mean()) for name, p in predictions.items()}
print(nh._("mean squared error on [−2.5, 2.5]: no bias {without:.3g}, with bias {with_bias:.3g}").format(
    without=errors[nh._("tanh, no bias")], with_bias=errors[nh._("tanh, σ_b = 0.5")]))

# %% tags=["check"]
odd_fit = predictions[nh._("tanh, no bias")]
asymmetry = float((odd_fit + odd_fit.flip(0)).abs().max() / odd_fit.abs().max())
nh.check_that("no bias: |f(x) + f(−x)| / max|f| below 1e-8 (odd prediction)", asymmetry < 1e-8,
              measured=asymmetry, expected="< 1e-8")
even_alone = float(fit(nh._("tanh, no bias"), x_fit[:, 0] ** 2).abs().max() / 4)
nh.check_that("no bias: the even part x² alone gives a prediction below 1e-4 of its size", even_alone < 1e-4,
              measured=even_alone, expected="< 1e-4")
nh.check_between("no bias: max |f(x) − x/2| on [−2, 2]",
                 float((odd_fit - x_plot[:, 0] / 2)[50:151].abs().max()), 0, 0.01)
nh.check_between("no bias: mean squared error (misses x²)", errors[nh._("tanh, no bias")], 1, np.inf)
nh.check_between("with bias: mean squared error", errors[nh._("tanh, σ_b = 0.5")], 0, 0.05)

# %% [markdown]
# Does the even part vanish from every fit? Train the same bias-free tanh network on $y = x^2$ at 20 inputs in
# $[0.1, 2]$ only, none of them negative.

# %% [markdown]
# **Predict before you run the next cell** (and scroll no further): what will the prediction be at $x = -1$?

# %%
x_half = torch.linspace(0.1, 2, 20, dtype=torch.float64)[:, None]
odd_net = parity_nets[nh._("tanh, no bias")]
half_fit = nh.kernel_regression(odd_net.kernel(x_half).ntk, odd_net.kernel(x_plot, x_half).ntk,
                                x_half[:, 0] ** 2, ridge=1e-6)
fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(x_plot, x_plot[:, 0] ** 2, "k--", lw=1, label=nh._("target x²"))
left = x_plot[:, 0] < 0
ax.plot(x_plot[left], -x_plot[left, 0] ** 2, "k:", lw=2.5, label=nh._("−x² for x < 0 (the odd reflection)"))
ax.plot(x_plot, half_fit, label=nh._("NTK regression, {name}").format(name=nh._("tanh, no bias")))
ax.plot(x_half, x_half[:, 0] ** 2, "ko", ms=4, label=nh._("training points (x > 0 only)"))
ax.set_xlabel(nh._("input x"))
ax.set_ylabel(nh._("prediction f(x)"))
ax.set_title(nh._("Trained on x > 0 only: what does the odd network predict for x < 0?"))
ax.legend(fontsize=9)
plt.show()
print(nh._("prediction at x = −1: {value:.3f}").format(value=float(half_fit[60])))

# %% tags=["check"]
xs = x_plot[:, 0]
nh.check_between("trained on x in [0.1, 2]: max |f(x) − x²| there",
                 float((half_fit - xs ** 2)[(xs >= 0.1) & (xs <= 2)].abs().max()), 0, 0.01)
nh.check_between("and max |f(x) + x²| on [−2, −0.1]",
                 float((half_fit + xs ** 2)[(xs <= -0.1) & (xs >= -2)].abs().max()), 0, 0.01)
nh.check_close("x_plot[60] is x = −1", float(xs[60]), -1.0, atol=1e-12)

# %% [markdown]
# <details><summary>Answer: the prediction at x = −1</summary>
#
# About $-1$: the network mirrors $x^2$ into $-x^2$. On $x > 0$ it fits $x^2$, and oddness then forces $-x^2$ at
# $-x$. The even part vanishes only from fits on mirror-symmetric inputs; elsewhere it turns into an odd function.
#
# </details>

# %% [markdown]
# ## Explore
#
# Choose an activation, a depth, $\sigma_w$ and a bias $\sigma_b$: the explorer draws the circle spectrum
# $\mu_k/\mu_{\max}$ of the NTK, where $\mu_{\max}$ is the largest coefficient (whatever its $k$): even $k$ filled, odd $k$ open, and the
# noise floor dotted (tanh: $10^{-10}\mu_{\max}$, a margin above the quadrature error; ReLU and erf: rounding,
# $10^{-13}\mu_{\max}$); nothing
# below the floor is drawn. For ReLU the dashed guide is $0.3\,k^{-2}$. The line below the figure gives $\mu_{\max}$,
# three coefficients, the decay statistic (ReLU: the local exponent; tanh and erf: the step ratio at the first and
# the last pair above the floor) and which modes are present, and why.

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_spectrum,
                       activation=nh.widgets.activation_dropdown("relu", options=course.ACTIVATIONS),
                       depth=nh.widgets.depth_slider(1, max=course.MAX_DEPTH),
                       sigma_w=nh.widgets.sigma_slider(nh._("sigma_w"), 1.0, min=0.5, max=2.5),
                       sigma_b=nh.widgets.sigma_slider(nh._("sigma_b"), 0.0, max=1.0))

# %% [markdown]
# **Predict, then check.**
#
# 1. Keep ReLU without bias, depth 2, $\sigma_w = 1$. Before you move $\sigma_w$ to 2: by what factor will
#    $\mu_{\max}$ change, and will any ratio $\mu_k/\mu_{\max}$ change?
#
# <details><summary>Answer</summary>
#
# $\mu_{\max} = \mu_0$ goes from 0.271 to 17.3, a factor 64, and no ratio changes (the local exponent stays 1.99).
# Without bias a ReLU network is homogeneous, so each of its $L + 1 = 3$ weight layers multiplies the kernel by
# $\sigma_w^2$: the whole kernel scales by $(\sigma_w^2)^{L+1} = 4^3 = 64$, and so does every $\mu_k$.
#
# </details>
#
# 2. Switch to tanh, no bias. At $\sigma_w = 1.5$ the depth took $\mu_9/\mu_{\max}$ from $7.0 \cdot 10^{-4}$ to
#    $0.058$ (§4.5.3). Now set $\sigma_w = 1.2$, also chaotic but closer to the boundary: will moving the depth from
#    1 to 12 multiply $\mu_9/\mu_{\max}$ by more or by less than those eighty? And at $\sigma_w = 0.8$?
#
# <details><summary>Answer</summary>
#
# By less: at $\sigma_w = 1.2$ it grows about tenfold, from $2.1 \cdot 10^{-4}$ to $2.1 \cdot 10^{-3}$, and the last
# $k$ above the floor moves only from 29 to 33 (at $\sigma_w = 1.5$: 37 to 71). Closer to the boundary the fixed
# point $q^*$ is smaller, the network is closer to linear, and the inputs decorrelate more slowly. At $\sigma_w = 0.8$
# (ordered, no bias) it falls, by a factor 2.3 ($1.4 \cdot 10^{-5}$ to $6.3 \cdot 10^{-6}$), while $\mu_{\max}$
# shrinks 44-fold, from 0.207 to 0.0047: the variance dies out and the deeper layers act almost linearly.
#
# </details>
#
# 3. tanh, depth 1, $\sigma_w = 1$: move $\sigma_b$ from 0 to 0.3. What appears, and how large is it?
#
# <details><summary>Answer</summary>
#
# The even modes: the largest, $\mu_2/\mu_{\max}$, goes from below the floor to 0.022 ($\mu_4/\mu_{\max}$, the one the
# line prints, to 0.003). The bias breaks the network's oddness, so the kernel is no longer odd in $\cos\theta$. The
# odd modes change little ($\mu_3/\mu_{\max}$: 0.041 to 0.036).
#
# </details>

# %% tags=["check"]
def shown(activation, depth, sigma_w, sigma_b, k):
    """μ_k/μ_max of the explorer at that setting."""
    mu = course.circle_spectrum(activation, depth, sigma_w, sigma_b)
    return abs(mu[k]) / np.abs(mu).max()


def last_above(activation, depth, sigma_w):
    """The largest k ≤ K_MAX whose μ_k/μ_max is above the noise floor (what the explorer's title reports)."""
    ratios = [shown(activation, depth, sigma_w, 0.0, k) for k in range(course.K_MAX + 1)]
    return max(k for k, v in enumerate(ratios) if v > course.noise_floor(activation))


floor = course.ROUNDING_FLOOR
wide, narrow = course.circle_spectrum("relu", 2, 2.0), course.circle_spectrum("relu", 2, 1.0)
nh.check_close("question 1: ReLU, depth 2: μ_max at σ_w = 1 and 2 (0.271, 17.3)",
               [np.abs(narrow).max() / 0.271, np.abs(wide).max() / 17.3], [1.0, 1.0], rtol=0.002)
present = np.abs(narrow[:61]) > floor * np.abs(narrow).max()
nh.check_close("question 1: μ_k(σ_w = 2) / μ_k(σ_w = 1) / 64 for every mode k ≤ 60 present",
               wide[:61][present] / narrow[:61][present] / 64, np.ones(present.sum()), rtol=1e-6)
nh.check_close("question 2: tanh, σ_w = 1.2: μ₉/μ_max at depth 1 and 12 (2.1e-4, 2.1e-3)",
               [shown("tanh", 1, 1.2, 0, 9) / 2.1e-4, shown("tanh", 12, 1.2, 0, 9) / 2.07e-3], [1.0, 1.0],
               rtol=0.02)
nh.check_close("question 2: σ_w = 1.2: last k above the floor at depth 1 and 12 (29, 33)",
               [last_above("tanh", 1, 1.2), last_above("tanh", 12, 1.2)], [29, 33], atol=0.5)
nh.check_close("question 2: tanh, σ_w = 0.8: μ₉/μ_max at depth 1 (1.4e-5)", shown("tanh", 1, 0.8, 0, 9),
               1.4e-5, rtol=0.04)
nh.check_close("question 2: tanh, σ_w = 0.8: μ₉/μ_max at depth 12 (6.3e-6)", shown("tanh", 12, 0.8, 0, 9),
               6.3e-6, rtol=0.04)
nh.check_close("question 2: σ_w = 1.5: last k above the floor at depth 1 and 12 (37, 71)",
               [last_above("tanh", 1, 1.5), last_above("tanh", 12, 1.5)], [37, 71], atol=0.5)
nh.check_close("question 2: tanh, σ_w = 0.8: μ_max at depth 1 and 12 (0.207, 0.0047)",
               [np.abs(course.circle_spectrum("tanh", L, 0.8)).max() / v
                for L, v in ((1, 0.207), (12, 0.0047))],
               [1.0, 1.0], rtol=0.01)
nh.check_close("question 3: tanh, σ_b = 0.3: μ₂/μ_max and μ₄/μ_max (0.022, 0.003)",
               [shown("tanh", 1, 1.0, 0.3, 2), shown("tanh", 1, 1.0, 0.3, 4)], [0.022, 0.003], atol=3e-4)
nh.check_that("question 3: μ₂ is the largest even mode", shown("tanh", 1, 1.0, 0.3, 2) == max(
    shown("tanh", 1, 1.0, 0.3, k) for k in range(2, 100, 2)), measured=shown("tanh", 1, 1.0, 0.3, 2),
    expected="max over even k")
nh.check_that("question 3: without the bias μ₂ is below the floor",
              shown("tanh", 1, 1.0, 0.0, 2) < course.QUADRATURE_FLOOR,
              measured=shown("tanh", 1, 1.0, 0.0, 2), expected="< 1e-10")
nh.check_close("question 3: μ₃/μ_max without and with the bias (0.041, 0.036)",
               [shown("tanh", 1, 1.0, 0.0, 3), shown("tanh", 1, 1.0, 0.3, 3)], [0.041, 0.036], atol=5e-4)

# %% [markdown]
# ## Check your understanding
#
# 1. A bias-free ReLU network has $\Theta(x, x') = 0.8$. What is $\Theta(2x, 3x')$? And $\Theta(-x, x')$?
#
# <details><summary>Answer</summary>
#
# $\Theta(2x, 3x') = 6 \cdot 0.8 = 4.8$ by positive homogeneity. $\Theta(-x, x')$ is not determined by $\Theta(x, x')$:
# homogeneity holds only for positive factors ($\mathrm{ReLU}(-u) \ne -\mathrm{ReLU}(u)$); it is the kernel at
# the angle $\pi - \theta$.
#
# </details>
#
# 2. erf's slope at 0 is $\operatorname{erf}'(0) = 2/\sqrt\pi \approx 1.13$, tanh's is 1. By what factor does the
#    small-input NTK of the first experiment's erf network (two hidden layers) exceed the identity network's? Its
#    plateau there (18.7) is 1.39 times tanh's (13.5): why not your factor?
#
# <details><summary>Answer</summary>
#
# A linear network, up to the factor $a^2$: all pre-activations are tiny, and $\operatorname{erf} u = \tfrac2{\sqrt\pi}
# (u - u^3/3 + \dots)$. But its slope is $\operatorname{erf}'(0) = 2/\sqrt\pi \approx 1.13$, not $\tanh'(0) = 1$: the
# linear network it approaches has the activation $u \mapsto 2u/\sqrt\pi$. Each of the two hidden layers multiplies
# that network's NTK by $\operatorname{erf}'(0)^2 = 4/\pi$, so it is $(4/\pi)^2 = 1.62$ times the identity network's
# (at $a = 0.01$ erf's NTK is within 0.5 % of it). The plateau divides by each network's own kernel at $a = 1$, where
# erf and tanh saturate differently, so the heights, 18.7 and 13.5, differ by 1.39 rather than 1.62.
#
# </details>
#
# 3. In the spectral-bias experiment, train a bias-free tanh network instead, on the target $\cos\theta + \cos
#    2\theta$. To what value does the training loss $\tfrac1{2n}\sum_i (f(x_i) - y_i)^2$ fall as $t \to \infty$?
#
# <details><summary>Answer</summary>
#
# To $\tfrac14$, not to 0. A bias-free tanh kernel is odd, so $\mu_2 = 0$ and mode 2's residual $\cos 2\theta$ stays
# forever, while mode 1 is learned. The loss tends to $\tfrac12$ times the mean of $\cos^2 2\theta$ over the
# points, $\tfrac12 \cdot \tfrac12 = \tfrac14$. A bias, or an activation that is not odd, would bring mode 2 in.
#
# </details>
#
# 4. The one-hidden-layer ReLU NTK on $S^{d-1}$ has $\mu_k \propto k^{-d}$, and degree $k$ has about $k^{d-2}$
#    harmonics. How fast does the $i$-th largest eigenvalue fall with $i$? What does that give on $S^3$ ($d = 4$)?
#
# <details><summary>Answer</summary>
#
# The degrees up to $k$ fill about $k^{d-1}$ places, so $i \sim k^{d-1}$ and $\lambda_i \sim k^{-d} \sim
# i^{-d/(d-1)}$. On $S^3$ ($d = 4$): $i^{-4/3}$; on $S^2$ ($d = 3$) it gives the $i^{-3/2}$ of the staircase in
# §4.5.2. For large $d$ the exponent approaches $-1$.
#
# </details>
#
# 5. For the one-layer erf NTK, $r = \rho_0 - \sqrt{\rho_0^2 - 1}$ with $\rho_0 = 1 + 1/(2\sigma_w^2)$. Does a
#    larger $\sigma_w$ make the decay faster or slower? Why, in terms of the activation?
#
# <details><summary>Answer</summary>
#
# Slower: $\rho_0 \to 1$ and $r \to 1$ as $\sigma_w$ grows ($r^2 = 0.146$ at $\sigma_w = 1$, 0.372 at $\sigma_w =
# 2$). Larger weights make the pre-activations larger, and on their scale erf looks more and more like
# $\operatorname{sign}$. sign has a jump; its arcsine kernel $1 - 2\theta/\pi$ has a corner at $\theta = 0$, and a
# corner brings back a slow, power-law decay.
#
# </details>

# %% tags=["check"]
slope_net = nh.mlp(2, nh.elementwise(lambda u: 2 / math.sqrt(math.pi) * u, "2u/√π"), sigma_w=1.5)
small = 0.01 * pair
erf_small = float(networks["erf"].kernel(small[:1], small[1:]).ntk)
nh.check_close("question 2: erf NTK at a = 0.01 / the linear network with slope 2/√π",
               erf_small / float(slope_net.kernel(small[:1], small[1:]).ntk), 1.0, rtol=0.005)
nh.check_close("question 2: that linear network / the identity network ((4/π)² = 1.62)",
               float(slope_net.kernel(pair[:1], pair[1:]).ntk) /
               float(nh.mlp(2, "identity", sigma_w=1.5).kernel(pair[:1], pair[1:]).ntk), (4 / math.pi) ** 2,
               rtol=1e-9)
nh.check_close("question 2: plateaus at a = 0.01, erf and tanh (18.7, 13.5)",
               [scaled["erf"][0] / 18.72, scaled["tanh"][0] / 13.48], [1.0, 1.0], rtol=0.002)
tanh_two = course.circle_spectrum("tanh", 2, 1.5)     # question 3: mode 2 is absent, mode 1 is not
nh.check_that("question 3: bias-free tanh, two layers: |μ₂|/μ₁ below 1e-14",
              abs(tanh_two[2]) / tanh_two[1] < 1e-14, measured=abs(tanh_two[2]) / tanh_two[1],
              expected="< 1e-14")
theta_n = torch.arange(n, dtype=torch.float64) * 2 * math.pi / n
nh.check_close("question 3: the loss limit ½ · mean cos² 2θ over 256 points (¼)",
               float(0.5 * (torch.cos(2 * theta_n) ** 2).mean()), 0.25, rtol=1e-12)
nh.check_close("question 5: r² at σ_w = 1 and 2 (0.146, 0.372)",
               [course.erf_rate(1.0) ** 2, course.erf_rate(2.0) ** 2], [0.146, 0.372], atol=5e-4)
nh.check_close("question 5: the erf step ratio at k = 25 follows r² at σ_w = 2 as well",
               course.step_ratio(course.circle_spectrum("erf", 1, 2.0), 25) / course.erf_rate(2.0) ** 2, 1.0,
               rtol=0.05)

# %% [markdown]
# ## Summary
#
# - Bias-free ReLU networks are positively homogeneous, $\Theta(ax, bx') = ab\,\Theta(x, x')$; a bias breaks it, and
#   tanh is linear near 0 and saturates far out, so its normalized kernel changes with the input scale (one layer's
#   NNGP: from $\cos\theta$ to the arcsine kernel).
# - The activation's smoothness sets the eigen-decay: ReLU's corner gives $\mu_k \propto k^{-2}$ on the circle
#   ($k^{-d}$ on $S^{d-1}$, $i^{-3/2}$ by index on $S^2$); erf decays geometrically at the rate $r$ of its closed
#   form; tanh faster than any power but at no fixed geometric rate.
# - Parity decides which modes exist: bias-free tanh only odd $k$ (it fits only odd functions), bias-free ReLU no
#   odd $k \ge 3$ at one layer but all of them from two layers; a bias brings in every mode.
# - Depth: at $\sigma_w^2 = 2$ without bias, ReLU's NTK grows linearly and keeps its $k^{-2}$; bias-free tanh's
#   depends on $\sigma_w$: it vanishes (ordered, correlations kept), tends to ½ (the boundary $\sigma_w = 1$), or
#   grows like $\chi_1^L$ ($\chi_1 > 1$: the slope factor at its fixed point $q^*$), decorrelates inputs and spreads
#   its spectrum (chaotic).
# - In the kernel regime, on uniform data, mode $k$ is learned at the rate $\eta\mu_k$: spectral bias, for ReLU too.

# %% [markdown]
# ## For readers of chapter 4
#
# <details><summary>§4.5.1: "scale invariance" of ReLU kernels (errata A24)</summary>
#
# **The text says:** on the sphere the ReLU kernel depends only on the angle, so it is scale invariant, and
# $\Theta(ax, bx') \ne ab\,\Theta(x, x')$.
#
# **What is true:** without biases the ReLU kernels are positively homogeneous, $\Theta(ax, bx') = ab\,\Theta(x, x')$
# for $a, b > 0$ (§4.5.1, checked to $10^{-12}$); only the normalized kernel is scale invariant, and a bias breaks
# homogeneity. Depending only on the angle on the sphere is not special to ReLU: every MLP with i.i.d. Gaussian
# weights has a rotation-invariant kernel. [errata A24](../ERRATA.md#a24)
#
# </details>
#
# <details><summary>§4.5.1: tanh and erf kernels "closer to an RBF kernel" (errata A25)</summary>
#
# **The text says:** tanh and erf kernels depend on the magnitudes as well as the angle, are smoother, and are closer
# to an RBF kernel.
#
# **What is true:** the magnitude dependence and the smoothness are right; "closer to an RBF" has no precise meaning.
# An RBF kernel is stationary (a function of $x - x'$); the erf and tanh kernels are rotation invariant but not
# stationary (shift test in §4.5.1), and for large inputs the normalized one-layer NNGP tends to the scale-invariant
# arcsine kernel $1 - 2\theta/\pi$. [errata A25](../ERRATA.md#a25)
#
# </details>
#
# <details><summary>§4.5.2: eigen-decay and the missing modes (errata A26)</summary>
#
# **The text says:** the eigenvalues decay exponentially for tanh/erf and polynomially for ReLU.
#
# **What is true, with conditions:** ReLU's decay is polynomial ($k^{-d}$ on $S^{d-1}$); erf's is geometric (rate
# $r$ from its closed form); tanh's is faster than any power but not geometric (its step ratio keeps rising). The
# text also omits parity: bias-free tanh and erf kernels contain only odd frequencies, so such networks fit only odd
# functions; and the "missing odd modes" of bias-free ReLU hold for one hidden layer only ($\mu_3/\mu_1 = 0.083$ at
# two). [errata A26](../ERRATA.md#a26)
#
# </details>
#
# <details><summary>§4.5.2: ReLU "can learn high frequencies effectively" (errata A27)</summary>
#
# **The text says:** because its eigenvalues decay only polynomially, ReLU learns high frequencies effectively.
#
# **What is true:** ReLU still has spectral bias. In the kernel regime, on uniform data, mode $k$ is learned at the
# rate $\eta\mu_k$, and $\mu_k$ falls like $k^{-d}$: on the circle mode 10 takes about 230 times longer than
# mode 1 ($\mu_1/\mu_{10} = 234$) (Basri et al. 2019; Bietti & Mairal 2019). [errata A27](../ERRATA.md#a27)
#
# </details>
#
# <details><summary>§4.5.3: the empty comparison table (errata A28)</summary>
#
# **The text says:** it announces a table comparing ReLU and tanh, and leaves it empty.
#
# **What is true:** the table of §4.5.3 above fills it, with the numbers this lesson measures: homogeneity, the
# small- and large-input limits, the corner and its $k^{-2}$ spectrum against tanh's faster decay, the modes present,
# depth (order, the boundary $\sigma_w = 1$, chaos), and what a bias is needed for. [errata A28](../ERRATA.md#a28)
#
# </details>
#
# <details><summary>Exercise 4.4: "ReLU is preferred because of scale invariance" (errata A29, A31)</summary>
#
# **The text says:** the exercise asks why ReLU is preferred for its scale invariance.
#
# **What is true:** the premise is A24's error: ReLU kernels are homogeneous, not scale invariant. The exercise is
# re-posed in `exercises/chapter4/ex4_4_relu_vs_erf.ipynb`. [errata A29](../ERRATA.md#a29)
#
# </details>
#
# **Exercises:** 4.4 (ReLU vs erf: homogeneity, eigen-decay, parity) and 4.8 (activation and double descent).
#
# **Previous:** [05b · Parameterization](05b_parameterization.ipynb) · **Next:** [07 · Training dynamics](07_training_dynamics.ipynb)
