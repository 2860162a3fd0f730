# %% [markdown]
# # 06 · Activations: homogeneity, eigen-decay, spectral bias, parity
#
# *Chapter 4.5.*
#
# **You will learn**
# - 4.5.1: ReLU kernels are positively **homogeneous**, not scale invariant; erf and tanh are neither;
# - 4.5.2: how fast a kernel's eigenvalues decay on the circle and the sphere (ReLU polynomially, erf
#   geometrically), and why that decay sets the **speed** at which each frequency is learned (spectral bias);
# - the parity pitfall: without biases, erf and tanh networks can only fit **odd** functions.
#
# **Prerequisites:** lessons 01–02.

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
# > not special to ReLU: every MLP with i.i.d. Gaussian weights gives a dot-product kernel.
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
    ratio[name] = np.array([[float(net.kernel(a * pair[:1], b * pair[1:]).ntk) / (a * b * base) for b in scales]
                            for a in scales])
fig, axes = plt.subplots(1, 4, figsize=(13, 3.4))
for ax, (name, r) in zip(axes, ratio.items()):
    image = ax.imshow(np.log(r), cmap="RdBu_r", vmin=-2, vmax=2, origin="lower")
    ax.set_title(name)
    ax.set_xticks([0, 8], ["¼", "4"])
    ax.set_yticks([0, 8], ["¼", "4"])
    ax.set_xlabel("b")
    ax.grid(False)
axes[0].set_ylabel("a")
plt.colorbar(image, ax=axes, label="log Θ(ax,bx′)/(ab Θ(x,x′))", shrink=0.85)
plt.show()

# %%
print({name: f"max |log ratio| = {np.abs(np.log(r)).max():.2g}" if np.abs(np.log(r)).max() > 1e-10 else "1 to 1e-10"
       for name, r in ratio.items()})
assert np.allclose(ratio["ReLU, no bias"], 1, rtol=1e-10)
assert all(np.abs(np.log(ratio[name])).max() > 1e-2 for name in ["ReLU, σ_b = 0.5", "erf", "tanh"])

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
ax.set_ylim(1e-9, 2)
ax.set_xlabel("frequency k")
ax.set_ylabel("eigenvalue μ_k")
ax.legend()
plt.show()

# %%
even = np.arange(22, 199, 2)
relu_slope = np.polyfit(np.log(even), np.log(spectra["ReLU"][even]), 1)[0]
print(f"ReLU: slope {relu_slope:.3f} on even k; odd μ_3, μ_5, μ_7 below 1e-10: {np.abs(spectra['ReLU'][[3, 5, 7]]).max() < 1e-10}")
print(f"ReLU with bias: odd μ_3, μ_5, μ_7 = {spectra['ReLU, σ_b² = 0.5'][[3, 5, 7]].round(4)}")
print(f"erf: μ_1, μ_3, μ_5 = {spectra['erf'][[1, 3, 5]].round(4)}; every even μ_k (k ≥ 2) below 1e-12: "
      f"{np.abs(spectra['erf'][2::2]).max() < 1e-12}")
assert abs(relu_slope + 2) < 0.05 and np.abs(spectra["ReLU"][[3, 5, 7]]).max() < 1e-10
assert spectra["ReLU, σ_b² = 0.5"][[3, 5, 7]].min() > 1e-3
assert np.abs(spectra["erf"][2::2]).max() < 1e-12 and spectra["erf"][5] / spectra["erf"][3] < 0.2

# %% [markdown]
# > **The text says:** erf eigenvalues decay exponentially, ReLU's polynomially, so ReLU "can learn high
# > frequencies effectively".  
# > **What is true:** the decay rates are right ($\mu_k \asymp k^{-d}$ for the ReLU NTK on $S^{d-1}$: $k^{-2}$ on the
# > circle), but ReLU still has spectral bias: mode $k$ is learned at a rate proportional to $\mu_k$, which falls
# > with $k$. And without bias the one-layer ReLU NTK has **no** odd modes beyond $k = 1$ at all.
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
assert -1.9 < sphere_slopes["ReLU"] < -1.3 and sphere_slopes["erf"] < -3

# %% [markdown]
# ## Spectral bias = per-mode learning speed
#
# Train the infinitely wide network by gradient flow on 256 equally spaced points of the circle, with squared loss.
# On training points $f_t = (I - e^{-\eta K t/n})\,y$ (lesson 07); on the circle $K$ is circulant, so the residual of
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
    return float(2 * (residual * torch.cos(f * theta_train)).mean())                              # its cos(f θ) part

curves = {f: [residual_of_mode(t, f) for t in times] for f in frequencies}
mu = (torch.fft.rfft(K[0]).real / n).numpy()        # this Gram matrix's μ_k (≈ the 2048-point ones above)
fig, ax = plt.subplots()
for f, c in curves.items():
    line, = ax.semilogx(times, c, label=f"mode k = {f}")
    ax.semilogx(times, np.exp(-mu[f] * times), "--", color=line.get_color(), lw=1)
ax.set_xlabel("training time t (η = 1)")
ax.set_ylabel("residual in mode k")
ax.set_title("dashed: exp(−μ_k t)")
ax.legend()
plt.show()

# %%
half_life = {f: float(times[np.argmax(np.array(c) < 0.5)]) for f, c in curves.items()}
print("time to halve each mode's residual:", {f: f"{t:.3g}" for f, t in half_life.items()})
assert half_life[1] < half_life[4] < half_life[10]
assert all(np.allclose(curves[f], np.exp(-mu[f] * times), atol=1e-9) for f in frequencies)

# %% [markdown]
# ## The parity pitfall
#
# With no biases, erf and tanh are odd functions, and so is every network built from them: $f(-x) = -f(x)$. Its
# kernels are odd in each argument, so kernel regression can only produce odd functions. Fit $y = x^2$ (even) on
# 1-D inputs:

# %%
x_fit = torch.linspace(-2, 2, 21, dtype=torch.float64)[:, None]
x_plot = torch.linspace(-2.5, 2.5, 201, dtype=torch.float64)[:, None]
y_fit = x_fit[:, 0] ** 2
predictions = {}
for name, net in [("erf, no bias", nh.mlp(2, "erf", sigma_w=1.5)), ("erf, σ_b = 0.5", nh.mlp(2, "erf", sigma_w=1.5, sigma_b=0.5))]:
    K = net.kernel(torch.cat([x_fit, x_plot])).ntk
    predictions[name] = nh.kernel_regression(K[:21, :21], K[21:, :21], y_fit, ridge=1e-6)
fig, ax = plt.subplots()
ax.plot(x_plot, x_plot[:, 0] ** 2, "k--", lw=1, label="target x²")
for name, p in predictions.items():
    ax.plot(x_plot, p, label=name)
ax.plot(x_fit, y_fit, "ko", ms=4)
ax.legend()
plt.show()

# %%
odd_error = float(((predictions["erf, no bias"] - x_plot[:, 0] ** 2) ** 2).mean())
biased_error = float(((predictions["erf, σ_b = 0.5"] - x_plot[:, 0] ** 2) ** 2).mean())
print(f"mean squared error: no bias {odd_error:.3f}, with bias {biased_error:.4f}")
assert torch.allclose(predictions["erf, no bias"], -predictions["erf, no bias"].flip(0), atol=1e-8)   # odd
assert odd_error > 1 and biased_error < 0.05

# %% [markdown]
# ## Explore
#
# Choose an activation, a depth and a bias: the circle spectrum $\mu_k$ (odd modes: open circles).

# %%
def draw_spectrum(activation, depth, sigma_b):
    mu = circle_spectrum(nh.mlp(depth, activation, sigma_w=1.4, sigma_b=sigma_b), points=512)
    k = np.arange(1, 100)
    fig, ax = plt.subplots()
    for parity, marker in [(0, "o"), (1, "o")]:
        ks = k[k % 2 == parity]
        values = np.abs(mu[ks])
        keep = values > 1e-15
        ax.loglog(ks[keep], values[keep], marker, mfc="none" if parity else None, ms=4,
                  label="odd k" if parity else "even k")
    ax.set_ylim(1e-12, 10)
    ax.set_xlabel("frequency k")
    ax.set_ylabel("μ_k")
    ax.legend()
    print(f"{activation}, depth {depth}, σ_b = {sigma_b:.2f}: μ_1 = {mu[1]:.3g}, μ_2 = {mu[2]:.3g}, μ_10 = {mu[10]:.3g}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_spectrum, activation=nh.widgets.activation_dropdown("relu"),
                       depth=nh.widgets.depth_slider(1, max=10), sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=1.0))

# %% [markdown]
# ## Summary
#
# - ReLU without bias: $\Theta(ax, bx') = ab\,\Theta(x,x')$ (homogeneous, not invariant); biases and saturating
#   activations break it.
# - On the circle the ReLU NTK's eigenvalues fall like $k^{-2}$ (like $k^{-d}$ on $S^{d-1}$) and, without bias,
#   skip odd $k \geq 3$; erf's fall geometrically and contain only odd $k$.
# - Each mode is learned at its own rate $\mu_k$: that is spectral bias, for ReLU too.
# - Bias-free odd activations can only fit odd functions.
#
# **Exercises:** 4.4 (ReLU vs erf: homogeneity, eigen-decay, parity) and 4.8 (activation and double descent).
