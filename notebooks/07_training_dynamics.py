# %% [markdown]
# # 07 · Training dynamics: the closed form against real gradient descent
#
# *Overview text §3.*
#
# **You will learn**
# - the closed-form outputs of an infinitely wide network trained by gradient descent, on training **and**
#   test inputs, and how the loss normalization sets the clock;
# - how close a real finite network gets, and how the gap shrinks with width;
# - what "lazy training" measures: the output moves by $O(1)$ while the kernel and the features freeze;
# - why stopping early acts like a ridge penalty.
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
# ## The formula
#
# Loss $\mathcal L = \frac{1}{2n}\sum_i (f(x_i) - y_i)^2$, gradient flow with learning rate $\eta$, NTK $\Theta$ fixed
# (infinite width). Then $\dot f_t(X) = -\frac{\eta}{n}\Theta\,(f_t(X) - y)$, so
#
# $$f_t(X) = f_0(X) + \bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)),$$
# $$f_t(x^*) = f_0(x^*) + \Theta(x^*, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)).$$
#
# Discrete gradient descent replaces $e^{-\eta\Theta t/n}$ by $(I - \eta\Theta/n)^t$ (stable while $\eta\lambda_\max/n < 2$).
# With $\mathcal L = \frac12\sum_i$ drop the $1/n$; with PyTorch's `MSELoss` (mean, no ½) use $2/n$: `nh.linearized_dynamics(..., loss=...)`.
#
# > **The text says:** $f(t) = e^{-Kt}f(0) + (I - e^{-Kt})\,y$, and "NNGP: $f \sim \mathcal{GP}(0, k_\text{NTK})$".  
# > **What is true:** that formula holds on the **training** inputs only, for $\eta = 1$ and the $\frac12\sum$ loss; test
# > inputs need the $\Theta(x^*,X)\Theta^{-1}$ factor above. The prior over functions at initialization is a Gaussian
# > process with the **NNGP** kernel, not the NTK; the NTK governs training.

# %% [markdown]
# ## 1. Real gradient descent vs the formula
#
# A one-hidden-layer ReLU network on the circle: 20 training angles, 200 steps of gradient descent with $\eta = 1$;
# we compare its outputs on 120 test angles with the formula, using the analytic NTK and the network's own $f_0$.

# %%
angles_train = torch.linspace(0, 2 * math.pi, 21, dtype=torch.float64)[:-1] + 0.1
angles_test = torch.linspace(0, 2 * math.pi, 121, dtype=torch.float64)[:-1]
on_circle = lambda a: torch.stack([a.cos(), a.sin()], 1) * math.sqrt(2)
x_train, x_test = on_circle(angles_train), on_circle(angles_test)
y_train = torch.sin(2 * angles_train) + 0.5 * torch.cos(angles_train)
arch = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.3)
k = arch.kernel(torch.cat([x_train, x_test])).ntk
ntk_train, ntk_test = k[:20, :20], k[20:, :20]
steps = 200

def network_vs_formula(width, seed=0, lr=1.0):
    model = arch.network(2, width=width, seed=seed)
    with torch.no_grad():
        f0_train, f0_test = model(x_train)[:, 0], model(x_test)[:, 0]
    record = nh.train(model, x_train, y_train, lr=lr, steps=steps, x_eval=x_test, record_every=steps, track_kernels=False)
    formula = nh.linearized_dynamics(ntk_train, y_train, steps, lr=lr, ntk_test_train=ntk_test,
                                     f0_train=f0_train, f0_test=f0_test, discrete=True)
    return record.outputs[-1], formula.test[0]

network, formula = network_vs_formula(16384)
fig, ax = plt.subplots()
ax.plot(angles_test, formula, label="closed form (analytic NTK)")
ax.plot(angles_test, network, "--", label="network, width 16384")
ax.plot(angles_train, y_train, "ko", ms=4, label="training data")
ax.set_xlabel("angle")
ax.set_ylabel("output after 200 steps")
ax.legend()
plt.show()

# %%
gap = {}
for width in [256, 1024, 4096, 16384]:
    gaps = [float((a - b).abs().max()) for a, b in (network_vs_formula(width, seed) for seed in range(6))]
    gap[width] = float(np.mean(gaps))
print("max |network − formula| on test inputs, mean of 6 seeds:", {w: round(g, 3) for w, g in gap.items()})

# %%
fig, ax = plt.subplots()
slope = nh.plotting.loglog_fit(ax, list(gap), list(gap.values()), label="network − formula", guide_slope=-0.5)
ax.set_xlabel("width m")
ax.set_ylabel("max deviation on test inputs")
plt.show()

# %%
assert slope < -0.25 and gap[16384] < 0.03

# %% [markdown]
# ## 2. Lazy training, measured
#
# > **The text says:** in the lazy regime the output changes by $O(t/\sqrt m)$.  
# > **What is true:** the output changes by $O(1)$: it fits the data, at every width. What vanishes as $m$ grows is
# > the change of the **NTK** and of the hidden **features** (Lee et al. 2019 prove $O(m^{-1/2})$ for the NTK).

# %%
rows = []
for width in [256, 1024, 4096]:
    model = arch.network(2, width=width, seed=0)
    record = nh.train(model, x_train, y_train, lr=1.0, steps=steps)
    output_change = float((record.outputs[-1] - record.outputs[0]).norm() / record.outputs[0].norm())
    rows.append((width, output_change, record.ntk_change, record.feature_change))
print(f"{'width':>6} {'output change':>14} {'NTK change':>11} {'feature change':>15}")
for width, out, ntk, feat in rows:
    print(f"{width:>6} {out:>14.2f} {ntk:>11.4f} {feat:>15.4f}")

# %%
widths = [r[0] for r in rows]
assert all(r[1] > 0.3 for r in rows)
assert nh.loglog_slope(widths, [r[2] for r in rows]) < -0.3 and nh.loglog_slope(widths, [r[3] for r in rows]) < -0.3

# %% [markdown]
# ## 3. Early stopping is an implicit ridge
#
# In the eigenbasis of $\Theta$ (eigenvalues $\lambda_i$), gradient flow from $f_0 = 0$ keeps the fraction
# $1 - e^{-\eta\lambda_i t/n}$ of each component of $y$, while ridge regression with penalty $\rho$ keeps
# $\lambda_i/(\lambda_i + \rho)$. Both shrink the small-eigenvalue (wiggly) directions; roughly $\rho \approx n/(\eta t)$.
# With noisy labels both beat running to convergence (ridgeless interpolation).

# %%
noisy = y_train + 0.5 * torch.randn(20, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
truth = torch.sin(2 * angles_test) + 0.5 * torch.cos(angles_test)
times = np.geomspace(1, 1e6, 40)
flow = nh.linearized_dynamics(ntk_train, noisy, times, ntk_test_train=ntk_test)
flow_error = ((flow.test - truth) ** 2).mean(1).numpy()
ridges = 20 / times
ridge_error = np.array([float(((nh.kernel_regression(ntk_train, ntk_test, noisy, ridge=r) - truth) ** 2).mean())
                        for r in ridges])
fig, ax = plt.subplots()
ax.semilogx(times, flow_error, label="gradient flow, time t")
ax.semilogx(times, ridge_error, "--", label="ridge regression, ρ = n/(ηt)")
ax.set_xlabel("training time t")
ax.set_ylabel("test MSE (noisy labels)")
ax.legend()
plt.show()

# %%
interpolation = float(((nh.kernel_regression(ntk_train, ntk_test, noisy) - truth) ** 2).mean())
print(f"best test MSE: early stopping {flow_error.min():.3f}, ridge {ridge_error.min():.3f}, "
      f"trained to convergence {interpolation:.3f}")
best = sorted([flow_error.min(), ridge_error.min()])
assert best[1] < 1.5 * best[0] and best[1] < 0.5 * interpolation

# %% [markdown]
# ## 4. The trained infinite ensemble
#
# Averaging over initializations, the trained infinitely wide network is a Gaussian process (Lee et al. 2019,
# eq. 15–16): mean $\Theta^*\Theta^{-1}(I - e^{-\eta\Theta t/n})\,y$, covariance from both the NNGP and the NTK.
# Five finite networks of width 4096 fall inside its ±2σ band.

# %%
kernels = arch.kernel(torch.cat([x_train, x_test]))
K, T = kernels.nngp, kernels.ntk
ensemble = nh.ensemble_prediction(K[:20, :20], K[20:, :20], K[20:, 20:], T[:20, :20], T[20:, :20], y_train, steps)
sd = ensemble.covariance.diagonal().clamp_min(0).sqrt()
members = [nh.train(arch.network(2, width=4096, seed=s), x_train, y_train, lr=1.0, steps=steps, x_eval=x_test,
                    record_every=steps, track_kernels=False).outputs[-1] for s in range(5)]
fig, ax = plt.subplots()
ax.fill_between(angles_test, ensemble.mean - 2 * sd, ensemble.mean + 2 * sd, alpha=0.25, label="ensemble ±2σ")
ax.plot(angles_test, ensemble.mean, label="ensemble mean")
for m in members:
    ax.plot(angles_test, m, color="k", lw=0.8, alpha=0.6)
ax.plot(angles_train, y_train, "ko", ms=4)
ax.set_xlabel("angle")
ax.legend()
plt.show()

# %%
inside = float(torch.stack([((m - ensemble.mean).abs() <= 2 * sd + 0.02) for m in members]).double().mean())
print(f"fraction of finite-network outputs inside the ±2σ band: {inside:.3f}")
assert inside > 0.9

# %% [markdown]
# ## Explore
#
# Width, learning rate and number of steps: the network (dashed) against the formula (solid) on the test circle.

# %%
def draw_dynamics(width, learning_rate, steps):
    model = arch.network(2, width=width, seed=0)
    with torch.no_grad():
        f0_train, f0_test = model(x_train)[:, 0], model(x_test)[:, 0]
    try:                                     # too large a step makes gradient descent diverge: say so
        formula = nh.linearized_dynamics(ntk_train, y_train, steps, lr=learning_rate, ntk_test_train=ntk_test,
                                         f0_train=f0_train, f0_test=f0_test, discrete=True)
    except ValueError as error:
        print(f"learning rate {learning_rate:.2f}: {error}")
        return
    record = nh.train(model, x_train, y_train, lr=learning_rate, steps=steps, x_eval=x_test, record_every=max(steps, 1),
                      track_kernels=False)
    fig, ax = plt.subplots()
    ax.plot(angles_test, formula.test[0], label="closed form")
    ax.plot(angles_test, record.outputs[-1], "--", label=f"network, width {width}")
    ax.plot(angles_train, y_train, "ko", ms=4)
    ax.set_ylim(-3, 3)
    ax.legend(loc="upper right")
    print(f"width {width}, lr {learning_rate:.2f}, {steps} steps: max gap {float((record.outputs[-1] - formula.test[0]).abs().max()):.3f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_dynamics, width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       learning_rate=nh.widgets.sigma_slider("learning rate", 1.0, min=0.1, max=2.0),
                       steps=nh.widgets.int_slider("steps", 100, min=0, max=400))

# %% [markdown]
# ## Summary
#
# - The linearized network's outputs have a closed form on training and test inputs; the loss normalization sets
#   the time scale (`loss=` argument).
# - Real networks follow it, with a gap shrinking like $m^{-1/2}$.
# - Lazy training: outputs move $O(1)$, the NTK and features move less and less as width grows.
# - Early stopping filters the same eigen-directions a ridge penalty does.
# - The trained infinite ensemble is a Gaussian process built from the NNGP and the NTK.
