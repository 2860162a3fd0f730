# %% [markdown]
# # 05 · Normalization and parameterization: what stays fixed, what moves
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/05_normalization_parameterization.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F05_normalization_parameterization.ipynb)
#
# *Chapter 4.4.*
#
# **You will learn**
# - 4.4.1: the infinite-width kernel of **layer norm**, and why **batch norm** has none (the batch couples
#   inputs);
# - 4.4.2: the initialization names (LeCun, He, Xavier) and what the NTK parameterization changes about them;
# - **deriving μP**: how far one SGD step moves a feature, as a power of the width, under the standard, NTK and
#   μP parameterizations; the abc-parameterizations of Yang & Hu (2021) and their table of exponents;
# - why the NTK parameterization is **lazy** (features move like $m^{-1/2}$) and μP **learns features**
#   (they move by $\Theta(1)$), measured; the **dynamical dichotomy**: one or the other, never both;
# - what "lazy" really means: the *output* still moves by $O(1)$, and the kernel limit is ridgeless kernel
#   regression started from $f_0$, not kernel ridge regression.
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
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.4.1 Layer norm
#
# Layer norm rescales each input's pre-activations by their own mean and spread over the units. At infinite
# width that spread is the kernel diagonal, so right after a dense (or conv) layer
#
# $$\Sigma \mapsto \frac{\Sigma(x,x')}{\sqrt{\Sigma(x,x)\,\Sigma(x',x')}}, \qquad
#   \Theta \mapsto \frac{\Theta(x,x')}{\sqrt{\Sigma(x,x)\,\Sigma(x',x')}}$$
#
# (the Jacobian's projection terms are $O(1/\text{width})$). The kernel then depends on the inputs only through
# their directions. Experiment: scale one input by $a$ (the layer that feeds layer norm has no bias, so its
# output scales with $a$ too). The two inputs point in nearly opposite directions ($x\cdot x'/d = -0.74$), so
# $\Theta(x,x') < 0$. With a bias, part of the kernel does not scale with $a$ and is positive; for small $a$ it
# wins, and the ratio changes sign (below $a \approx 0.55$).

# %%
pair = nh.sphere(2, d=5, seed=0)
scales = np.geomspace(0.25, 4, 17)
nets = {
    "ReLU, no bias": nh.serial(nh.dense(sigma_w=1.4), nh.relu(), nh.dense(1)),
    "ReLU + bias": nh.serial(nh.dense(sigma_w=1.4, sigma_b=0.5), nh.relu(), nh.dense(1)),
    "dense → layer norm → ReLU": nh.serial(nh.dense(sigma_w=1.4), nh.layer_norm(), nh.relu(),
                                           nh.dense(1, sigma_b=0.5)),
}
ratios = {name: np.array([float(net.kernel(a * pair[:1], pair[1:]).ntk / net.kernel(pair[:1], pair[1:]).ntk)
                          for a in scales])
          for name, net in nets.items()}
fig, ax = plt.subplots()
for name, r in ratios.items():
    ax.plot(scales, r, "o-", ms=4, label=name)
ax.axhline(0, color="k", lw=0.5)
ax.set_xscale("log")                                       # a on a log axis, the ratio on a linear one:
nh.plotting.width_ticks(ax, [0.25, 0.5, 1, 2, 4])          # with a bias it changes sign
ax.set_xlabel("scale a of the first input")
ax.set_ylabel("Θ(a x, x′) / Θ(x, x′)")
ax.legend()
plt.show()

# %%
homogeneity = float(np.abs(ratios["ReLU, no bias"] / scales - 1).max())
ln_spread = float(np.ptp(ratios["dense → layer norm → ReLU"]))
bias_gap = float(np.abs(ratios["ReLU + bias"] / scales - 1).max())
assert homogeneity < 1e-10, \
    f"ReLU without bias: ratio = a to 1e-10 relative expected, measured {homogeneity:.1e}"
assert ln_spread < 1e-4, \
    f"layer norm: ratio independent of a to 1e-4 (eps = 1e-5) expected, spread {ln_spread:.1e}"
assert bias_gap > 0.1, f"ReLU + bias: ratio should differ from a by > 10%, measured {bias_gap:.3f}"
print(nh._("ReLU: linear in a; layer norm: independent of a; a bias breaks both "
           "(largest relative gap to a: {gap:.2f})").format(gap=bias_gap))

# %% [markdown]
# Finite networks with layer norm converge to this kernel:

# %%
inputs = nh.sphere(8, d=5, seed=1) * 2
arch = nh.serial(nh.dense(sigma_w=1.4, sigma_b=0.3), nh.layer_norm(), nh.relu(), nh.dense(sigma_w=1.4),
                 nh.layer_norm(), nh.tanh(), nh.dense(1))
sweep = nh.width_sweep(arch, inputs, widths=[64, 256, 1024], seeds=4)
print(nh._("relative error per width: {errors}  slope {slope:.2f}").format(
    errors=sweep.errors.mean(1).round(3), slope=sweep.slope))
assert sweep.slope < -0.35, \
    f"convergence slope: expected about -0.5 (below -0.35), measured {sweep.slope:.3f}"

# %% [markdown]
# ## Batch norm couples the batch
#
# > **The text says:** batch norm is "non-smooth when the statistics change"; layer norm "fits the NTK framework
# > better".  
# > **What is true:** batch norm is smooth. Its problem is that the statistics are taken over a **finite batch**,
# > which does not grow with the width: one input's output depends on which other inputs share its batch, and
# > there is no per-pair kernel (Yang et al. 2019). In eval mode with fixed statistics ("frozen") it is an affine
# > map, and the usual recursion applies exactly. ([errata A17](../ERRATA.md#a17))
#
# Experiment: keep $x_1$ fixed, draw the other 7 members of its batch 200 times, and record $f(x_1)$.

# %%
x1 = nh.sphere(1, d=5, seed=2)
outputs = {}
for name, norm in [("batch norm (batch statistics)", nh.batch_norm()),
                   ("frozen batch norm", nh.batch_norm(frozen=True))]:
    model = nh.serial(nh.dense(sigma_w=1.4), norm, nh.relu(), nh.dense(1)).network(5, width=512, seed=0)
    with torch.no_grad():
        outputs[name] = torch.stack([model(torch.cat([x1, nh.sphere(7, d=5, seed=100 + b)]))[0, 0]
                                     for b in range(200)])
fig, ax = plt.subplots()
everything = torch.cat(list(outputs.values()))
bins = np.linspace(float(everything.min()), float(everything.max()), 31)      # one set of bins for both
for name, values in outputs.items():
    ax.hist(values.numpy(), bins=bins, alpha=0.7, label=f"{name}: std {float(values.std()):.3f}")
ax.set_xlabel("f(x₁) for 200 different batch mates")
ax.set_ylabel("count")
ax.legend()
plt.show()

# %%
coupled_std = float(outputs["batch norm (batch statistics)"].std())
coupled_rms = float(outputs["batch norm (batch statistics)"].pow(2).mean().sqrt())
frozen_std = float(outputs["frozen batch norm"].std())
frozen_scale = float(outputs["frozen batch norm"].abs().max())
assert coupled_std > 0.1 * coupled_rms, \
    f"batch statistics: f(x₁) varies (std > 10% of RMS {coupled_rms:.3f}) expected, std {coupled_std:.3f}"
assert frozen_std <= 1e-12 * frozen_scale, \
    f"frozen: f(x₁) fixed to 1e-12 of its size {frozen_scale:.3f} expected, std {frozen_std:.1e}"
bn = nh.serial(nh.dense(sigma_w=1.4), nh.batch_norm(), nh.relu(), nh.dense(1))
try:
    bn.kernel(x1)
except NotImplementedError as error:
    print("bn.kernel(...):", str(error)[:80], "…")

# %% [markdown]
# Its kernels can still be *estimated* from an ensemble of finite networks, with error bars:

# %%
batch = nh.sphere(6, d=5, seed=3)
estimate = nh.monte_carlo_kernel(bn, batch, width=256, n_networks=16)
first_row, errors_row = nh._("Monte Carlo NTK, first row:"), nh._("standard errors:")
print(first_row, estimate.ntk[0].numpy().round(3))
print(f"{errors_row:<{len(first_row) - 1}}", estimate.ntk_sem[0].numpy().round(3))

# %% [markdown]
# ## 4.4.2 Three parameterizations of one network
#
# ### First, the initialization names
#
# > **The text says** (overview): weights drawn from $\mathcal N(0, 1/m)$ are "Xavier" initialization, Xavier
# > means variance $1/n_\text{in}$, and the NTK initialization has variance $1/(n_\text{in}\, m)$.  
# > **What is true:** the names mean different variances. **LeCun**: $1/\text{fan-in}$. **He** (Kaiming, for ReLU):
# > $2/\text{fan-in}$. **Xavier** (Glorot & Bengio 2010): $2/(\text{fan-in} + \text{fan-out})$, equal to
# > $1/\text{fan-in}$ only for square layers. The first layer's fan-in is the input dimension $d$, not $m$. The NTK
# > parameterization draws $w \sim \mathcal N(0, 1)$ and multiplies by $\sigma_w/\sqrt{\text{fan-in}}$ in the forward
# > pass, so the effective weight has variance $\sigma_w^2/\text{fan-in}$: LeCun's value for $\sigma_w = 1$, He's for
# > $\sigma_w = \sqrt 2$. The networks are the same at initialization; only the gradients differ (next sections).
# > A variance $1/(n_\text{in}\, m)$ would shrink the pre-activations by $\sqrt m$ at every layer.
# > ([errata B5](../ERRATA.md#b5), [B23](../ERRATA.md#b23), [B25](../ERRATA.md#b25))
#
# Experiment: a three-hidden-layer ReLU network, with the NTK parameterization ($\sigma_w = \sqrt 2$, i.e. He's
# variance) and with the text's variance (times ReLU's gain 2, so that only the width dependence differs).

# %%
def preactivation_rms(variance, width, depth=3, d=8):
    """RMS of each layer's pre-activations over 64 inputs, weights N(0, variance(fan_in, width))."""
    g = torch.Generator().manual_seed(0)
    h, rms = nh.sphere(64, d, seed=1), []
    for _ in range(depth):
        weights = torch.randn(width, h.shape[1], generator=g, dtype=torch.float64)
        z = h @ weights.T * math.sqrt(variance(h.shape[1], width))
        rms.append(float(z.pow(2).mean().sqrt()))
        h = torch.relu(z)
    return rms

init_widths = [64, 256, 1024]
ntk_param_rms = []
for m in init_widths:
    model = nh.mlp(3, "relu").network(8, width=m, seed=0)            # NTK parameterization, σ_w = √2
    with torch.no_grad():
        layers = nh.preactivations(model, nh.sphere(64, 8, seed=1))  # z^(1), z^(2), z^(3): (64, m) each
    ntk_param_rms.append([float(z.pow(2).mean().sqrt()) for z in layers])
text_rms = [preactivation_rms(lambda fan_in, m: 2 / (fan_in * m), m) for m in init_widths]
fig, ax = plt.subplots(figsize=(10, 4))
for layer, (marker, shift) in enumerate([("o", 0.93), ("^", 1.0), ("D", 1.07)]):
    ax.loglog([m * shift for m in init_widths], [r[layer] for r in ntk_param_rms], marker + "-", ms=7,
              color=nh.plotting.PALETTE[layer], label=f"layer {layer + 1}, NTK parameterization (= He)")
    ax.loglog(init_widths, [r[layer] for r in text_rms], "s--", color=nh.plotting.PALETTE[layer],
              label=f"layer {layer + 1}, variance 2/(fan-in·m)")
ax.text(init_widths[0], 0.5, "solid: all three layers ≈ √2 (drawn slightly apart in m)", fontsize=10)
nh.plotting.width_ticks(ax, init_widths)
ax.set_xlabel("width m")
ax.set_ylabel("RMS of the pre-activations")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
init_slopes = {layer + 1: (nh.loglog_slope(init_widths, [r[layer] for r in ntk_param_rms]),
                           nh.loglog_slope(init_widths, [r[layer] for r in text_rms])) for layer in range(3)}
for layer, (ntk_slope, text_slope) in init_slopes.items():
    print(nh._("layer {layer}: slope in m  NTK parameterization {ntk_slope:+.2f}, "
               "variance 2/(fan-in·m) {text_slope:+.2f}").format(layer=layer, ntk_slope=ntk_slope,
                                                                 text_slope=text_slope))
    assert abs(ntk_slope) < 0.05, \
        f"NTK parameterization, layer {layer}: slope 0 ± 0.05 expected, measured {ntk_slope:.3f}"
    assert abs(text_slope + layer / 2) < 0.05, \
        f"variance 2/(fan-in·m), layer {layer}: slope {-layer / 2} ± 0.05 expected, measured {text_slope:.3f}"

# %% [markdown]
# ### The package's three parameterizations
#
# The parameterization is part of the architecture description: `nh.mlp(depth, activation,
# parameterization="ntk" | "standard" | "mup")` (or `nh.dense(..., parameterization=...)` layer by layer). Every
# parameterization is written in one form (Yang et al. 2022, Tensor Programs V, Table 3): every trainable weight
# $w_l$ is $\mathcal N(0,1)$, layer $l$ computes $\sigma_w\,\text{mult}_l\cdot h\,w_l^\top$ and learns with rate
# $\eta\cdot\text{lr}_l$ (width $m$, input dimension $d$, $\sigma_w = \sqrt 2$ by default). The built network carries
# both numbers: `nh.lr_multipliers(model)` lists the $\text{lr}_l$, and `nh.train` uses them.
#
# | | input layer | hidden layers | output layer | width → ∞ |
# |---|---|---|---|---|
# | **NTK** | mult $1/\sqrt d$, lr 1 | mult $1/\sqrt m$, lr 1 | mult $1/\sqrt m$, lr 1 | fixed kernel: *lazy* |
# | **standard** (PyTorch-like) | mult $1/\sqrt d$, lr $d$ | mult $1/\sqrt m$, lr $m$ | mult $1/\sqrt m$, lr $m$ | unstable at fixed $\eta$; kernel limit for $\eta \propto 1/m$ |
# | **μP** | mult $1/\sqrt d$, lr $md$ | mult $1/\sqrt m$, lr $m$ | mult $\mathbf{1/m}$, lr $m$ | features move: *feature learning* |
#
# The effective weight $W_l = \sigma_w\,\text{mult}_l\, w_l$ has variance $\sigma_w^2\,\text{mult}_l^2$ and, by the chain
# rule, effective learning rate $\eta_l = \eta\cdot\text{lr}_l\cdot\sigma_w^2\,\text{mult}_l^2$. The constants
# ($\sigma_w$, $d$, $1/\sqrt d$) are this package's choice; only the **powers of $m$** decide what happens as
# $m \to \infty$, and they are what the next section derives.
#
# Each description also has the kernel its parameterization defines. "ntk": the NTK of lessons 01–04. "standard":
# the same forward pass, so the same NNGP; its learning-rate-weighted tangent kernel grows like $m$, and with
# $\eta \propto 1/m$ (the only scaling with a finite, nonzero limit) it tends to the NTK without the terms of the
# input layer ($d/m \to 0$) and of the biases ($1/m \to 0$): for one hidden ReLU layer half of the NTK
# parameterization's value below. "mup": no kernel limit, `kernel()` raises `nh.NoClosedForm` (its features move
# by $\Theta(1)$, next sections).

# %%
x_demo = nh.sphere(4, d=8, seed=0)                       # |x|² = d, so Σ⁽¹⁾(x, x) = σ_w² = 2
self_ntk = {}
for parameterization in nh.PARAMETERIZATIONS:
    arch = nh.mlp(1, "relu", parameterization=parameterization)
    model = arch.network(8, width=256, seed=0)
    scales = ", ".join(f"{layer.weight_scale:.4g}" for layer in (model[0], model[2]))
    factors = ", ".join(f"{v:g}" for v in nh.lr_multipliers(model).values())
    try:
        self_ntk[parameterization] = float(arch.kernel(x_demo).ntk[0, 0])
        kernel = f"Θ(x, x) = {self_ntk[parameterization]:.4f}"
    except nh.NoClosedForm:
        kernel = nh._("no kernel: nh.NoClosedForm")
    print(nh._("{parameterization:>8} at m = 256: σ_w·mult = {scales}; lr = {factors}; {kernel}").format(
        parameterization=parameterization, scales=scales, factors=factors, kernel=kernel))
assert abs(self_ntk["standard"] - self_ntk["ntk"] / 2) <= 1e-12 * self_ntk["ntk"], \
    f"one ReLU layer: standard Θ = NTK Θ / 2 expected, measured {self_ntk}"

# %% [markdown]
# > **The text says** (overview): μP means "scale each layer's output by $1/\sqrt m$", and its `MuPLinear` code
# > implements μP; in the lazy regime "the output changes by $O(t/\sqrt m)$".  
# > **What is true:** "scale by $1/\sqrt m$" *is* the NTK parameterization. μP needs the output multiplier $1/m$ and
# > per-layer learning rates, which a bare $1/\sqrt m$ initialization (all `MuPLinear` does) does not have. And in the
# > lazy regime the output moves by $O(1)$ (it fits the data): what vanishes with width is the change of the
# > **kernel** and of the **features**. ([errata B33](../ERRATA.md#b33), [B34](../ERRATA.md#b34),
# > [B11](../ERRATA.md#b11))

# %% [markdown]
# ### Deriving μP: how far does one SGD step move a feature?
#
# Write the network with its effective weights: $h^1 = W^1\xi$ for an input $\xi \in \mathbb R^d$, $x^l = \phi(h^l)$,
# $h^{l+1} = W^{l+1}x^l$ for the hidden layers $l = 1, \dots, L-1$, and $f = W^{L+1}x^L$. At initialization every
# coordinate of every $h^l$ should be of size $\Theta(1)$; that fixes $\operatorname{Var} W^1 \sim 1$ ($d$ is fixed: we
# only track powers of $m$) and $\operatorname{Var} W^l \sim 1/m$ for the hidden layers. Call $s$ the size of the
# output weights' entries ($\operatorname{Var} W^{L+1} = s^2$) and $\eta_l$ the learning rate of $W^l$.
#
# One SGD step on a loss $\ell(f)$, with $\chi = \ell'(f) = \Theta(1)$, changes $W^l$ by a rank-one matrix,
# $\Delta W^l = -\eta_l\,\chi\, g^l\,(x^{l-1})^\top$ with $g^l = \partial f/\partial h^l$ and $x^0 = \xi$, so the
# layer's pre-activations change by
#
# $$\Delta W^l\, x^{l-1} \;=\; -\,\eta_l \;\chi\; g^l \;\big((x^{l-1})^\top x^{l-1}\big)
#   \qquad\text{(learning rate)} \times \text{(gradient per unit)} \times \text{(a sum of many terms)}.$$
#
# - **Gradient per unit.** $g^L = \phi'(h^L)\odot (W^{L+1})^\top$ has entries of size $s$. Going back through a hidden
#   layer, $(W^{l+1})^\top g^{l+1}$ adds $m$ terms of size $m^{-1/2}s$ with random signs: size $s$ again. So every
#   $g^l$ has entries of size $s$.
# - **Number of summed terms.** $(x^{l-1})^\top x^{l-1}$ adds $d$ terms for the input layer and $m$ for every other
#   layer, and they do **not** cancel: the update is built from the features themselves, so for the same input the
#   terms are squares, and for another input their average is the feature kernel, an $O(1)$ number. The sum is
#   $\Theta(m)$, not the $\Theta(\sqrt m)$ of a sum with random signs.
#
# Hence, up to constants (Yang & Hu 2021),
#
# $$\Delta h^1 \sim \eta_1\, s, \qquad \Delta h^l \sim \eta_l\, s\, m \ \ (\text{hidden}), \qquad
#   \Delta f \sim \eta_{L+1}\, m \;+\; m\, s\, \Delta x^L .$$
#
# The last term is the output weights reading the features' change: $m$ aligned terms of size $s\,\Delta x^L$.
# (What earlier layers pass on, $W^l \Delta x^{l-1}$, is never larger than the terms shown, in every case below;
# Tensor Programs IV makes the whole argument rigorous.)
#
# **μP** ("maximal update") asks every layer's features *and* the output to move by $\Theta(1)$:
# - $\Delta f$'s second term with $\Delta x^L = \Theta(1)$ must stay $O(1)$: $m\,s = \Theta(1)$, so $s = 1/m$, an
#   output variance $1/m^2$ instead of $1/m$;
# - then $\Delta h^1 = \Theta(1)$ needs $\eta_1 \sim m$, a hidden $\Delta h^l = \Theta(1)$ needs $\eta_l \sim 1$, and
#   $\eta_{L+1} m = \Theta(1)$ needs $\eta_{L+1} \sim 1/m$.
#
# **NTK parameterization**: $s = m^{-1/2}$, $\eta = (1, 1/m, 1/m)$, so $\Delta h^1 \sim \Delta h^l \sim m^{-1/2}$
# and $\Delta f \sim 1$: the output learns, the features barely move. **Standard, fixed $\eta$**: $s = m^{-1/2}$,
# $\eta = (1, 1, 1)$, so $\Delta h^l \sim m^{1/2}$ and $\Delta f \sim m$: it blows up. **Standard with
# $\eta \propto 1/m$**: $\Delta h^1 \sim m^{-3/2}$, $\Delta h^l \sim m^{-1/2}$, $\Delta f \sim 1$: a kernel limit in
# which the input layer's share vanishes.
#
# **The table of width exponents** (each entry a power of $m$; $d$, $\sigma_w$ and $\eta$ are fixed):
#
# | | input $W^1$: Var, $\eta_1$ | hidden $W^l$: Var, $\eta_l$ | output $W^{L+1}$: Var, $\eta_{L+1}$ | one step: $\Delta h^1$, $\Delta h^l$, $\Delta f$ | $m \to \infty$ |
# |---|---|---|---|---|---|
# | **standard**, fixed $\eta$ | $m^0$, $m^0$ | $m^{-1}$, $m^0$ | $m^{-1}$, $m^0$ | $m^{-1/2}$, $m^{1/2}$, $m^{1}$ | unstable |
# | **standard**, $\eta \propto 1/m$ | $m^0$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-3/2}$, $m^{-1/2}$, $m^0$ | kernel limit |
# | **NTK** | $m^0$, $m^0$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1/2}$, $m^{-1/2}$, $m^0$ | kernel limit (lazy) |
# | **μP** | $m^0$, $m^{1}$ | $m^{-1}$, $m^0$ | $m^{-2}$, $m^{-1}$ | $m^0$, $m^0$, $m^0$ | feature learning |
#
# **The abc form.** Yang & Hu (2021) write $W^l = m^{-a_l} w^l$ with $w^l \sim \mathcal N(0, m^{-2b_l})$, trained by
# SGD with learning rate $\eta\, m^{-c}$. Then $\operatorname{Var} W^l \propto m^{-2(a_l + b_l)}$ and, since
# $\partial\ell/\partial w = m^{-a}\,\partial\ell/\partial W$ and $\Delta W = m^{-a}\Delta w$, $\eta_l \propto m^{-(2a_l + c)}$:
#
# | | $a$: input, hidden, output | $b$: input, hidden, output | $c$ |
# |---|---|---|---|
# | **standard** | $0,\ 0,\ 0$ | $0,\ \tfrac12,\ \tfrac12$ | $0$ (unstable) or $1$ (kernel limit) |
# | **NTK** | $0,\ \tfrac12,\ \tfrac12$ | $0,\ 0,\ 0$ | $0$ |
# | **μP** | $-\tfrac12,\ 0,\ \tfrac12$ | $\tfrac12,\ \tfrac12,\ \tfrac12$ | $0$ |
#
# Shifting $a_l \to a_l + \theta$, $b_l \to b_l - \theta$ (the same $\theta$ in every layer), $c \to c - 2\theta$ changes
# nothing about training, so many triples describe one parameterization; the exponents of the first table are what
# they share. The package's form has $b = 0$ and per-layer learning rates: its μP row gives
# $\eta_1 = md \cdot \tfrac1d \propto m$, $\eta_l = m\cdot\tfrac1m = 1$, $\eta_{L+1} = m \cdot \tfrac1{m^2} = \tfrac1m$.
# μP fixes only these exponents: the constants in front can be tuned at a small width and then carried to any width
# (μTransfer, Tensor Programs V).

# %% [markdown]
# Experiment: measure it. Two hidden layers (input, one $m \times m$ hidden layer, output), 16 inputs, **one** SGD
# step; the relative RMS change of the input layer's pre-activations $h^1$, of the hidden layer's $h^2$, and the RMS
# change of $f$, at widths 128, 512, 2048. So that every width sees the same loss derivative, we train on
# $y + f_0(x)$: the first residual is then exactly $-y$, whatever the random initial function $f_0$.

# %%
x_train = nh.sphere(16, d=8, seed=0)
y_train = torch.sin(2 * x_train[:, 0])
settings = {          # label: (parameterization, learning rate as a function of the width m)
    "NTK, η = 0.5": ("ntk", lambda m: 0.5),
    "μP, η = 0.02": ("mup", lambda m: 0.02),
    "standard, fixed η = 0.005": ("standard", lambda m: 0.005),
    "standard, η = 1/m": ("standard", lambda m: 1 / m),
}
setting_names = {"NTK, η = 0.5": "NTK, η = 0.5", "μP, η = 0.02": "μP, η = 0.02",   # as printed
                 "standard, fixed η = 0.005": nh._("standard, fixed η = 0.005"),
                 "standard, η = 1/m": nh._("standard, η = 1/m")}
predicted = {"NTK, η = 0.5": (-0.5, -0.5, 0.0), "μP, η = 0.02": (0.0, 0.0, 0.0),
             "standard, fixed η = 0.005": (-0.5, 0.5, 1.0), "standard, η = 1/m": (-1.5, -0.5, 0.0)}
step_widths = [128, 512, 2048]

def rms(t):
    return float(t.pow(2).mean().sqrt())

def network(parameterization, width, depth=1, seed=0):
    """A ReLU MLP with ``depth`` hidden layers on inputs of dimension 8; f(x) has shape (n, 1)."""
    return nh.mlp(depth, "relu", parameterization=parameterization).network(8, width=width, seed=seed)

def one_step_changes(parameterization, lr, width):
    model = network(parameterization, width, depth=2)
    with torch.no_grad():
        h_before, f_before = nh.preactivations(model, x_train), model(x_train)[:, 0]
    nh.train(model, x_train, y_train + f_before, lr=lr, steps=1, track_kernels=False)
    with torch.no_grad():
        h_after, f_after = nh.preactivations(model, x_train), model(x_train)[:, 0]
    return [rms(a - b) / rms(b) for a, b in zip(h_after, h_before)] + [rms(f_after - f_before)]

one_step = {label: np.array([one_step_changes(p, rule(m), m) for m in step_widths])
            for label, (p, rule) in settings.items()}
exponents = {label: [nh.loglog_slope(step_widths, c[:, j]) for j in range(3)]
             for label, c in one_step.items()}
print(nh._("slopes in m after one step:   Δh¹ (input layer)   Δh² (hidden layer)   Δf"))
for label, measured in exponents.items():
    pairs = zip(measured, predicted[label])
    print(f"{setting_names[label]:>26}: " + "   ".join(
        nh._("{measured:+.2f} (predicted {predicted:+.1f})").format(measured=e, predicted=p)
        for e, p in pairs))

# %%
fig, ax = plt.subplots(figsize=(10, 4))
for label, changes in one_step.items():
    nh.plotting.loglog_fit(ax, step_widths, changes[:, 1], label=label)
nh.plotting.width_ticks(ax, step_widths)
ax.set_xlabel("width m")
ax.set_ylabel("relative change of h² after one step")
ax.set_title("hidden-layer features after one SGD step")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
for label, measured in exponents.items():
    for what, e, p in zip(["Δh¹", "Δh²", "Δf"], measured, predicted[label]):
        assert abs(e - p) <= 0.1, f"{label}, {what}: slope {p:+.1f} ± 0.1 expected, measured {e:+.3f}"
print(nh._("every measured exponent is within 0.1 of the table"))

# %% [markdown]
# Under the NTK parameterization one step moves every feature by $m^{-1/2}$ of its size: at infinite width the
# features, and the kernel built from them, never move. That is **lazy** training. Under μP they move by an amount
# that does not depend on $m$ (its size is set by $\eta$). The standard parameterization's hidden layer moves *more*
# as the network gets wider, and its output even more ($m^{1}$).
#
# ### Over many steps: lazy training vs feature learning
#
# One hidden layer, 16 training points, 50 steps of gradient descent, widths 256 … 4096, 3 seeds. We record the
# relative change of the learning-rate-weighted NTK $\sum_l \eta_l \langle \partial f/\partial W^l,
# \partial f'/\partial W^l\rangle$ (the kernel that drives $\mathrm d f/\mathrm dt$), of the hidden feature kernel
# $\Phi\Phi^\top/m$, of all the weights $\lVert w_T - w_0\rVert / \lVert w_0\rVert$, and how far the outputs moved.

# %%
widths = [256, 1024, 4096]
learning_rate = {"ntk": 0.5, "mup": 0.02}

def movement(parameterization, width, seed):
    model = network(parameterization, width, seed=seed)
    weights = list(model.parameters())
    start = [w.detach().clone() for w in weights]
    record = nh.train(model, x_train, y_train, lr=learning_rate[parameterization], steps=50)
    with torch.no_grad():
        weight_change = math.sqrt(sum(float((w - w0).pow(2).sum()) for w, w0 in zip(weights, start))
                                  / sum(float(w0.pow(2).sum()) for w0 in start))
    output_change = float((record.outputs[-1] - record.outputs[0]).norm() / y_train.norm())
    return record.ntk_change, record.feature_change, weight_change, output_change

results = {p: np.array([[movement(p, m, s) for s in range(3)] for m in widths]).mean(1)
           for p in learning_rate}
for p, r in results.items():
    print(nh._("{parameterization:>4}: NTK change {ntk}, feature change {features}, weight change {weights}, "
               "output change {outputs}").format(parameterization=p,
                                                 ntk=np.array2string(r[:, 0], precision=3),
                                                 features=np.array2string(r[:, 1], precision=3),
                                                 weights=np.array2string(r[:, 2], precision=3),
                                                 outputs=np.array2string(r[:, 3], precision=2)))

# %%
fig, ax = plt.subplots(figsize=(10, 4))
slopes = {}
for p, r in results.items():
    slopes[p, "NTK"] = nh.plotting.loglog_fit(ax, widths, r[:, 0], label=f"{p}: NTK change")
    slopes[p, "features"] = nh.plotting.loglog_fit(ax, widths, r[:, 1], label=f"{p}: feature-kernel change")
    slopes[p, "weights"] = nh.plotting.loglog_fit(ax, widths, r[:, 2], label=f"{p}: weight change")
nh.plotting.width_ticks(ax, widths)
ax.set_xlabel("width m")
ax.set_ylabel("relative change after 50 steps")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
quantities = {"NTK": "NTK", "features": nh._("features"), "weights": nh._("weights")}       # as printed
print({f"{p} {quantities[what]}": round(float(v), 2) for (p, what), v in slopes.items()})
assert slopes["ntk", "NTK"] <= -0.4, f"NTK param., kernel: slope ≤ -0.4 expected, {slopes['ntk', 'NTK']:.3f}"
assert slopes["ntk", "features"] <= -0.7, \
    f"NTK param., feature kernel: slope ≤ -0.7 expected, measured {slopes['ntk', 'features']:.3f}"
assert abs(slopes["ntk", "weights"] + 0.5) <= 0.1, \
    f"NTK param., weights: slope -0.5 ± 0.1 expected, measured {slopes['ntk', 'weights']:.3f}"
assert abs(slopes["mup", "NTK"]) <= 0.2, f"μP, kernel: slope 0 ± 0.2 expected, {slopes['mup', 'NTK']:.3f}"
assert abs(slopes["mup", "features"]) <= 0.15, \
    f"μP, feature kernel: slope 0 ± 0.15 expected, measured {slopes['mup', 'features']:.3f}"
assert results["ntk"][:, 3].min() > 0.5, \
    f"NTK param.: outputs move by O(1) (> 0.5 of |y|) expected, smallest {results['ntk'][:, 3].min():.3f}"

# %% [markdown]
# **Lazy** therefore means: the network fits the data (its outputs travel from the random $f_0$ to $y$, a change of
# about $2|y|$ at every width) while its kernel and features stay (almost) where they started. The parameters do
# move (here, with one hidden layer, every one of them, each by relatively $m^{-1/2}$, together enough to move $f$
# by $O(1)$; the entries of an $m \times m$ layer move by $m^{-1}$ relative), but their effect on the features
# vanishes. The feature *kernel* moves even less than a single feature ($m^{-1}$ rather than
# $m^{-1/2}$): the units' changes have random signs and cancel in the average $\Phi\Phi^\top/m$. The NTK moves
# like $m^{-1/2}$ to $m^{-1}$, here like $m^{-0.71}$ (the slope printed above). Lee et al. (2019) prove $m^{-1/2}$
# as an upper bound; with a smooth activation the change reaches $m^{-1}$, while in a ReLU network the units that
# switch on or off keep it above that. Under μP the kernel and the features move by the same $O(1)$ amount at
# every width.
#
# > **The text says:** under μP the output $f(x)$ moves far from its initial value, "that is, the features learn".  
# > **What is true:** under the NTK parameterization $f$ moves by $O(1)$ as well (printed above: the output change is
# > about $2|y|$ at every width); moving outputs are not the criterion. What sets μP apart is that the **hidden features,
# > and with them the kernel, change by $\Theta(1)$** as $m \to \infty$, while under the NTK parameterization both
# > changes vanish. ([errata A20](../ERRATA.md#a20))
#
# ### The dynamical dichotomy
#
# Yang & Hu (2021, Tensor Programs IV) prove this for every abc-parameterization trained by SGD that is *stable*
# (nothing blows up as $m \to \infty$) and *nontrivial* (the output does learn): the features' updates scale like $m^{-r}$ for one
# exponent $r \ge 0$ that they compute from $a$, $b$, $c$, and
# - $r > 0$: the features freeze in the limit, and the function evolves by kernel gradient descent with a fixed
#   kernel: the **kernel regime** (NTK parameterization and standard with $\eta \propto 1/m$, with a hidden
#   $m \times m$ layer: $r = \tfrac12$, the $m^{-1/2}$ measured above);
# - $r = 0$: the features move by $\Theta(1)$: **feature learning** (μP: every layer at once, the "maximal update").
#
# Intuitively, never both: the tangent kernel is built from the features and the backward vectors, so features
# that move by $\Theta(1)$ move the kernel by $\Theta(1)$, and a kernel that stays fixed needs features that stay
# fixed.
#
# Two more consequences of the table: μP's output at initialization shrinks like $m^{-1/2}$ (output variance
# $1/m^2$ summed over $m$ units), and the standard parameterization at a fixed learning rate takes steps that grow
# with the width.

# %%
with torch.no_grad():
    rms_f0 = [float(torch.stack([network("mup", m, seed=s)(x_train) for s in range(20)]).pow(2).mean().sqrt())
              for m in widths]
loss_after_one_step = [float(nh.train(network("standard", m), x_train, y_train, lr=1.0, steps=1,
                                      track_kernels=False).loss[-1]) for m in widths]
f0_slope = nh.loglog_slope(widths, rms_f0)
print(nh._("μP output at init (RMS): {values}, slope {slope:.2f}").format(values=[f"{v:.3g}" for v in rms_f0],
                                                                         slope=f0_slope))
print(nh._("standard parameterization, loss after one step at η = 1: {values}").format(
    values=[f"{v:.3g}" for v in loss_after_one_step]))
assert abs(f0_slope + 0.5) < 0.15, f"μP output at init: slope -0.5 ± 0.15 expected, measured {f0_slope:.3f}"
assert loss_after_one_step[0] < loss_after_one_step[1] < loss_after_one_step[2], \
    f"standard, η = 1: loss after one step should grow with m, measured {loss_after_one_step}"

# %% [markdown]
# ### What the kernel limit is, and what it is not
#
# > **The text says:** the NTK parameterization keeps training linearized throughout, so training the network *is*
# > kernel ridge regression.  
# > **What is true:** the linearization becomes exact only as $m \to \infty$, for a learning rate below the stability
# > limit ($\eta\,\lambda_{\max}/n < 2$). For the squared loss and full-batch gradient descent it then holds uniformly
# > over all training time, convergence included (Lee et al. 2019); for other losses only over a finite time (Jacot
# > et al. 2018). At finite width it is an approximation whose error shrinks with $m$. What it
# > gives is kernel **gradient descent** started from the random initial function $f_0$. Trained to convergence,
# > $f_\infty(x) = f_0(x) + \Theta(x, X)\,\Theta(X, X)^{-1}\big(y - f_0(X)\big)$: **ridgeless** kernel regression plus
# > an offset from $f_0$. A ridge appears only with an explicit penalty pulling the weights back to their initial
# > values; stopping early acts like one. Lesson 07 (`07_training_dynamics.ipynb`) tests all of this against real
# > gradient descent. ([errata A19](../ERRATA.md#a19))
#
# A quick check: train a width-4096 network to convergence and compare its predictions on 8 new inputs with the
# formula (empirical NTK at initialization), and with plain ridgeless regression that forgets $f_0$.

# %%
x_new = nh.sphere(8, d=8, seed=5)
model = network("ntk", 4096)
with torch.no_grad():
    f0_train, f0_new = model(x_train)[:, 0], model(x_new)[:, 0]
theta = nh.empirical_ntk(model, torch.cat([x_train, x_new]))
record = nh.train(model, x_train, y_train, lr=1.0, steps=600, x_eval=x_new, record_every=600,
                  track_kernels=False)
with_offset = f0_new + nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train - f0_train)
without_offset = nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train)
gap = float((record.outputs[-1] - with_offset).abs().max())
gap_without = float((record.outputs[-1] - without_offset).abs().max())
print(nh._("training loss after 600 steps: {loss:.1e}").format(loss=float(record.loss[-1])))
print(nh._("max |network - (f0 + ridgeless regression on y - f0)| = {gap:.3f};  "
           "max |network - ridgeless regression on y| = {gap_without:.2f}").format(
    gap=gap, gap_without=gap_without))
assert gap < 0.1 * gap_without, f"the f0 offset matters: gap {gap:.3f} should be < 10% of {gap_without:.3f}"

# %% [markdown]
# ## Explore
#
# Train one network (one hidden layer, 50 steps) and compare its feature kernel before and after (left) and its
# loss (right). The four settings are those of the one-step experiment. For each, the line printed under the
# sliders gives $\eta\,\lambda_\max/n$, the stability number of gradient descent: $\lambda_\max$ is the largest
# eigenvalue of the learning-rate-weighted NTK at initialization, and the linearized network diverges when it
# exceeds 2. Under the standard parameterization $\lambda_\max$ grows like $m$, so every fixed $\eta$ fails beyond
# some width (here from $m = 1024$ on); scaling $\eta$ like $1/m$ keeps the number fixed and gives a kernel limit.

# %%
explanations = {
    "ntk": nh._("lazy: the kernel and the features barely move, and move less at larger widths"),
    "mup": nh._("feature learning: the feature kernel moves by about the same amount at every width"),
    "standard": nh._("stable at this width, but λ_max grows like m: at a fixed η a wider network diverges"),
}

def draw_training(setting, width):
    parameterization, rule = settings[setting]
    lr = rule(width)
    model = network(parameterization, width)
    lam_max = float(torch.linalg.eigvalsh(nh.empirical_ntk(model, x_train,
                                                           parameter_weights=nh.lr_multipliers(model)))[-1])
    stability = lr * lam_max / len(x_train)
    record = nh.train(model, x_train, y_train, lr=lr, steps=50, on_divergence="stop")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    right.semilogy(record.loss)
    right.set_xlabel("step")
    right.set_ylabel("training loss")
    left.set_xlabel("feature kernel entry before training")
    left.set_ylabel("same entry after training")
    if record.diverged_at is not None:
        left.text(0.5, 0.5, f"diverged at step {record.diverged_at}:\nno kernel after training", ha="center",
                  va="center", transform=left.transAxes)
        left.axis("off")
        print(textwrap.fill(nh._("{setting}, width {width}: η·λ_max/n = {stability:.3g} {relation} 2, "
                                 "gradient descent diverged (the loss overflowed at step {step}); λ_max "
                                 "grows like m, so a fixed η fails at large widths").format(
            setting=setting_names[setting], width=width, stability=stability,
            relation=">" if stability > 2 else "≤", step=record.diverged_at), 110))
        return
    left.scatter(record.features_start.flatten(), record.features_end.flatten(), s=8, label="kernel entries")
    lims = [float(record.features_start.min()), float(record.features_start.max())]
    left.plot(lims, lims, "k--", lw=1, label="no change")
    left.legend()
    if setting == "standard, η = 1/m":
        story = nh._("kernel limit: η·λ_max/n tends to a constant as m grows, and the features freeze")
    else:
        story = explanations[parameterization]
    print(textwrap.fill(nh._("{setting}, width {width}: η·λ_max/n = {stability:.3g}; NTK change {ntk:.3g}, "
                             "feature change {features:.3g}, loss {start:.3g} → {end:.3g}. {story}").format(
        setting=setting_names[setting], width=width, stability=stability, ntk=record.ntk_change,
        features=record.feature_change, start=float(record.loss[0]), end=float(record.loss[-1]),
        story=story), 110))

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_training,
                       setting=nh.widgets.dropdown("setting", "NTK, η = 0.5", options=list(settings)),
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)))

# %% [markdown]
# ## Summary
#
# - Layer norm after a dense/conv layer divides the kernel by its diagonal: the kernel sees only directions.
# - Batch norm with batch statistics couples the inputs of a batch; it has Monte Carlo kernels, not a closed form.
#   Frozen batch norm is affine.
# - LeCun $1/\text{fan-in}$, He $2/\text{fan-in}$, Xavier $2/(\text{fan-in} + \text{fan-out})$; the NTK
#   parameterization has the same forward pass as LeCun/He and different gradient scales.
# - One SGD step moves a feature by (learning rate) × (gradient per unit) × (number of aligned terms). Asking every
#   layer to move by $\Theta(1)$ gives μP: output variance $m^{-2}$, learning rates $m^{1}, m^{0}, m^{-1}$ for the
#   input, hidden and output layers (the table above; measured exponents within 0.1).
# - NTK parameterization: kernel and features freeze as the width grows, while the output fits the data; the
#   limit is kernel gradient descent from $f_0$ (ridgeless at convergence). μP: features move by $\Theta(1)$ at every
#   width. A parameterization does one or the other (Yang & Hu's dichotomy). Standard parameterization: unstable at
#   fixed $\eta$, a kernel limit with $\eta \propto 1/m$.
#
# **Exercise:** 4.5 (how μP breaks the kernel limit).
#
# **Next:** [06 · Activations](06_activations.ipynb)
