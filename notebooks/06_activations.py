# %% [markdown]
# # 06 · Activations: homogeneity, eigen-decay, spectral bias, parity
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/06_activations.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F06_activations.ipynb)
#
# *Chapter 4.5.*
#
# **You will learn**
# - 4.5.1: ReLU kernels are positively **homogeneous**, not scale invariant; erf and tanh are neither, and the erf
#   kernel is no "RBF-like" kernel: it depends on the norms and the dot product of its inputs, not on their
#   difference, and tends to the arcsine kernel for large inputs;
# - 4.5.2: how fast a kernel's eigenvalues decay on the circle and the sphere (ReLU polynomially, erf
#   geometrically), and why that decay sets the **speed** at which each frequency is learned (spectral bias);
# - which frequencies a kernel has at all: one bias-free ReLU layer has no odd modes beyond $k = 1$, deeper
#   networks do;
# - the parity pitfall: without biases, erf and tanh networks can only represent **odd** functions.
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
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.5.1 Homogeneity, done right
#
# > **The text says:** on the sphere the ReLU kernel depends only on the angle, which makes it *scale invariant*:
# > $\Theta(ax, bx') \neq ab\,\Theta(x, x')$.  
# > **What is true:** without biases ReLU is positively homogeneous, and so is every kernel built from it:
# > $\Theta(ax, bx') = ab\,\Theta(x,x')$ for $a, b > 0$. Only the *normalized* kernel is scale invariant. A bias breaks
# > homogeneity; erf and tanh were never homogeneous (they saturate). Depending only on the angle on the sphere is
# > not special to ReLU: an MLP with i.i.d. Gaussian weights has kernels that depend on its inputs only through
# > $\lVert x\rVert$, $\lVert x'\rVert$ and $x \cdot x'$, so on a sphere only through the angle.
#
# The ratio $\Theta(ax, bx') / (ab\,\Theta(x,x'))$ over a grid of scales:

# %%
pair = nh.sphere(2, d=4, seed=0)
scales = np.geomspace(0.25, 4, 9)
cases = {"ReLU, no bias": nh.mlp(2, "relu"), "ReLU, σ_b = 0.5": nh.mlp(2, "relu", sigma_b=0.5),
         "erf": nh.mlp(2, "erf", sigma_w=1.5), "tanh": nh.mlp(2, "tanh", sigma_w=1.5)}
ratio = {}
for name, net in cases.items():
    base = float(net.kernel(pair[:1], pair[1:]).ntk)
    ratio[name] = np.array([[float(net.kernel(a * pair[:1], b * pair[1:]).ntk) / (a * b * base)
                             for b in scales] for a in scales])
fig, axes = plt.subplots(1, 4, figsize=(13, 3.4))
for ax, (name, r) in zip(axes, ratio.items()):
    image = ax.imshow(np.log(r), cmap="RdBu_r", vmin=-3, vmax=3, origin="lower")
    ax.set_title(name)
    ax.set_xticks([0, 4, 8], ["¼", "1", "4"])
    ax.set_yticks([0, 4, 8], ["¼", "1", "4"])
    ax.set_xlabel("b (scale of x′)")
    ax.grid(False)
axes[0].set_ylabel("a (scale of x)")
axes[0].text(4, 4, "ratio 1\nat every (a, b):\nhomogeneous", ha="center", va="center", fontsize=11)
plt.colorbar(image, ax=axes, label="log Θ(ax,bx′)/(ab Θ(x,x′))", shrink=0.85)
plt.show()

# %%
log_gap = {name: float(np.abs(np.log(r)).max()) for name, r in ratio.items()}
case_names = {"ReLU, no bias": nh._("ReLU, no bias")}                                 # as printed
print({case_names.get(name, name): nh._("max |log ratio| = {gap:.2g}").format(gap=g) if g > 1e-10
       else nh._("1 to 1e-10") for name, g in log_gap.items()})
assert log_gap["ReLU, no bias"] < 1e-10, \
    f"ReLU without bias: ratio 1 to 1e-10 expected, measured |log ratio| {log_gap['ReLU, no bias']:.1e}"
for name in ["ReLU, σ_b = 0.5", "erf", "tanh"]:
    assert log_gap[name] > 1e-2, f"{name}: not homogeneous (|log ratio| > 0.01) expected, {log_gap[name]:.3g}"

# %% [markdown]
# ### erf and tanh: magnitude and angle, but nothing like an RBF
#
# > **The text says:** tanh and erf kernels depend on the inputs' magnitudes as well as on their angle, are
# > smoother, and are "closer to an RBF kernel".  
# > **What is true:** the magnitude dependence is right: Williams (1997) gives the erf kernel in closed form,
# > $\mathbb E[\operatorname{erf}(u)\operatorname{erf}(v)] = \tfrac2\pi\arcsin\big(2\Sigma_{12}/\sqrt{(1+2\Sigma_{11})(1+2\Sigma_{22})}\big)$, and
# > the norms enter through $\Sigma_{11}$, $\Sigma_{22}$. "Closer to an RBF" has no meaning here: an RBF kernel depends
# > only on $x - x'$ (it is *stationary*), while the erf kernel depends on $\lVert x\rVert$, $\lVert x'\rVert$ and
# > $x \cdot x'$: it is **rotation invariant** (turning both inputs together leaves it unchanged) but not a function
# > of $x - x'$. For small inputs erf is almost linear, and (without bias) the normalized kernel tends to the linear kernel
# > $\cos\theta$; for large inputs erf is almost the sign function, and the normalized NNGP tends to the
# > **arcsine kernel** of $\operatorname{sign}$, $\tfrac2\pi\arcsin(\cos\theta) = 1 - 2\theta/\pi$, which is scale
# > invariant. ([errata A25](../ERRATA.md#a25))
#
# Experiment: the normalized NNGP $K(ax, ax')/K(ax, ax)$ of a one-hidden-layer erf network, for pairs of inputs at
# every angle $\theta$, as the input scale $a$ grows. (The normalized NTK has a different limit. Its first-layer
# term grows like $a$ on the diagonal, since $\operatorname{erf}'$ of a large pre-activation is a narrow spike: for
# $\lVert x\rVert^2 = d$, $\Theta(ax, ax)/a \to 2/\pi$. Between two different directions it stays bounded
# ($\Theta(ax, ax') \approx 0.70$ at $\theta = 60°$ for $a = 10 \dots 1000$), so the normalized NTK tends to 0
# for $0 < \theta < \pi$; at $\theta = \pi$ it is $-1$ at every scale, because the bias-free kernel is odd. Both
# are checked below.)

# %%
erf_net = nh.mlp(1, "erf", sigma_w=1.0)
angle = np.linspace(0, math.pi, 61)
ring = torch.tensor(np.stack([np.cos(angle), np.sin(angle)], 1)) * math.sqrt(2)    # |x|² = d = 2
input_scales = [0.1, 1.0, 10.0, 1000.0]
normalized = {a: (erf_net.kernel(a * ring[:1], a * ring).nngp[0]
                  / erf_net.kernel(a * ring[:1]).nngp[0, 0]).numpy() for a in input_scales}
fig, ax = plt.subplots(figsize=(10, 4))
hidden = {0.1: " (under cos θ)", 1000.0: " (under 1 − 2θ/π)"}
for a, k_norm in normalized.items():
    ax.plot(angle, k_norm, label=f"erf, input scale a = {a:g}{hidden.get(a, '')}")
ax.plot(angle, np.cos(angle), "k:", lw=1.5, label="cos θ (linear kernel)")
ax.plot(angle, 1 - 2 * angle / math.pi, "k--", lw=1.5, label="1 − 2θ/π (arcsine kernel of sign)")
ax.set_xlabel("angle θ between x and x′ (radians)")
ax.set_ylabel("normalized NNGP K(ax, ax′) / K(ax, ax)")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
to_linear = float(np.abs(normalized[0.1] - np.cos(angle)).max())
to_arcsine = float(np.abs(normalized[1000.0] - (1 - 2 * angle / math.pi)).max())
print(f"a = 0.1: max |K_norm − cos θ| = {to_linear:.1e};  "
      f"a = 1000: max |K_norm − (1 − 2θ/π)| = {to_arcsine:.1e}")
assert to_linear < 1e-4, f"small inputs: the linear kernel to 1e-4 expected, measured {to_linear:.2e}"
assert to_arcsine < 1e-3, f"large inputs: the arcsine kernel to 1e-3 expected, measured {to_arcsine:.2e}"
ntk_growth = float(erf_net.kernel(1000 * ring[:1]).ntk) / 1000
print(nh._("NTK diagonal at a = 1000: Θ(ax, ax)/a = {growth:.4f} (2/π = {limit:.4f})").format(
    growth=ntk_growth, limit=2 / math.pi))
assert abs(ntk_growth * math.pi / 2 - 1) < 0.01, f"Θ(ax, ax)/a → 2/π (1%) expected, measured {ntk_growth:.4f}"
at_60 = {a: float(erf_net.kernel(a * ring[:1], a * ring[20:21]).ntk) for a in (10.0, 100.0, 1000.0)}   # 60°
print(nh._("NTK at θ = 60°: Θ(ax, ax′) = {values} / normalized at a = 1000: {normalized:.4f}").format(
    values={a: round(v, 3) for a, v in at_60.items()}, normalized=at_60[1000.0] / (1000 * ntk_growth)))
assert all(0.65 < v < 0.75 for v in at_60.values()), f"Θ(ax, ax′) at 60° ≈ 0.70 (bounded) expected, {at_60}"

# %% [markdown]
# Both limits depend on the angle only, yet the kernel is not a function of the distance $\lVert x - x'\rVert$: move
# both inputs by the same vector $c$ (the distance does not change) and the kernel does.

# %%
x_pair = nh.sphere(2, d=3, seed=0)
shift = torch.tensor([[1.5, -1.0, 0.5]], dtype=torch.float64)
before = float(erf_net.kernel(x_pair[:1], x_pair[1:]).nngp)
after = float(erf_net.kernel(x_pair[:1] + shift, x_pair[1:] + shift).nngp)
distance = float((x_pair[0] - x_pair[1]).norm())
print(nh._("|x − x′| = {distance:.3f} for both pairs; erf NNGP {before:.3f} before the shift, {after:.3f} "
           "after").format(distance=distance, before=before, after=after))
assert abs(after - before) > 0.1 * abs(before), \
    f"erf kernel is not stationary: a change > 10% expected, measured {abs(after - before) / abs(before):.3f}"

# %% [markdown]
# ## 4.5.2 Eigen-decay on the circle
#
# On the circle, a dot-product kernel $\kappa(\cos(\theta - \theta'))$ is diagonalized by Fourier modes: mode $k$
# ($\cos k\theta$, $\sin k\theta$) has eigenvalue $\mu_k$, the $k$-th Fourier coefficient of $\kappa$ (Bietti & Mairal 2019;
# Basri et al. 2019). We get them from one FFT of the kernel between one point and 2048 points around the circle.

# %%
def circle_spectrum(net, points=2048):
    _, circle = nh.circle(points)                            # (points, 2) with |x|² = d
    row = net.kernel(circle[:1], circle).ntk[0]              # κ(cos θ) at equally spaced angles
    return (torch.fft.rfft(row).real / row.numel()).numpy()  # μ_0, μ_1, ...

spectra = {"ReLU": circle_spectrum(nh.mlp(1, "relu")),
           "ReLU, σ_b² = 0.5": circle_spectrum(nh.mlp(1, "relu", sigma_b=math.sqrt(0.5))),
           "erf": circle_spectrum(nh.mlp(1, "erf", sigma_w=1.0))}
k = np.arange(1, 200)
fig, ax = plt.subplots()
for name, mu in spectra.items():
    keep = np.abs(mu[k]) > 1e-14
    ax.loglog(k[keep], np.abs(mu[k][keep]), ".", label=name)
ax.loglog(k, 0.3 * (k / 2.0) ** -2.0, "k--", lw=1, label="k⁻²")
ax.set_xlabel("frequency k")
ax.set_ylabel("eigenvalue μ_k")
ax.legend()
plt.show()

# %%
even = np.arange(22, 199, 2)
relu_slope = np.polyfit(np.log(even), np.log(spectra["ReLU"][even]), 1)[0]
relu_odd = float(np.abs(spectra["ReLU"][[3, 5, 7]]).max() / spectra["ReLU"][1])
biased_odd = spectra["ReLU, σ_b² = 0.5"][[3, 5, 7]] / spectra["ReLU, σ_b² = 0.5"][1]
erf_even = float(np.abs(spectra["erf"][2::2]).max() / spectra["erf"][1])
odd_k = np.arange(5, 26, 2)
erf_line = np.polyfit(odd_k, np.log(spectra["erf"][odd_k]), 1)                 # log μ_k ≈ slope·k + c
erf_off_line = float(np.abs(np.log(spectra["erf"][odd_k]) - np.polyval(erf_line, odd_k)).max())
print(nh._("ReLU: slope {slope:.3f} on even k; odd μ_3, μ_5, μ_7 below 1e-10 μ_1: {below}").format(
    slope=relu_slope, below=relu_odd < 1e-10))
print(nh._("ReLU with bias: odd μ_3, μ_5, μ_7 = {ratios} μ_1").format(ratios=np.round(biased_odd, 4)))
print(nh._("erf: μ_1, μ_3, μ_5 = {values}; every even μ_k (k ≥ 2) below 1e-12 μ_1: {below}").format(
    values=spectra["erf"][[1, 3, 5]].round(4), below=erf_even < 1e-12))
print(nh._("erf, odd k = 5 … 25: log μ_k has slope {slope:.2f} in k (μ_(k+2)/μ_k ≈ {ratio:.2f}), largest "
           "distance from the line {distance:.2f}").format(slope=erf_line[0], ratio=math.exp(2 * erf_line[0]),
                                                            distance=erf_off_line))
assert abs(relu_slope + 2) < 0.05, f"ReLU eigen-decay: slope -2 ± 0.05 expected, measured {relu_slope:.3f}"
assert relu_odd < 1e-10, f"one ReLU layer, no bias: odd μ_k (k ≥ 3) below 1e-10 μ_1 expected, {relu_odd:.1e}"
assert biased_odd.min() > 1e-3, \
    f"ReLU + bias: odd μ_3,5,7 above 1e-3 μ_1 expected, smallest {biased_odd.min():.2e}"
assert erf_even < 1e-12, f"erf without bias: even μ_k below 1e-12 μ_1 expected, measured {erf_even:.1e}"
assert erf_line[0] < -0.9 and erf_off_line < 0.25, \
    f"erf: log μ_k linear in k (slope < -0.9, off the line < 0.25) expected, slope {erf_line[0]:.3f}, " \
    f"off the line {erf_off_line:.3f}"

# %% [markdown]
# > **The text says:** erf eigenvalues decay exponentially, ReLU's polynomially, so ReLU "can learn high
# > frequencies effectively".  
# > **What is true:** the decay rates are right ($\mu_k \asymp k^{-d}$ for the ReLU NTK on $S^{d-1}$: $k^{-2}$ on the
# > circle), but ReLU still has spectral bias: mode $k$ is learned at a rate proportional to $\mu_k$, which falls
# > with $k$ (next sections). And without bias the NTK of **one** hidden ReLU layer has no odd modes beyond $k = 1$
# > at all (deeper ones do: next cell). ([errata A26](../ERRATA.md#a26), [A27](../ERRATA.md#a27))
#
# ### Odd modes and depth
#
# Why does one bias-free ReLU layer have no $\cos 3\theta$, $\cos 5\theta$, …? Split the activation into a linear
# and an even part: $\mathrm{ReLU}(u) = \tfrac u2 + \tfrac{|u|}2$. For jointly Gaussian $(u, v)$ with correlation
# $\rho$, the cross terms $\mathbb E[u\,|v|]$ vanish, $\mathbb E[uv]/4$ is linear in $\rho$, and
# $\mathbb E[|u|\,|v|]/4$ is **even** in $\rho$ (flipping $x'$ flips $v$ and leaves $|v|$ alone). Likewise
# $\mathrm{ReLU}' = \tfrac12 + \tfrac12\operatorname{sign}$ gives $\dot\Sigma = $ a constant plus an odd function of $\rho$,
# which multiplies the linear input kernel. With one hidden layer $\rho = \cos\theta$, so the NTK is
# $c\cos\theta$ plus an even function of $\cos\theta$: the only odd mode is $k = 1$. (The arc-cosine kernel of degree
# 1 is the same statement: $\tfrac1{2\pi}(\sin\theta + (\pi - \theta)\cos\theta)$ equals $\tfrac14\cos\theta$ plus an even
# part, Cho & Saul 2009.) A second layer receives the correlation $\rho_2 = a + b\cos\theta + (\text{even})$, which
# is no longer odd in $\cos\theta$; an even function of $\rho_2$ then contains odd powers of $\cos\theta$, and odd
# harmonics appear. Leaky ReLU and GELU are also "linear + even" and behave the same way.
#
# Experiment: the odd part of the kernel, $\tfrac12(\kappa(t) - \kappa(-t))$ with $t = \cos\theta$, divided by $t$
# (constant if the odd part is linear), and $\mu_3/\mu_1$, $\mu_5/\mu_1$ against depth.

# %%
depths = np.arange(1, 7)
odd_modes = np.array([circle_spectrum(nh.mlp(int(L), "relu"))[[1, 3, 5]] for L in depths])
t_circle = np.cos(np.arange(2048) * 2 * math.pi / 2048)
away = np.abs(t_circle) > 0.1

def odd_part_spread(depth):
    """Relative spread of (κ(t) − κ(−t)) / 2t over the circle: 0 when the odd part is c·t."""
    _, circle = nh.circle(2048)
    row = nh.mlp(depth, "relu").kernel(circle[:1], circle).ntk[0].numpy()
    ratio = (row - np.roll(row, -1024))[away] / (2 * t_circle[away])       # κ(−t) sits half a turn away
    return float(np.ptp(ratio) / np.abs(ratio).max())

fig, ax = plt.subplots()
ax.plot(depths, odd_modes[:, 1] / odd_modes[:, 0], "o-", label="μ₃ / μ₁")
ax.plot(depths, odd_modes[:, 2] / odd_modes[:, 0], "s-", label="μ₅ / μ₁")
ax.set_xlabel("number of hidden ReLU layers (no bias)")
ax.set_ylabel("odd eigenvalue / μ₁")
ax.legend()
plt.show()

# %%
spreads = {L: odd_part_spread(L) for L in (1, 2)}
print(nh._("odd part / t: constant to 1e-10 with 1 layer: {constant}; varies by {spread:.2f} of its size "
           "with 2 layers").format(constant=spreads[1] < 1e-10, spread=spreads[2]))
print(nh._("μ₃/μ₁, μ₅/μ₁ by depth: {ratios}").format(
    ratios={int(L): f"{m[1] / m[0]:.3f}, {m[2] / m[0]:.3f}" if L > 1 else nh._("0 to 1e-12")
            for L, m in zip(depths, odd_modes)}))
assert spreads[1] < 1e-10, f"one layer: odd part exactly linear (spread < 1e-10) expected, {spreads[1]:.1e}"
assert spreads[2] > 0.1, f"two layers: odd part not linear (spread > 0.1) expected, measured {spreads[2]:.3f}"
assert abs(odd_modes[0, 1]) < 1e-12 * odd_modes[0, 0], f"one layer: μ₃ = 0 expected, {odd_modes[0, 1]:.1e}"
ratio_3, ratio_5 = odd_modes[1, 1] / odd_modes[1, 0], odd_modes[1, 2] / odd_modes[1, 0]
assert abs(ratio_3 - 0.0829) < 1e-3 and abs(ratio_5 - 0.0206) < 1e-3, \
    f"two layers: μ₃/μ₁ ≈ 0.0829, μ₅/μ₁ ≈ 0.0206 expected, measured {ratio_3:.4f}, {ratio_5:.4f}"
growth = np.diff(odd_modes[:, 1] / odd_modes[:, 0])
assert np.all(growth > 0), f"μ₃/μ₁ should grow with depth; its steps: {np.round(growth, 4)}"

# %% [markdown]
# So "ReLU without bias has no odd modes beyond $k = 1$" is a statement about **one** hidden layer. From two layers on,
# odd modes are there and grow with depth relative to $\mu_1$ ($\mu_3/\mu_1 \approx 0.083$, $\mu_5/\mu_1 \approx 0.021$
# at depth 2). We compare ratios because the raw eigenvalues grow with depth anyway: the whole NTK does (its
# diagonal like $L + 1$). The explorer at the end shows the whole spectrum.
#
# ### …and on the sphere $S^2$
#
# The spectrum of the Gram matrix of 800 random points approximates the operator's: eigenvalue $k$ now has
# multiplicity $2k+1$, so the $i$-th largest eigenvalue of the ReLU NTK falls like $i^{-3/2}$ (from $k^{-3}$).

# %%
sphere_points = nh.sphere(800, d=3, seed=0)
fig, ax = plt.subplots()
sphere_slopes = {}
for name, net in [("ReLU", nh.mlp(1, "relu")), ("erf", nh.mlp(1, "erf", sigma_w=1.0))]:
    lam = nh.eigenvalues(net.kernel(sphere_points).ntk).numpy()
    index = np.arange(1, 401)
    ax.loglog(index, lam[:400], label=name)
    sphere_slopes[name] = np.polyfit(np.log(index[10:200]), np.log(lam[10:200]), 1)[0]
ax.set_xlabel("index i")
ax.set_ylabel("i-th eigenvalue of the Gram matrix")
ax.legend()
plt.show()

# %%
print({name: round(float(s), 2) for name, s in sphere_slopes.items()})
assert -1.9 < sphere_slopes["ReLU"] < -1.3, \
    f"ReLU on S²: slope about -1.5 (between -1.9 and -1.3) expected, measured {sphere_slopes['ReLU']:.3f}"
assert sphere_slopes["erf"] < -3, \
    f"erf on S²: faster than i^-3 expected, measured slope {sphere_slopes['erf']:.3f}"

# %% [markdown]
# ## Spectral bias = per-mode learning speed
#
# Train the infinitely wide network by gradient flow on 256 equally spaced points of the circle, with squared loss.
# On training points, starting from $f_0 = 0$ (the mean over initializations), $f_t = (I - e^{-\eta K t/n})\,y$ (lesson 07);
# on the circle $K$ is circulant, so the residual of
# Fourier mode $k$ decays like $e^{-\eta\lambda_k t/n}$ with $\lambda_k = n\mu_k$: each frequency has its own clock.

# %%
n = 256
theta_train, x_circle = nh.circle(n)
frequencies = [1, 4, 10]
target = sum(torch.cos(f * theta_train) for f in frequencies)
K = nh.mlp(1, "relu").kernel(x_circle).ntk
eigenvalues, eigenvectors = torch.linalg.eigh(K)
times = np.geomspace(1e-1, 1e5, 60)

def residual_of_mode(t, f):
    residual = eigenvectors @ (torch.exp(-eigenvalues * t / n) * (eigenvectors.T @ target))      # y - f_t
    return float(2 * (residual * torch.cos(f * theta_train)).mean())                     # its cos(f θ) part

curves = {f: [residual_of_mode(t, f) for t in times] for f in frequencies}
mu = (torch.fft.rfft(K[0]).real / n).numpy()        # this Gram matrix's μ_k (≈ the 2048-point ones above)
fig, ax = plt.subplots()
for f, c in curves.items():
    line, = ax.semilogx(times, c, label=f"mode k = {f}: gradient flow")
    ax.semilogx(times[::3], np.exp(-mu[f] * times[::3]), "o", mfc="none", ms=5, color=line.get_color(),
                label=f"mode k = {f}: exp(−μ_k t)")
ax.set_xlabel("training time t (η = 1)")
ax.set_ylabel("residual in mode k")
ax.legend(fontsize=9)
plt.show()

# %%
half_life = {f: float(times[np.argmax(np.array(c) < 0.5)]) for f, c in curves.items()}
print(nh._("time to halve each mode's residual: {times}").format(
    times={f: f"{t:.3g}" for f, t in half_life.items()}))
assert half_life[1] < half_life[4] < half_life[10], f"higher modes should be slower, half-lives {half_life}"
formula_gap = max(float(np.abs(np.array(curves[f]) - np.exp(-mu[f] * times)).max()) for f in frequencies)
assert formula_gap < 1e-9, f"each mode decays like exp(-μ_k t) (residuals start at 1): gap {formula_gap:.1e}"

# %% [markdown]
# ## The parity pitfall
#
# With no biases, erf and tanh are odd functions, and so is every network built from them: $f(-x) = -f(x)$. Its
# kernels are odd in each argument, so kernel regression can only produce **odd functions**. When the training
# inputs come in mirror pairs ($x$ and $-x$), as here, it fits the **odd part** of the target and ignores the even
# part. Without mirror pairs it can fit any training values: trained on $x > 0$ only, it fits $x^2$ there and
# predicts $-x^2$ for $x < 0$ (last check of this section). Fit $y = x^2 + x/2$ (even part $x^2$, odd part $x/2$)
# on 21 inputs in $[-2, 2]$:

# %%
x_fit = torch.linspace(-2, 2, 21, dtype=torch.float64)[:, None]
x_plot = torch.linspace(-2.5, 2.5, 201, dtype=torch.float64)[:, None]
target = lambda x: x[:, 0] ** 2 + x[:, 0] / 2
nets = {"erf, no bias": nh.mlp(2, "erf", sigma_w=1.5),
        "erf, σ_b = 0.5": nh.mlp(2, "erf", sigma_w=1.5, sigma_b=0.5)}
grams = {name: net.kernel(torch.cat([x_fit, x_plot])).ntk for name, net in nets.items()}

def fit(name, y):
    K = grams[name]
    return nh.kernel_regression(K[:21, :21], K[21:, :21], y, ridge=1e-4)

predictions = {name: fit(name, target(x_fit)) for name in nets}
fig, ax = plt.subplots()
ax.plot(x_plot, target(x_plot), "k--", lw=1, label="target x² + x/2")
ax.plot(x_plot, x_plot[:, 0] / 2, "k:", lw=1.5, zorder=3, label="its odd part x/2")
for name, p in predictions.items():
    ax.plot(x_plot, p, label=f"NTK regression, {name}")
ax.plot(x_fit, target(x_fit), "ko", ms=4, label="training points")
ax.set_xlabel("input x")
ax.set_ylabel("prediction f(x)")
ax.legend()
plt.show()

# %% [markdown]
# On mirror-symmetric inputs the bias-free Gram matrix annihilates every even target vector (it is singular), so
# the regression needs a small ridge ($10^{-4}$ here). The even part then contributes nothing but rounding errors,
# which the ridge amplifies by $10^4$: around $10^{-10}$ of the prediction's size, far below anything visible (the
# checks below allow $10^{-8}$).

# %%
odd = predictions["erf, no bias"]
asymmetry = float((odd + odd.flip(0)).abs().max() / odd.abs().max())
even_only = float(fit("erf, no bias", x_fit[:, 0] ** 2).abs().max() / (x_fit[:, 0] ** 2).abs().max())
odd_part_gap = float((odd - x_plot[:, 0] / 2)[50:151].abs().max())          # on the training range [-2, 2]
errors = {name: float(((p - target(x_plot)) ** 2).mean()) for name, p in predictions.items()}
print(nh._("no bias: f(−x) = −f(x) to better than 1e-8 of max|f|: {odd}; the even part x² alone gives a "
           "prediction below 1e-8 of its size: {dropped}").format(
    odd=asymmetry < 1e-8, dropped=even_only < 1e-8))
print(nh._("no bias: max |f(x) − x/2| on [−2, 2] = {gap:.1e}").format(gap=odd_part_gap))
print(nh._("mean squared error on [−2.5, 2.5]: no bias {without:.3g}, with bias {with_bias:.3g}").format(
    without=errors["erf, no bias"], with_bias=errors["erf, σ_b = 0.5"]))
assert asymmetry < 1e-8, f"no bias: odd prediction to 1e-8 of its size expected, measured {asymmetry:.1e}"
assert even_only < 1e-8, f"no bias: the even part is dropped (below 1e-8) expected, {even_only:.1e}"
assert odd_part_gap < 0.05, f"no bias: the odd part x/2 is fitted (gap < 0.05) expected, {odd_part_gap:.3f}"
assert errors["erf, no bias"] > 1 and errors["erf, σ_b = 0.5"] < 0.05, \
    f"no bias misses x² (error > 1), bias fits (error < 0.05) expected, measured {errors}"

# %% [markdown]
# Without mirror pairs the even part is not lost but reflected. Train the same bias-free network on $y = x^2$ at 20
# inputs in $[0.1, 2]$ only (ridge $10^{-6}$): it fits $x^2$ there, and oddness then forces $-x^2$ at $-x$.

# %%
x_half = torch.linspace(0.1, 2, 20, dtype=torch.float64)[:, None]
K_half = nets["erf, no bias"].kernel(torch.cat([x_half, x_plot])).ntk
half_fit = nh.kernel_regression(K_half[:20, :20], K_half[20:, :20], x_half[:, 0] ** 2, ridge=1e-6)
fig, ax = plt.subplots()
ax.plot(x_plot, x_plot[:, 0] ** 2, "k--", lw=1, label="target x²")
ax.plot(x_plot, -x_plot[:, 0] ** 2, "k:", lw=1.5, label="−x² (its odd reflection)")
ax.plot(x_plot, half_fit, label="NTK regression, erf, no bias")
ax.plot(x_half, x_half[:, 0] ** 2, "ko", ms=4, label="training points (x > 0 only)")
ax.set_xlabel("input x")
ax.set_ylabel("prediction f(x)")
ax.legend()
plt.show()

# %%
xs = x_plot[:, 0]
fit_gap = float((half_fit - xs ** 2)[(xs >= 0.1) & (xs <= 2)].abs().max())
mirror_gap = float((half_fit + xs ** 2)[(xs <= -0.1) & (xs >= -2)].abs().max())
print(nh._("trained on x in [0.1, 2]: max |f(x) − x²| there = {fit_gap:.1e}; "
           "max |f(x) + x²| on [−2, −0.1] = {mirror_gap:.1e}").format(fit_gap=fit_gap, mirror_gap=mirror_gap))
assert fit_gap < 0.01 and mirror_gap < 0.01, \
    f"fits x² for x > 0, −x² for x < 0 (to 0.01) expected, measured {fit_gap:.2e}, {mirror_gap:.2e}"

# %% [markdown]
# ## Explore
#
# Choose an activation, a depth and a bias: the circle spectrum $\mu_k$ of the NTK (even $k$: filled, odd $k$: open
# circles; values below $10^{-12}$ of the largest are rounding noise and not drawn). The printed line says which
# modes are present and why.

# %%
LINEAR_PLUS_EVEN = {"relu", "leaky_relu", "gelu"}        # φ(u) = c·u + (an even function of u)
ODD = {"erf", "tanh"}

def parity_story(activation, depth, sigma_b):
    if activation == "identity":
        return (nh._("a linear network: the kernel is a + b·cos θ, so only k = 0 (from the biases) "
                     "and k = 1 exist")
                if sigma_b > 0 else nh._("a linear network without bias: the kernel is b·cos θ, only k = 1"))
    if sigma_b > 0:
        return nh._("the bias breaks the parity of the input kernel: even and odd modes are all present")
    if activation in ODD:
        return nh._("odd activation without bias: f(−x) = −f(x), the kernel is odd, "
                    "only odd k at every depth")
    if depth == 1:
        return nh._("one layer of a 'linear + even' activation: the kernel's odd part is c·cos θ, "
                    "no odd k ≥ 3")
    return nh._("two or more layers: the input to layer 2 is no longer odd in cos θ, "
                "so odd modes k ≥ 3 appear")

def draw_spectrum(activation, depth, sigma_b):
    mu = circle_spectrum(nh.mlp(depth, activation, sigma_w=1.4, sigma_b=sigma_b), points=512)
    k = np.arange(1, 100)
    floor = 1e-12 * np.abs(mu).max()
    fig, ax = plt.subplots()
    shown = []
    for parity, name in [(0, "even k"), (1, "odd k")]:
        ks = k[k % 2 == parity]
        values = np.abs(mu[ks])
        keep = values > floor
        if keep.any():
            ax.loglog(ks[keep], values[keep], "o", mfc="none" if parity else None, ms=4, label=name,
                      color=nh.plotting.PALETTE[parity])                 # even: blue, odd: vermillion
            shown.append(values[keep])
    values = np.concatenate(shown)
    ax.set_ylim(values.min() / 3, values.max() * 3)
    ax.set_xlim(0.8, 125)                                                 # k = 1 … 99 at every setting
    ax.set_title(f"{activation}, depth {depth}, σ_b = {sigma_b:.2f}")
    ax.set_xlabel("frequency k")
    ax.set_ylabel("eigenvalue μ_k")
    ax.legend()
    odd_rel = np.abs(mu[3:100:2]).max() / np.abs(mu).max()
    even_rel = np.abs(mu[2:100:2]).max() / np.abs(mu).max()
    present = lambda r: (nh._("present (largest {size:.2g} of μ_max)").format(size=r) if r > 1e-12
                         else nh._("absent"))
    print(nh._("{activation}, depth {depth}, σ_b = {sigma_b:.2f}: odd k ≥ 3 {odd}, even k ≥ 2 {even}. "
               "{story}").format(
        activation=activation, depth=depth, sigma_b=sigma_b, odd=present(odd_rel), even=present(even_rel),
        story=parity_story(activation, depth, sigma_b)))

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_spectrum, activation=nh.widgets.activation_dropdown("relu"),
                       depth=nh.widgets.depth_slider(1, max=10),
                       sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=1.0))

# %% [markdown]
# ## Summary
#
# - ReLU without bias: $\Theta(ax, bx') = ab\,\Theta(x,x')$ (homogeneous, not invariant); biases and saturating
#   activations break it. The erf kernel depends on $\lVert x\rVert$, $\lVert x'\rVert$ and $x \cdot x'$ (rotation
#   invariant, not stationary): normalized, it is linear for small inputs (without bias), the arcsine kernel
#   $1 - 2\theta/\pi$ for large ones, never an RBF.
# - On the circle the ReLU NTK's eigenvalues fall like $k^{-2}$ (like $k^{-d}$ on $S^{d-1}$); erf's fall
#   geometrically and, without bias, contain only odd $k$.
# - With **one** hidden bias-free ReLU layer the NTK has no odd modes $k \geq 3$ (ReLU = linear + even part); from
#   two layers on they appear ($\mu_3/\mu_1 \approx 0.083$ at depth 2) and grow with depth relative to $\mu_1$; a bias
#   brings them in at any depth.
# - Each mode is learned at its own rate $\mu_k$: that is spectral bias, for ReLU too.
# - Bias-free odd activations can only represent odd functions: on mirror-symmetric training inputs they keep a
#   target's odd part and drop its even part.
#
# **Exercises:** 4.4 (ReLU vs erf: homogeneity, eigen-decay, parity) and 4.8 (activation and double descent).
#
# **Next:** [07 · Training dynamics](07_training_dynamics.ipynb)
