# %% [markdown]
# # 02 · The MLP recursion, kernel collapse and the edge of chaos
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/02_mlp_recursion.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F02_mlp_recursion.ipynb)
#
# *Chapter 4.1.*
#
# **You will learn**
# - 4.1.1: how the NNGP kernel $\Sigma$ and the NTK $\Theta$ of an MLP are computed layer by layer,
#   and why each step needs the *triple* $(\Sigma(x,x), \Sigma(x',x'), \Sigma(x,x'))$;
# - where the recursion comes from: Gaussian pre-activations, and the NTK as a sum over layers whose
#   gradients pass back through the layers above (compared with a width-4096 network);
# - 4.1.2: what really happens to deep kernels ("kernel collapse"), and why the chapter's explanation
#   (dead or saturated units) is not the mechanism;
# - the order/chaos phase diagram of tanh networks, and the degenerate case without bias ($q^* = 0$).
#
# **Prerequisites:** lesson 01.

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import functools
import math
import textwrap

import ipywidgets as widgets
import matplotlib.patheffects as patheffects
import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers import self_kernels_by_depth, signal_regime

nh.plotting.use_style()

# %% [markdown]
# ## 4.1.1 The recursion
#
# Network (NTK parameterization, $L$ hidden layers of width $m$, all weights and biases $\mathcal N(0,1)$):
# $z^{(1)} = \frac{\sigma_w}{\sqrt d}W^{(1)}x + \sigma_b b^{(1)}$, then
# $z^{(l+1)} = \frac{\sigma_w}{\sqrt m}W^{(l+1)}\phi(z^{(l)}) + \sigma_b b^{(l+1)}$, and $f = z^{(L+1)}$.
#
# As $m\to\infty$ each unit of $z^{(l)}$ is a Gaussian process over inputs with covariance $\Sigma^{(l)}$, and
#
# $$\Sigma^{(1)}(x,x') = \sigma_w^2\,\tfrac{x\cdot x'}{d} + \sigma_b^2, \qquad \Theta^{(1)} = \Sigma^{(1)},$$
#
# $$\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2, \qquad
#   \dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)], \qquad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# where $(u, v) \sim \mathcal N\!\left(0, \begin{pmatrix}\Sigma^{(l)}(x,x) & \Sigma^{(l)}(x,x')\\ \Sigma^{(l)}(x,x') & \Sigma^{(l)}(x',x')\end{pmatrix}\right)$
# (Jacot et al. 2018; Lee et al. 2019; Arora et al. 2019).
#
# > **The text says:** the NNGP kernel is $K^{(l)}(x,x') = \mathbb E[\sigma(z_i^{(l)})\,\sigma(z_j^{(l)})]$, and
# > $\Theta^{(l)} = K^{(l)} + \dot K^{(l-1)}\Theta^{(l-1)}$.  
# > **What is true:** the expectation is over **one** unit at two inputs, $\mathbb E[\phi(z_i(x))\,\phi(z_i(x'))]$;
# > two different units $i\neq j$ are independent and their covariance is zero. The NTK step adds the
# > *pre-activation* covariance, and both $\sigma_w^2$ and $\sigma_b^2$ belong in it, as above
# > ([errata A1](../ERRATA.md#a1), [A2](../ERRATA.md#a2)).

# %% [markdown]
# ### Where the recursion comes from, step 1: Gaussian pre-activations
#
# Take one unit of layer $l+1$ and hold everything below it fixed:
#
# $$z_i^{(l+1)}(x) = \frac{\sigma_w}{\sqrt m}\sum_{j=1}^{m} W_{ij}\,\phi\bigl(z_j^{(l)}(x)\bigr) + \sigma_b\,b_i .$$
#
# - **A sum of many independent terms.** Given layer $l$, this is a sum of $m$ independent, zero-mean terms (one
#   per weight $W_{ij}$) plus an independent bias. So its values at any finite set of inputs are jointly
#   Gaussian (exactly for Gaussian weights; by the central limit theorem as $m\to\infty$ for any weights with
#   unit variance), with covariance
#   $\sigma_w^2\,\frac1m\sum_j \phi(z_j^{(l)}(x))\,\phi(z_j^{(l)}(x')) + \sigma_b^2$.
# - **An average that becomes deterministic.** That covariance is an *average over the $m$ units* of layer $l$.
#   If those units are independent copies of one Gaussian process with covariance $\Sigma^{(l)}$, the law of
#   large numbers turns the average into $\mathbb E[\phi(u)\phi(v)]$, $(u,v)\sim\mathcal N(0,\Lambda^{(l)})$, where
#   $\Lambda^{(l)}$ is the $2\times2$ matrix of the triple above. A random covariance becomes a fixed one, and that
#   gives $\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2$.
# - **Independent units.** Two units $i\neq i'$ of layer $l+1$ use independent weight rows and biases:
#   $\mathbb E[z_i z_{i'}] = 0$, and in the limit they are independent copies of the same process. That is what the
#   next layer's average needs (induction), and it is why the kernel is about *one* unit at two inputs.
# - **The start.** $z^{(1)} = \frac{\sigma_w}{\sqrt d}Wx + \sigma_b b$ is exactly Gaussian, with
#   $\Sigma^{(1)} = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$.
#
# Check it on **one** network of width $m = 4096$ (depth 2, ReLU, $\sigma_w^2 = 2$, $\sigma_b = 0.2$) and two inputs
# of different lengths. First the predictions of the recursion for every layer:

# %%
pair = torch.tensor([[1.0, 0.0, 0.0], [0.9, 1.5, 0.3]], dtype=torch.float64)   # (2, 3), |x| ≠ |x'|
sigma_w, sigma_b, width = math.sqrt(2), 0.2, 4096
hidden, activation = nh.dense(sigma_w=sigma_w, sigma_b=sigma_b), nh.relu()

predicted_sigma, predicted_sigma_dot = [], []   # Σ^(l), l = 1, 2, 3, and Σ̇^(l+1), l = 1, 2: (2, 2) each
k = nh.Kernel.from_inputs(pair)
for layer in (1, 2, 3):
    k = hidden.transform(k)                                                   # Σ^(l): covariance of z^(l)
    predicted_sigma.append(k.nngp)
    if layer < 3:                                                             # layer 3 is the readout f
        e_dot = activation.dual(k.var1[:, None], k.var1[None, :], k.nngp)[1]
        predicted_sigma_dot.append(sigma_w ** 2 * e_dot)                # Σ̇^(l+1) = σ_w² E[φ'(u)φ'(v)]
        k = activation.transform(k)

# %% [markdown]
# Now the network. Its modules alternate dense layer and ReLU; the output of each dense layer is a
# pre-activation $z^{(l)}$ (the last one is $f$):

# %%
wide = nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).network(3, width=width, seed=0)
preactivations, h = [], pair
for index, module in enumerate(wide):               # dense, relu, dense, relu, dense(1)
    h = module(h)
    if index % 2 == 0:
        preactivations.append(h)                    # z^(1), z^(2): (2, 4096); f = z^(3): (2, 1)
print(wide)

# %% [markdown]
# The 4096 units of one layer are (nearly) independent samples of that layer's Gaussian process, so the average
# of $z_i(x)\,z_i(x')$ over units estimates $\Sigma^{(l)}(x,x')$, with standard error SE = (standard deviation of
# the products)/$\sqrt m$. We accept **6 SE**: the layers below are finite too, and over 12 seeds we measured the
# layer-2 errors to scatter about 1.6 times the naive SE.

# %%
def unit_average(products):
    """Mean over the units of a layer and its standard error."""
    return float(products.mean()), float(products.std() / math.sqrt(products.numel()))


print(f"{'layer':<7}{'entry':<10}{'predicted':>10}{'measured':>10}{'6 SE':>8}")
for layer in (1, 2):
    z = preactivations[layer - 1].detach()
    for a, b, entry in ((0, 0, "(x, x)"), (1, 1, "(x′, x′)"), (0, 1, "(x, x′)")):
        measured, se = unit_average(z[a] * z[b])
        expected = float(predicted_sigma[layer - 1][a, b])
        print(f"{layer:<7}{entry:<10}{expected:>10.4f}{measured:>10.4f}{6 * se:>8.4f}")
        assert abs(measured - expected) < 6 * se, (
            f"Σ^({layer}){entry}: expected {expected:.4f} ± {6 * se:.4f} (6 SE), measured {measured:.4f}")

# %% [markdown]
# And the units really look Gaussian: the histogram of the 4096 values $z_i^{(2)}(x')$ against the density of
# $\mathcal N(0, \Sigma^{(2)}(x',x'))$.

# %%
units = preactivations[1][1].detach()                                          # z^(2)(x′): (4096,)
variance = float(predicted_sigma[1][1, 1])
grid = torch.linspace(-4, 4, 201, dtype=torch.float64) * math.sqrt(variance)
fig, ax = plt.subplots()
heights, _, _ = ax.hist(units, bins=60, density=True, alpha=0.5, label=f"{width} units of one network")
ax.plot(grid, torch.exp(-grid ** 2 / (2 * variance)) / math.sqrt(2 * math.pi * variance),
        label="N(0, Σ⁽²⁾(x′,x′)) from the recursion")
peak = max(float(heights.max()), 1 / math.sqrt(2 * math.pi * variance))
ax.set_ylim(0, 1.35 * peak)                                                    # room for the legend
ax.set_xlabel("pre-activation z⁽²⁾ᵢ(x′)")
ax.set_ylabel("probability density")
ax.legend(loc="upper left")
plt.show()

# %%
inside = float((units.abs() < math.sqrt(variance)).double().mean())
gaussian_inside = math.erf(1 / math.sqrt(2))                                   # P(|u| < 1 sd) = 0.6827
tolerance = 6 * math.sqrt(gaussian_inside * (1 - gaussian_inside) / width)
print(f"fraction of units within one standard deviation: {inside:.4f} (Gaussian: {gaussian_inside:.4f})")
assert abs(inside - gaussian_inside) < tolerance, (
    f"fraction within 1 sd: expected {gaussian_inside:.4f} ± {tolerance:.4f} (6 SE), measured {inside:.4f}")

# %% [markdown]
# ### Where the recursion comes from, step 2: the NTK, layer by layer
#
# The NTK sums over all parameters, $\Theta(x,x') = \sum_p \partial_p f(x)\,\partial_p f(x')$, so it splits into one
# term per layer, $\Theta = \sum_{l=1}^{L+1}\Theta_l$. Write $h^{(0)} = x$ (width $m_0 = d$), $h^{(l)} = \phi(z^{(l)})$,
# $z^{(l)} = \frac{\sigma_w}{\sqrt{m_{l-1}}}W^{(l)}h^{(l-1)} + \sigma_b b^{(l)}$, and let
# $\delta^{(l)}(x) = \partial f(x)/\partial z^{(l)}(x)$ be the signal that backpropagation brings to layer $l$.
# Since $\partial f/\partial W^{(l)}_{ij} = \delta^{(l)}_i\,\sigma_w h^{(l-1)}_j/\sqrt{m_{l-1}}$ and
# $\partial f/\partial b^{(l)}_i = \sigma_b\,\delta^{(l)}_i$,
#
# $$\Theta_l(x,x') = \underbrace{\bigl\langle\delta^{(l)}(x),\delta^{(l)}(x')\bigr\rangle}_{\text{backward}}\;
#   \underbrace{\Bigl(\sigma_w^2\,\tfrac{h^{(l-1)}(x)\cdot h^{(l-1)}(x')}{m_{l-1}} + \sigma_b^2\Bigr)}_{\text{forward}\;\to\;\Sigma^{(l)}} .$$
#
# The forward factor is the covariance of step 1, so it tends to $\Sigma^{(l)}$. At the readout
# $\delta^{(L+1)} = 1$: **the last layer contributes $\Sigma^{(L+1)}$**. One layer down, the chain rule gives
# $\delta^{(l)} = \phi'(z^{(l)})\odot\frac{\sigma_w}{\sqrt m}W^{(l+1)\top}\delta^{(l+1)}$, hence
#
# $$\bigl\langle\delta^{(l)}(x),\delta^{(l)}(x')\bigr\rangle = \sigma_w^2\;\frac1m\sum_{j=1}^m
#   \phi'\bigl(z^{(l)}_j(x)\bigr)\phi'\bigl(z^{(l)}_j(x')\bigr)\,
#   \bigl[W^{(l+1)\top}\delta^{(l+1)}(x)\bigr]_j\bigl[W^{(l+1)\top}\delta^{(l+1)}(x')\bigr]_j .$$
#
# - The factor $\sigma_w/\sqrt m$ of the forward pass appears twice: $\sigma_w^2$ stays, and $1/m$ turns the sum over
#   the units into an average.
# - The weights have unit variance, so averaged over $j$ the two bracketed factors give
#   $\langle\delta^{(l+1)}(x),\delta^{(l+1)}(x')\rangle$. (Treating $W$ in the backward pass as independent of the
#   forward pass is exact in the limit; Yang 2020, *Tensor Programs II*.) The law of large numbers turns the average
#   of $\phi'\phi'$ into $\mathbb E[\phi'(u)\phi'(v)]$.
#
# So every layer above multiplies the backward inner product by $\dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]$,
# and
#
# $$\Theta = \sum_{l=1}^{L+1}\Sigma^{(l)}\prod_{k=l+1}^{L+1}\dot\Sigma^{(k)},$$
#
# which is the recursion $\Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\Theta^{(l)}$ written out. Compare the
# pieces with the same network, first the split into layers (autograd, one output at a time):

# %%
outputs = preactivations[2][:, 0]                                              # f(x), f(x′)
parameters = list(wide.parameters())
gradients = [torch.autograd.grad(outputs[n], parameters + preactivations[:2], retain_graph=True)
             for n in (0, 1)]                       # ∂f/∂θ for every parameter, then δ^(1), δ^(2)
layer_of = [int(name.split(".")[0]) // 2 for name, _ in wide.named_parameters()]   # modules 0, 2, 4 → 0, 1, 2
per_layer = torch.zeros(3, dtype=torch.float64)
for layer, gradient_x, gradient_x2 in zip(layer_of, gradients[0], gradients[1]):
    per_layer[layer] += (gradient_x * gradient_x2).sum()
empirical = float(nh.empirical_ntk(wide, pair)[0, 1])
print(f"Θ(x,x′): sum of the three layers {float(per_layer.sum()):.4f}, nh.empirical_ntk {empirical:.4f}")
assert abs(float(per_layer.sum()) - empirical) <= 1e-10 * abs(empirical), (
    f"sum over layers: expected {empirical:.6f} (nh.empirical_ntk), measured {float(per_layer.sum()):.6f}")

# %% [markdown]
# The last layer's term is the empirical covariance of the readout's inputs, $\sigma_w^2\,h\cdot h'/m + \sigma_b^2$,
# and tends to $\Sigma^{(3)}$:

# %%
h2 = torch.relu(preactivations[1].detach())                                    # h^(2): (2, 4096)
forward, se = unit_average(sigma_w ** 2 * h2[0] * h2[1])
expected = float(predicted_sigma[2][0, 1])
print(f"last layer: gradient inner product {float(per_layer[2]):.4f}, "
      f"σ_w² h·h′/m + σ_b² {forward + sigma_b ** 2:.4f}, Σ⁽³⁾(x,x′) {expected:.4f} ± {6 * se:.4f} (6 SE)")
assert abs(float(per_layer[2]) - (forward + sigma_b ** 2)) <= 1e-10 * abs(forward), (
    f"readout term: expected {forward + sigma_b ** 2:.6f}, measured {float(per_layer[2]):.6f}")
assert abs(float(per_layer[2]) - expected) < 6 * se, (
    f"readout term vs Σ^(3): expected {expected:.4f} ± {6 * se:.4f}, measured {float(per_layer[2]):.4f}")

# %% [markdown]
# The backward factor of each layer: $\sigma_w^2$ times the average of $\phi'(z_j(x))\,\phi'(z_j(x'))$ over the units
# (for ReLU $\phi'$ is the step $z > 0$) against $\dot\Sigma$, next to the ratio of backpropagated inner products
# $\langle\delta^{(l)},\delta^{(l)\prime}\rangle / \langle\delta^{(l+1)},\delta^{(l+1)\prime}\rangle$ that it stands for.
# The unit averages are tested against $\dot\Sigma$ (6 standard errors); the ratios are shown, not tested: each
# one fluctuates by several percent at this width.

# %%
def backward_inner(layer):
    """⟨δ^(l)(x), δ^(l)(x′)⟩ from autograd; δ^(3) = ∂f/∂f = 1."""
    if layer == 3:
        return 1.0
    return float(gradients[0][len(parameters) + layer - 1][0] @ gradients[1][len(parameters) + layer - 1][1])


print(f"{'layer':<7}{'Σ̇ predicted':>13}{'σ_w² mean φ′φ′':>16}{'6 SE':>8}{'ratio of ⟨δ,δ′⟩':>17}")
for layer in (1, 2):
    step = (preactivations[layer - 1].detach() > 0).double()                  # φ'(z) for ReLU
    measured, se = unit_average(sigma_w ** 2 * step[0] * step[1])
    expected = float(predicted_sigma_dot[layer - 1][0, 1])                      # Σ̇^(l+1)(x, x′)
    ratio = backward_inner(layer) / backward_inner(layer + 1)
    print(f"{layer:<7}{expected:>13.4f}{measured:>16.4f}{6 * se:>8.4f}{ratio:>17.4f}")
    assert abs(measured - expected) < 6 * se, (
        f"Σ̇^({layer + 1})(x,x′): expected {expected:.4f} ± {6 * se:.4f} (6 SE), measured {measured:.4f}")

# %% [markdown]
# Finally each layer's term against $\Sigma^{(l)}\prod_{k>l}\dot\Sigma^{(k)}$, and their sum against the analytic NTK.
# One finite network's NTK fluctuates around the limit with a relative standard deviation of about
# $\sqrt{5L/m}$ (Hanin & Nica 2020, for the diagonal of bias-free ReLU networks), here 4.9%; over 12 seeds we
# measured 5.4% for this entry. The per-layer terms are shown, not tested: each fluctuates by several percent at
# this width (up to about 8% here). Only the total is checked, against 4 times $\sqrt{5L/m}$.

# %%
cross = lambda matrices: [float(m[0, 1]) for m in matrices]                     # the (x, x′) entries
predicted_terms = [sigma * math.prod(cross(predicted_sigma_dot)[l:])            # Σ^(l) ∏_{k>l} Σ̇^(k)
                   for l, sigma in enumerate(cross(predicted_sigma))]
analytic = float(nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).kernel(pair).ntk[0, 1])
for layer in range(3):
    print(f"layer {layer + 1}: gradient inner product {float(per_layer[layer]):.4f}, "
          f"Σ⁽ˡ⁾ ∏ Σ̇ {predicted_terms[layer]:.4f}")
relative_error = float(per_layer.sum()) / analytic - 1
tolerance = 4 * math.sqrt(5 * 2 / width)
print(f"total: width {width} {float(per_layer.sum()):.4f}, analytic NTK {analytic:.4f} "
      f"(relative error {relative_error:+.3f}, tolerance ±{tolerance:.3f})")
assert abs(sum(predicted_terms) - analytic) <= 1e-12 * analytic, (
    f"unrolled sum: expected {analytic:.6f} (recursion), measured {sum(predicted_terms):.6f}")
assert abs(relative_error) < tolerance, (
    f"finite-width NTK: expected relative error within ±{tolerance:.3f}, measured {relative_error:+.3f}")

# %% [markdown]
# ### Step by step
#
# The package's layers *are* this recursion: `dense(...).transform(k)` is the first formula, and an activation's
# `transform` is the expectation step. Follow two inputs of different lengths through a depth-3 ReLU network.
# (After an activation the Θ column holds $\mathbb E[\phi'\phi']\,\Theta$, the part that the next dense layer
# multiplies by $\sigma_w^2$.)

# %%
depth = 3
readout = nh.dense(1, sigma_w=sigma_w, sigma_b=sigma_b)           # hidden, activation and pair as above

k = nh.Kernel.from_inputs(pair)
print(f"{'step':<10}{'Σ(x,x)':>9}{'Σ(x′,x′)':>10}{'Σ(x,x′)':>10}{'Θ(x,x′)':>10}")
for step, layer in enumerate([hidden, activation] * depth + [readout]):
    k = layer.transform(k)
    name = "dense" if layer in (hidden, readout) else "relu"
    print(f"{step + 1:>2} {name:<7}{k.var1[0]:9.4f}{k.var2[1]:10.4f}{k.nngp[0, 1]:10.4f}{k.ntk[0, 1]:10.4f}")

# %%
same = nh.mlp(depth, "relu", sigma_w=sigma_w, sigma_b=sigma_b).kernel(pair)
gap = max(float((same.ntk - k.ntk).abs().max() / k.ntk.abs().max()),
          float((same.nngp - k.nngp).abs().max() / k.nngp.abs().max()))
assert gap <= 1e-12, f"nh.mlp(...).kernel vs the loop: expected the same kernels, relative gap {gap:.1e}"

# %% [markdown]
# ### Why the triple matters
#
# The expectation step needs both variances. A tempting shortcut uses $\Sigma(x,x)$ for both inputs.
# Compare with the truth, measured as in step 1 of the derivation: one random layer with $2^{20}$ units, where
# $\sigma_w^2$ times the average of $\phi(z_j(x))\,\phi(z_j(x'))$ over the units, plus $\sigma_b^2$, is the covariance
# $\Sigma^{(2)}(x,x')$ that the next layer sees.

# %%
correct = float(nh.serial(hidden, activation, readout).kernel(pair).nngp[0, 1])       # Σ^(2)(x, x′)

k1 = hidden.transform(nh.Kernel.from_inputs(pair))
shortcut_e, _ = activation.dual(k1.var1[0], k1.var1[0], k1.nngp[0, 1])      # wrong: var(x) twice
shortcut = sigma_w ** 2 * float(shortcut_e) + sigma_b ** 2

units = nh.serial(hidden, activation).network(3, width=2 ** 20, seed=0)(pair).detach()  # φ(z^(1)): (2, 2^20)
monte_carlo, se = unit_average(sigma_w ** 2 * units[0] * units[1] + sigma_b ** 2)
print(f"Σ(x,x′): correct {correct:.4f}, shortcut {shortcut:.4f}, wide layer {monte_carlo:.4f} "
      f"± {6 * se:.4f} (6 SE)")
assert abs(monte_carlo - correct) < 6 * se, (
    f"wide layer vs the triple: expected {correct:.4f} ± {6 * se:.4f}, measured {monte_carlo:.4f}")
assert abs(shortcut - correct) > 6 * se, (
    f"the shortcut should miss by more than 6 SE = {6 * se:.4f}; it misses by {abs(shortcut - correct):.4f}")

# %% [markdown]
# ### The finite network agrees
#
# Averaged over 8 seeds, the NTK of width-1024 networks matches the recursion:

# %%
x = nh.sphere(12, d=5, seed=0)
arch = nh.mlp(3, "relu", sigma_w=sigma_w, sigma_b=sigma_b)
sweep = nh.width_sweep(arch, x, widths=[1024], seeds=8)
analytic = arch.kernel(x).ntk
error = float((sweep.mean_ntk[0] - analytic).norm() / analytic.norm())
print(f"relative error: one network {sweep.errors.mean():.3f}, mean of 8 networks {error:.3f}")
assert error < 0.05, f"mean NTK of 8 networks: expected relative error < 0.05, measured {error:.3f}"

# %% [markdown]
# ## 4.1.2 Kernel collapse: what really happens with depth
#
# > **The text says:** deep kernels degenerate because units die (ReLU) or saturate (tanh), so
# > $\dot K \to 0$ and the NTK becomes "nearly constant or low rank".  
# > **What is true:** for ReLU at the standard initialization $\sigma_w^2 = 2, \sigma_b = 0$ nothing dies on
# > average: $\dot\Sigma(x,x) = 1$ exactly and the variance $q$ is preserved at every layer. What changes is the
# > **angle** between inputs: the correlation map has a marginally stable fixed point at $c=1$, so correlations
# > creep towards 1 like $1 - c_l \approx 9\pi^2/(2l^2)$. The NNGP kernel then tends to a constant (rank one), but
# > the NTK tends to $(L+1)\,q\,\bigl[\tfrac34 I + \tfrac14 \mathbf 1\mathbf 1^\top\bigr]$, which is **full rank**
# > ([errata A3](../ERRATA.md#a3), [A4](../ERRATA.md#a4)).
#
# First, the backward factor $\dot\Sigma(x,x)$ at every depth:

# %%
q = torch.tensor([1.0, 2.0, 5.0], dtype=torch.float64)
relu_dual = nh.relu()
sigma_dot_diag = 2.0 * relu_dual.diagonal(q)[1]           # σ_w² E[φ'(u)²] with σ_w² = 2
variance_next = 2.0 * relu_dual.diagonal(q)[0]            # σ_w² E[φ(u)²]
print("Σ̇(x,x) =", sigma_dot_diag.numpy(), "  q → q:", variance_next.numpy())
deviation = max(float((sigma_dot_diag - 1).abs().max()), float(((variance_next - q) / q).abs().max()))
assert deviation <= 1e-12, (
    f"ReLU at σ_w² = 2: expected Σ̇(x,x) = 1 and q → q, measured a relative deviation of {deviation:.1e}")

# %% [markdown]
# ### The correlation map
#
# With the variance fixed, one layer maps the correlation $c$ of two inputs to
# $c' = \bigl(\sqrt{1-c^2} + (\pi - \arccos c)\,c\bigr)/\pi$. Its only fixed point is $c^* = 1$, with slope exactly 1 there.

# %%
c = torch.linspace(-1, 1, 201, dtype=torch.float64)
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.plot(c, nh.correlation_map(c, "relu"), label="ReLU, σ_w² = 2")
ax.plot(c, c, "k--", lw=1, label="c′ = c")
ax.set_xticks([-1, -0.5, 0, 0.5, 1])
ax.set_yticks([-1, -0.5, 0, 0.5, 1])
ax.set_xlabel("correlation c at layer l")
ax.set_ylabel("correlation c′ at layer l + 1")
ax.legend()
plt.show()

# %%
h = 1e-6
slope_at_one = float((1 - nh.correlation_map(torch.tensor(1 - h, dtype=torch.float64), "relu")) / h)
print(f"slope of the map at c = 1: {slope_at_one:.5f}")
assert abs(slope_at_one - 1) < 1e-3, (           # the finite difference itself is off by about 0.3 √h = 3e-4
    f"slope at c = 1: expected 1 ± 1e-3 (finite difference, h = 1e-6), measured {slope_at_one:.5f}")

# %% [markdown]
# A slope of 1 means a *slow*, polynomial approach: $1 - c_l \approx 9\pi^2/(2 l^2)$.

# %%
layers = torch.arange(0, 1001)
trajectory = nh.correlation_trajectory(torch.tensor([0.0], dtype=torch.float64), 1000, "relu")[:, 0]
fig, ax = plt.subplots()
ax.loglog(layers[1:], 1 - trajectory[1:], label="1 − c_l (orthogonal inputs)")
ax.loglog(layers[10:], 9 * math.pi ** 2 / (2 * layers[10:] ** 2), "k--", lw=1, label="9π²/(2l²)")
ax.set_xlabel("layer l")
ax.set_ylabel("1 − c_l")
ax.legend()
plt.show()

# %%
ratio = float((1 - trajectory[1000]) * 1000 ** 2 / (9 * math.pi ** 2 / 2))
print(f"(1 − c_l) / (9π²/2l²) at l = 1000: {ratio:.3f}")
assert 0.9 < ratio < 1.0, f"(1 − c_l) l²/(9π²/2) at l = 1000: expected in (0.9, 1), measured {ratio:.3f}"

# %% [markdown]
# ### NNGP → constant, NTK → ¾ I + ¼ 11ᵀ
#
# The normalized NTK entry $\Theta(x,x')/\Theta(x,x)$ of two orthogonal inputs tends to $\int_0^1 u^3\,du = 1/4$:
# layer $l$ contributes $\Sigma^{(l)}\prod_{k>l}\dot\Sigma^{(k)}$, and near-parallel inputs have
# $\dot\Sigma^{(k)}\approx 1 - 3/k$ off the diagonal but exactly 1 on it.

# %%
orthogonal = nh.pair_at_angle(math.pi / 2, d=2)
deep = nh.mlp_kernels_by_depth(orthogonal, depth=1000, activation="relu")
ntk_corr = deep.ntk[:, 0, 1] / deep.ntk[:, 0, 0]
nngp_corr = deep.nngp[:, 0, 1] / deep.nngp[:, 0, 0]
fig, ax = plt.subplots()
ax.semilogx(deep.depths, nngp_corr, label="NNGP  Σ(x,x′)/Σ(x,x)")
ax.semilogx(deep.depths, ntk_corr, label="NTK  Θ(x,x′)/Θ(x,x)")
ax.axhline(0.25, color="k", ls="--", lw=1, label="1/4")
ax.set_xlabel("depth L")
ax.set_ylabel("normalized kernel, orthogonal inputs")
ax.legend()
plt.show()

# %%
print(f"depth 1000: NNGP {nngp_corr[-1]:.4f}, NTK {ntk_corr[-1]:.4f}; "
      f"Θ(x,x) = {deep.ntk[-1, 0, 0]:.0f} = (L+1)·q")
assert nngp_corr[-1] > 0.999, f"normalized NNGP at depth 1000: expected > 0.999, measured {nngp_corr[-1]:.4f}"
assert abs(ntk_corr[-1] - 0.2533) < 2e-3, (        # 0.2533 at L = 1000, tending to 1/4 like 1/L
    f"normalized NTK at depth 1000: expected 0.2533 ± 0.002, measured {ntk_corr[-1]:.4f}")
theta_diagonal = float(deep.ntk[-1, 0, 0])
assert abs(theta_diagonal / (1001 * 2.0) - 1) <= 1e-12, (
    f"Θ(x,x) at depth 1000: expected (L+1) q = 2002 exactly, measured {theta_diagonal:.6f}")

# %% [markdown]
# "Constant plus white noise" is full rank. On 50 random points its effective rank approaches
# $16n/(n+15)$, while the NNGP's falls to 1:

# %%
points = nh.sphere(50, d=10, seed=2)
deep50 = nh.mlp_kernels_by_depth(points, depth=500, activation="relu")
r_ntk = nh.effective_rank(nh.normalize(deep50.ntk[-1]))
r_nngp = nh.effective_rank(deep50.nngp[-1])
limit = 16 * 50 / 65
smallest = float(nh.eigenvalues(nh.normalize(deep50.ntk[-1]))[-1])
print(f"depth 500, n = 50: r_eff(NTK) = {r_ntk:.2f} (limit 16n/(n+15) = {limit:.2f}), "
      f"r_eff(NNGP) = {r_nngp:.4f}")
print(f"smallest eigenvalue of the normalized NTK: {smallest:.3f} (limit 3/4)")
assert abs(r_ntk / limit - 1) < 0.1, f"r_eff(NTK): expected {limit:.2f} ± 10%, measured {r_ntk:.2f}"
assert r_nngp < 1.01, f"r_eff(NNGP) at depth 500: expected < 1.01 (→ 1), measured {r_nngp:.4f}"

# %% [markdown]
# ### What collapse costs: generalization
#
# > **The text says:** a very deep network's function space is the same as, or simpler than, a shallow one's.  
# > **What is true:** the deep NTK can still fit every training point (it is full rank), but off the training
# > set its predictions flatten towards a constant. Test error grows with depth ([errata A5](../ERRATA.md#a5)).
#
# We use kernel regression with the NTK, $\hat f(x) = \Theta(x,X)\,\Theta(X,X)^{-1}y$. This is the **mean** prediction of
# infinitely wide networks trained to convergence (gradient descent on the squared loss), averaged over their random
# initializations: the infinite ensemble. A *single* such network predicts
# $f_0(x) + \Theta(x,X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$, where $f_0$ is its random function at initialization
# (Lee et al. 2019). The two agree when $f_0 = 0$: when the initial output is subtracted, or with an antisymmetric
# initialization (two copies of the network with opposite output weights, whose outputs cancel at the start).
# Lesson [07](07_training_dynamics.ipynb) (section 4) compares trained networks with this ensemble. The target is
# smooth, on the sphere $S^9$; 100 training and 200 test points:

# %%
data = nh.sphere(300, d=10, seed=1)
direction_a, direction_b = nh.sphere(2, d=10, seed=7) / math.sqrt(10)
target = lambda X: torch.cos(2 * X @ direction_a / math.sqrt(10)) + X @ direction_b / math.sqrt(10)
y = target(data)
train, test = slice(0, 100), slice(100, 300)
depths = [1, 2, 5, 20, 50]
by_depth = nh.mlp_kernels_by_depth(data, depth=max(depths), activation="relu")
test_mse = []
for L in depths:
    K = by_depth.ntk[L - 1]
    prediction = nh.kernel_regression(K[train, train], K[test, train], y[train])
    test_mse.append(float(((prediction - y[test]) ** 2).mean()))
print("depth:   ", depths)
print("test MSE:", np.round(test_mse, 4), f"  (variance of y: {float(y[test].var()):.3f})")

# %%
fig, ax = plt.subplots()
ax.semilogy(depths, test_mse, "o-", label="NTK regression")
ax.axhline(float(y[test].var()), color="k", ls="--", lw=1, label="predict the mean")
ax.set_xlabel("depth L")
ax.set_ylabel("test MSE")
ax.legend()
plt.show()

# %%
assert all(a < b for a, b in zip(test_mse, test_mse[1:])), f"expected MSE growing with depth, got {test_mse}"
assert test_mse[-1] > 10 * test_mse[0], (
    f"test MSE at depth 50 vs depth 1: expected a ratio > 10, measured {test_mse[-1] / test_mse[0]:.1f}")

# %% [markdown]
# ### A rule of thumb about ResNets
#
# > **The text says:** deep ReLU MLPs easily suffer kernel collapse in the infinite-width limit, and this was one
# > of the theoretical motivations for residual networks, whose skip connections counter it.  
# > **What is true:** residual networks were introduced against the *degradation problem*: past some depth, plain
# > networks reached a *higher training error* than shallower ones. That is an optimization difficulty, and identity
# > shortcuts removed it (He et al. 2016); infinite-width kernels played no part. Reading depth through the
# > degeneracy of the NTK came later (Huang et al. 2020; Hayou et al. 2021): with suitably scaled residual branches
# > the kernel does not degenerate with depth. With unscaled branches ($\alpha = 1$) it still does: the normalized
# > kernel degenerates with depth like the MLP's, and its size grows exponentially
# > ([errata A15](../ERRATA.md#a15)); the branches must be scaled like $1/\sqrt L$. Lesson
# > [04 · Residual networks](04_resnet.ipynb) measures this ([errata A6](../ERRATA.md#a6)).

# %% [markdown]
# ### Explore: depth, activation, scale
#
# The curves show the normalized NTK $\Theta(x,x')/\Theta(x,x)$ (solid) and NNGP $\Sigma(x,x')/\Sigma(x,x)$ (dashed) between
# a fixed input $x$ and inputs $x'$ at angle $\theta$ on the same circle, at the chosen depth, next to depth 1 (faint; at depth 1 only one pair of curves).
# Above the plot, a line names the regime for the current settings from $q^*$ and $\chi_1$ (see "Order and chaos"
# below), and the readout gives both kernels at 60°, where the inputs' correlation is 0.5. Things to try:
#
# - **ReLU, $\sigma_b = 0$**: every $\sigma_w$ gives the same picture. The $\sigma_w$ slider has the exact value
#   $\sqrt 2$ (the default, $\sigma_w^2 = 2$: the variance is preserved, "edge of chaos") between 1.40 and 1.45;
#   other values shrink or grow the variance, but the normalized curves stay the same. ReLU is positively homogeneous, so the scale
#   $q$ drops out of the normalized kernel: this is the slow, polynomial collapse of the correlation map above.
#   With a bias and $\sigma_w^2 < 2$ ReLU is ordered; with $\sigma_w^2 > 2$ the variance grows without bound and the
#   bias stops mattering.
# - **tanh or erf with a bias**, e.g. $\sigma_b = 0.5$: small $\sigma_w$ is **ordered**: as depth → ∞ every
#   correlation goes to 1, on the depth scale $-1/\ln\chi_1$ printed above the plot (2 layers at $\sigma_w = 1$, but
#   about 30 at $\sigma_w = 1.5$, near the edge). The NTK gets there more slowly than the NNGP, so at the depths
#   shown it can still look like a constant plus a diagonal. Large $\sigma_w$ is **chaotic** (the NNGP settles at
#   $c^* < 1$, the NTK goes to 0 away from $\theta = 0$). Near $\chi_1 = 1$ the line says **edge of chaos**:
#   correlations then move only slowly, towards 1 or towards $c^*$ depending on the side.
# - **tanh or erf without bias** and small $\sigma_w$ ($\sigma_w^2\phi'(0)^2 \le 1$, with $\phi'(0) = 1$ for tanh and
#   $2/\sqrt\pi$ for erf): the **degenerate** case $q^* = 0$. The variance dies out, the pre-activations shrink into
#   the range where $\phi$ is linear, and the curves hardly change with depth. That is not order: there is no
#   ordered phase without a bias. Above that $\sigma_w$ the bias-free network is chaotic, with $c^* = 0$ (just above
#   it the line says edge of chaos: $\chi_1$ barely exceeds 1, and correlations drift slowly to 0). Odd activations without
#   bias also give odd kernels: the values at $\theta$ and $180° - \theta$ differ only in sign.
#
# The angles stop at 175°: exactly opposite inputs keep correlation $-1$ forever in an odd network without bias,
# and in the chaotic phase the kernel formulas would amplify their rounding errors by $\chi_1$ per layer.

# %%
ring_degrees = torch.arange(0, 180, 5, dtype=torch.float64)                       # 0°, 5°, ..., 175°
ring = torch.stack([torch.deg2rad(ring_degrees).cos(), torch.deg2rad(ring_degrees).sin()], 1) * math.sqrt(2)
AT_60 = 12                                                                        # ring_degrees[12] = 60°


@functools.lru_cache(maxsize=32)
def normalized_by_angle(activation, sigma_w, sigma_b, max_depth=100):
    """Normalized NNGP and NTK from ring[0] to every ring point, depths 1..max_depth: (max_depth, 36) each.

    |x|² = d = 2, so x·x/d = 1. Each kernel is divided by its value for the input with itself, computed
    from the variance map alone (self_kernels_by_depth): exact even in the chaotic phase, where a cross
    kernel of two identical inputs would drift.
    """
    kwargs = dict(depth=max_depth, activation=activation, sigma_w=sigma_w, sigma_b=sigma_b)
    cross = nh.mlp_kernels_by_depth(ring[:1], ring[1:], **kwargs)
    nngp_self, ntk_self = self_kernels_by_depth(1.0, **kwargs)
    ones = torch.ones(max_depth, 1, dtype=torch.float64)                         # angle 0: the input itself
    nngp = torch.cat([ones, cross.nngp[:, 0] / nngp_self[:, None]], 1)
    ntk = torch.cat([ones, cross.ntk[:, 0] / ntk_self[:, None]], 1)
    return nngp, ntk, nngp_self


@functools.lru_cache(maxsize=64)
def regime_of(activation, sigma_w, sigma_b):
    first_variance = sigma_w ** 2 + sigma_b ** 2                                  # Σ^(1)(x,x), |x|² = d
    return signal_regime(activation, sigma_w=sigma_w, sigma_b=sigma_b, q0=first_variance)


# %% [markdown]
# One sentence per regime, true for the current settings (they use the numbers of `signal_regime`):

# %%
def describe(activation, sigma_w, sigma_b, depth, q_at_depth):
    regime = regime_of(activation, sigma_w, sigma_b)
    chi, q = regime.chi1, regime.q_star
    if regime.name == "ordered":
        return (f"ordered: χ₁ = {chi:.3f} < 1 at q* = {q:.3g}. As depth → ∞ every correlation goes to 1 "
                f"(1 − c shrinks by about χ₁ per layer: depth scale −1/ln χ₁ = {regime.depth_scale:.1f} "
                f"layers), and the NTK tends to the constant q*/(1 − χ₁) = {q / (1 - chi):.3g} on every "
                f"entry (rank one). The NTK gets there more slowly than the NNGP, so at the depths shown it "
                f"can still look like a constant plus a diagonal.")
    if regime.name == "edge of chaos" and activation == "relu":
        return (f"edge of chaos: σ_w² = 2 without bias preserves every variance (q = {q:.3g}) and χ₁ = 1. "
                f"The correlation map is marginal at c = 1, so correlations creep to 1 polynomially, "
                f"1 − c ≈ 9π²/(2l²) (the marginal map above).")
    if regime.name == "edge of chaos":
        scale = f"depth scale 1/|ln χ₁| = {1 / abs(math.log(chi)):.0f} layers near c = 1"
        target = "towards 1, as χ₁ < 1" if chi < 1 else f"towards c* = {regime.c_star:.3f}, as χ₁ > 1"
        return (f"edge of chaos: χ₁ = {chi:.4f} ≈ 1 at q* = {q:.3g}. The correlation map is nearly marginal "
                f"at c = 1, so correlations move only slowly ({scale}): {target}.")
    if regime.name == "chaotic":
        return (f"chaotic: χ₁ = {chi:.3f} > 1 at q* = {q:.3g}. Nearby inputs are pushed apart: correlations "
                f"settle at c* = {regime.c_star:.3f}, from above or below (depth scale "
                f"{regime.depth_scale:.1f} layers), and the "
                f"normalized NTK tends to 0 off the diagonal (the identity).")
    homogeneous = activation == "relu"
    if regime.name == "vanishing variance" and homogeneous:
        return (f"q* = 0: the variance shrinks by σ_w²/2 = {chi:.3f} per layer (q = {q_at_depth:.2g} at "
                f"depth {depth}). ReLU is positively homogeneous, so without bias the scale drops out of the "
                f"normalized kernel: it is the same for every σ_w, and correlations creep to 1 polynomially "
                f"(the marginal map).")
    if regime.name == "vanishing variance":
        return (f"degenerate, q* = 0: without bias σ_w² φ′(0)² = {chi:.3f} ≤ 1, and the variance dies out "
                f"(q = {q_at_depth:.2g} at depth {depth}). The pre-activations shrink into the range where "
                f"φ is linear, the correlation map tends to the identity, and correlations barely change "
                f"with depth: neither order nor chaos. A bias (σ_b > 0) gives the ordered phase.")
    if homogeneous:
        bias = ", so the bias soon stops mattering" if sigma_b > 0 else ""
        return (f"growing variance: q grows by σ_w²/2 = {chi:.3f} per layer{bias}. ReLU is positively "
                f"homogeneous, so correlations creep to 1 polynomially (the marginal map).")
    return f"{regime.name}: q* = {q:.3g}, χ₁ = {chi:.3f}"


# %%
def sigma_label(sigma_w):
    """The slider's label: the exact √2 is written as such, every other value with two decimals."""
    return "√2" if sigma_w == math.sqrt(2) else f"{sigma_w:.2f}"


def draw_collapse(depth, activation, sigma_w, sigma_b):
    try:
        nngp, ntk, q_by_depth = normalized_by_angle(activation, sigma_w, sigma_b)
        name = regime_of(activation, sigma_w, sigma_b).name
    except (OverflowError, ValueError) as error:
        print(f"no kernel for these settings: {error}")
        return
    fig, ax = plt.subplots()
    curves = [(ntk[depth - 1], 0, "-", 1.0, f"NTK, depth {depth}"),
              (nngp[depth - 1], 1, "--", 1.0, f"NNGP, depth {depth}")]
    if depth > 1:                                                         # depth 1, drawn faint for reference
        curves = [(ntk[0], 0, "-", 0.3, "NTK, depth 1"), (nngp[0], 1, "--", 0.3, "NNGP, depth 1")] + curves
    for values, colour, style, alpha, label in curves:
        ax.plot(ring_degrees, values, color=nh.plotting.PALETTE[colour], ls=style, alpha=alpha, label=label)
    low = min(float(values.min()) for values, *_ in curves)
    high = max(float(values.max()) for values, *_ in curves)
    margin = 0.05 * max(high - low, 0.1)
    ax.set_ylim(low - margin, high + margin)                                     # follows the data
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("angle θ between the inputs (degrees)")
    ax.set_ylabel("normalized kernel  K(x,x′)/K(x,x)")
    ax.set_title(f"{activation}: {'q* = 0, ' if name == 'vanishing variance' else ''}{name}")
    ax.legend(fontsize=9)
    text = describe(activation, sigma_w, sigma_b, depth, float(q_by_depth[depth - 1]))
    settings = f"depth {depth}, {activation}, σ_w = {sigma_label(sigma_w)}, σ_b = {sigma_b:.2f}"
    print(textwrap.fill(f"{settings}: {text}", 110))
    if depth == 1:
        print(f"at 60° (input correlation 0.5), depth 1: NTK {float(ntk[0, AT_60]):.3f}, "
              f"NNGP {float(nngp[0, AT_60]):.3f}")
        return
    print(f"at 60° (input correlation 0.5): NTK {float(ntk[0, AT_60]):.3f} at depth 1, "
          f"{float(ntk[depth - 1, AT_60]):.3f} at depth {depth}; "
          f"NNGP {float(nngp[0, AT_60]):.3f} at depth 1, "
          f"{float(nngp[depth - 1, AT_60]):.3f} at depth {depth}")


# %%
sigma_w_values = sorted([round(0.5 + 0.05 * k, 2) for k in range(41)] + [math.sqrt(2)])   # 0.5 .. 2.5 and √2
sigma_w_slider = widgets.SelectionSlider(
    options=[(sigma_label(v), v) for v in sigma_w_values], value=math.sqrt(2), description="sigma_w",
    style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))
print(f"σ_w slider: {len(sigma_w_values)} values, default {sigma_label(sigma_w_slider.value)}, "
      f"σ_w² = {sigma_w_slider.value ** 2:.6f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_collapse,
    depth=nh.widgets.depth_slider(10, max=100),
    activation=nh.widgets.activation_dropdown("relu", options=("relu", "tanh", "erf")),
    sigma_w=sigma_w_slider,
    sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=1.0),
)

# %% [markdown]
# One tanh setting for each case of the list above, computed once so that the claims are checked (lesson
# [06](06_activations.ipynb) compares more activations):

# %%
examples = {"ordered": ("tanh", 1.0, 0.5), "chaotic": ("tanh", 2.5, 0.5), "degenerate": ("tanh", 0.5, 0.0)}
at_60 = {}
for name, settings in examples.items():
    nngp = normalized_by_angle(*settings)[0]
    at_60[name] = float(nngp[0, AT_60]), float(nngp[-1, AT_60])                   # depth 1, depth 100
    print(f"{settings[0]}, σ_w = {settings[1]}, σ_b = {settings[2]}: {regime_of(*settings).name}; "
          f"NNGP at 60°: depth 1 {at_60[name][0]:.3f}, depth 100 {at_60[name][1]:.3f}")

# %%
c_star = regime_of(*examples["chaotic"]).c_star
assert at_60["ordered"][1] > 0.999, f"ordered: expected the 60° NNGP → 1, measured {at_60['ordered'][1]:.4f}"
assert abs(at_60["chaotic"][1] - c_star) < 1e-3, (
    f"chaotic: expected the 60° NNGP → c* = {c_star:.4f} ± 1e-3, measured {at_60['chaotic'][1]:.4f}")
start, end = at_60["degenerate"]
assert abs(end - start) < 1e-3 * start, (
    f"degenerate: expected the 60° NNGP to stay at {start:.4f} (± 0.1%), measured {end:.4f} at depth 100")

# %% [markdown]
# ## Order and chaos (tanh, erf)
#
# For bounded activations the variance settles at a fixed point $q^*$ of the variance map, and one number decides
# the fate of correlations: $\chi_1 = \sigma_w^2\,\mathbb E[\phi'(\sqrt{q^*}z)^2]$, the slope of the correlation map at
# $c = 1$ (Poole et al. 2016; Schoenholz et al. 2017).
#
# - $\chi_1 < 1$, **ordered**: all inputs become perfectly correlated, exponentially fast in depth (depth scale
#   $-1/\ln\chi_1$, long near $\chi_1 = 1$); the NTK tends, more slowly than the NNGP, to a constant matrix
#   $q^*/(1-\chi_1)\,\mathbf 1\mathbf 1^\top$ (rank one: training stalls).
# - $\chi_1 > 1$, **chaotic**: correlations settle at $c^* < 1$ (from above or below); the normalized NTK tends to the identity
#   (every input looks unrelated: no generalization).
# - $\chi_1 = 1$, the **edge of chaos**: the slow, polynomial regime, like ReLU above.
# - $q^* = 0$, **degenerate**: without a bias and with $\sigma_w^2\phi'(0)^2 \le 1$ ($\sigma_w^2 \le 1$ for tanh) the
#   variance dies out. The pre-activations end up where $\phi$ is linear, so the correlation map tends to the identity:
#   correlations barely move while the output scale vanishes. This is not the ordered phase; without a bias an odd
#   activation has none, and above that $\sigma_w$ it is chaotic. On the diagram below it is the bottom edge
#   $\sigma_b^2 = 0$, $\sigma_w^2 \le 1$ (the colour there shows the limit $\chi_1 \to \sigma_w^2$).
#
# > **The overview says:** set the "Lyapunov exponent" to zero.  
# > **What is true:** the condition is $\chi_1 = 1$, computed at the variance fixed point
# > ([errata B26](../ERRATA.md#b26)).

# %%
sigma_w2_grid = torch.linspace(0.5, 4.0, 36, dtype=torch.float64)
sigma_b2_grid = torch.linspace(0.0, 0.5, 26, dtype=torch.float64)
chi = nh.chi1("tanh", sigma_w=sigma_w2_grid[None, :].sqrt(),        # the axes show the squares σ_w², σ_b²
              sigma_b=sigma_b2_grid[:, None].sqrt())                  # (26, 36)

fig, ax = plt.subplots()
image = ax.pcolormesh(sigma_w2_grid, sigma_b2_grid, torch.log(chi), cmap="RdBu_r", vmin=-1, vmax=1,
                      shading="auto")
ax.contour(sigma_w2_grid, sigma_b2_grid, chi, levels=[1.0], colors="k")
ax.plot([], [], "k-", label="edge of chaos, χ₁ = 1")
ax.plot([1.761], [0.05], "k*", ms=12, label="(1.761, 0.05), Schoenholz et al.")
ax.plot([0.5, 1.0], [0.0, 0.0], color=nh.plotting.PALETTE[2], lw=6, label="q* = 0 (degenerate)")
outline = [patheffects.withStroke(linewidth=3, foreground="black")]                # readable on dark blue
ax.text(0.7, 0.42, "ordered\nχ₁ < 1", fontsize=12, color="white", fontweight="bold", path_effects=outline)
ax.text(3.1, 0.3, "chaotic\nχ₁ > 1", fontsize=12)
ax.set_xlabel("σ_w²")
ax.set_ylabel("σ_b²")
ax.set_title("tanh: log χ₁")
ax.legend(loc="lower right", fontsize=9)
plt.colorbar(image, ax=ax, label="log χ₁")
plt.show()

# %%
edge = float(nh.chi1("tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05)))
print(f"χ₁ at (σ_w², σ_b²) = (1.761, 0.05): {edge:.4f}")
assert abs(edge - 1) < 5e-3, f"χ₁ on the published edge of chaos: expected 1 ± 5e-3, measured {edge:.4f}"

# %% [markdown]
# Correlation of two inputs (starting at $c_0 = 0.2$) through 40 tanh layers, in each phase:

# %%
phases = {"ordered (1.0, 0.05)": 1.0, "edge (1.761, 0.05)": 1.761, "chaotic (3.0, 0.05)": 3.0}  # (σ_w², σ_b²)
paths = nh.correlation_trajectory(torch.full((3,), 0.2, dtype=torch.float64), 40, "tanh",
                                  sigma_w=torch.tensor(list(phases.values()), dtype=torch.float64).sqrt(),
                                  sigma_b=math.sqrt(0.05))
fig, ax = plt.subplots()
for index, name in enumerate(phases):
    ax.plot(paths[:, index], label=name)
ax.set_xlabel("layer")
ax.set_ylabel("correlation c_l")
ax.legend()
plt.show()

# %%
print("final correlations:", paths[-1].numpy().round(4))
final = [float(v) for v in paths[-1]]
assert final[0] > 0.999, f"ordered phase after 40 layers: expected c > 0.999, measured {final[0]:.4f}"
assert final[2] < 0.5, f"chaotic phase after 40 layers: expected c < 0.5, measured {final[2]:.4f}"
assert final[0] > final[1] > final[2], f"expected ordered > edge > chaotic, measured {final}"

# %% [markdown]
# And the NTK follows: rank one in the ordered phase, the identity in the chaotic one (erf, depth 50, 20 points):

# %%
points20 = nh.sphere(20, d=10, seed=3)
ordered = nh.mlp(50, "erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
chaotic = nh.mlp(50, "erf", sigma_w=2.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
q_star = float(nh.q_fixed_point("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)))
chi_ordered = float(nh.chi1("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)))
off_diagonal = float((nh.normalize(chaotic) - torch.eye(20, dtype=torch.float64)).abs().max())
constant = q_star / (1 - chi_ordered)
r_ordered, r_chaotic = nh.effective_rank(ordered), nh.effective_rank(chaotic)
print(f"ordered: entries in [{ordered.min():.3f}, {ordered.max():.3f}], q*/(1−χ₁) = {constant:.3f}, "
      f"r_eff = {r_ordered:.3f}")
print(f"chaotic: largest normalized off-diagonal below 1e-6: {off_diagonal < 1e-6}, "
      f"r_eff = {r_chaotic:.2f} of 20")
spread = float((ordered / constant - 1).abs().max())
assert spread < 0.02, f"ordered NTK: expected every entry = {constant:.3f} ± 2%, measured ±{spread:.3f}"
assert r_ordered < 1.05, f"ordered NTK: expected r_eff < 1.05 (rank one), measured {r_ordered:.3f}"
assert r_chaotic > 19.9 and off_diagonal < 1e-6, (
    f"chaotic NTK: expected r_eff > 19.9, off-diagonal < 1e-6; measured {r_chaotic:.2f}, {off_diagonal:.1e}")

# %% [markdown]
# ## Summary
#
# - The NNGP/NTK recursion is a loop over layers carrying the triple $(\Sigma(x,x),\Sigma(x',x'),\Sigma(x,x'))$;
#   $\sigma_w^2$ and $\sigma_b^2$ enter every step. The package's layers implement exactly this, and finite
#   networks agree.
# - Where it comes from: pre-activations are Gaussian because each unit sums many independent terms and its
#   covariance is an average over the units below (law of large numbers). The NTK is a sum over layers of
#   gradient inner products: forward part $\Sigma^{(l)}$, and a backward part in which every layer above
#   contributes $\dot\Sigma = \sigma_w^2\,\mathbb E[\phi'\phi']$.
# - Deep ReLU kernels lose angle information **polynomially** because the correlation map is marginal at $c=1$,
#   not because units die. The NNGP becomes constant; the NTK becomes "constant plus white noise" (full rank),
#   which fits the training data but generalizes like a constant. (ResNets were not invented against this: they
#   answered an optimization problem; the kernel view came later.)
# - Bounded activations have an ordered phase (rank-one NTK), a chaotic phase (identity-like NTK) and the edge
#   of chaos $\chi_1 = 1$ between them. Without a bias there is no ordered phase: small $\sigma_w$ gives the
#   degenerate case $q^* = 0$, where the network acts linearly and correlations barely move.
#
# **Exercises:** 4.1 (the role of $\dot\Sigma$, the identity activation) and 4.7 (collapse and effective rank of a
# 50-layer MLP).
#
# **Next:** [03 · Convolutional networks: locality, weight sharing, pooling](03_cnn.ipynb)
