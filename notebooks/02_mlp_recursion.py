# %% [markdown]
# # 02 · The MLP recursion, kernel collapse and the edge of chaos
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/02_mlp_recursion.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F02_mlp_recursion.ipynb)
#
# *Chapter 4.1.*
#
# **You will learn**
# - 4.1.1: to compute the NNGP kernel $\Sigma$ and the NTK $\Theta$ of an MLP layer by layer, and why each step
#   needs the *triple* $(\Sigma(x,x), \Sigma(x',x'), \Sigma(x,x'))$;
# - where this recursion comes from (Gaussian units, and the NTK as a sum over layers), checked on networks of
#   width 4096;
# - 4.1.2: what depth does to the kernels of a ReLU network: the correlation $c_l$ of two inputs creeps to 1, with
#   $1 - c_l$ falling like $1/l^2$, the NNGP becomes constant, the NTK keeps a full-rank part, and predictions off
#   the training set flatten (at $\sigma_w^2 = 2$ without a bias);
# - the ordered and chaotic phases of tanh and erf networks, the edge of chaos $\chi_1 = 1$ between them, and the
#   degenerate case without a bias.
#
# **Prerequisites:** lesson 01 (what the NTK is), Gaussian processes, backpropagation.

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import math

import matplotlib.colors as colors
import matplotlib.patheffects as patheffects
import matplotlib.pyplot as plt
import torch
import ntk_helpers as nh
from ntk_helpers.course import signal_propagation as sp

nh.plotting.use_style()

# %% [markdown]
# ## The idea in one picture
#
# An infinitely wide MLP is a Gaussian process whose covariance is computed one layer at a time. A layer takes the
# $2\times2$ covariance of a unit at two inputs, computes two Gaussian expectations $E$ and $\dot E$, and returns the
# next layer's covariance $\Sigma$ and NTK $\Theta$ (left). Repeated over many layers, this map moves the
# *correlation* $c$ of the two inputs (right): to 1 exponentially fast, to 1 only polynomially, or to a value
# $c^* < 1$ (and in a degenerate case without a bias it barely moves). Where it goes decides what a deep network
# can still tell apart; this lesson works out each case.

# %%
sp.draw_idea()
plt.show()

# %% [markdown]
# ## 4.1.1 The recursion
#
# The network (NTK parameterization, $L$ hidden layers of width $m$, all weights and biases $\mathcal N(0,1)$):
# $z^{(1)} = \frac{\sigma_w}{\sqrt d}W^{(1)}x + \sigma_b b^{(1)}$, then
# $z^{(l+1)} = \frac{\sigma_w}{\sqrt m}W^{(l+1)}\phi(z^{(l)}) + \sigma_b b^{(l+1)}$, and the output is $f = z^{(L+1)}$.
# As $m\to\infty$ every unit of $z^{(l)}$ is a Gaussian process over the inputs, with covariance $\Sigma^{(l)}$, and
#
# $$\Sigma^{(1)}(x,x') = \sigma_w^2\,\tfrac{x\cdot x'}{d} + \sigma_b^2, \qquad \Theta^{(1)} = \Sigma^{(1)},$$
#
# $$\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2, \qquad
#   \dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)], \qquad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# where $(u, v) \sim \mathcal N(0, \Lambda^{(l)})$ and
# $\Lambda^{(l)} = \begin{pmatrix}\Sigma^{(l)}(x,x) & \Sigma^{(l)}(x,x')\\ \Sigma^{(l)}(x,x') & \Sigma^{(l)}(x',x')\end{pmatrix}$
# is the matrix of the triple (Neal 1996, Lee et al. 2018 and Matthews et al. 2018 for $\Sigma$; Jacot et al. 2018
# and Arora et al. 2019 for $\Theta$).
#
# For ReLU both expectations have closed forms, the *arc-cosine kernel* (Cho & Saul 2009). Write
# $q = \Sigma^{(l)}(x,x)$, $q' = \Sigma^{(l)}(x',x')$ and $\theta$ for the angle of the pair,
# $\cos\theta = \Sigma^{(l)}(x,x')/\sqrt{q q'}$:
#
# $$\mathbb E[\phi(u)\phi(v)] = \frac{\sqrt{q q'}}{2\pi}\bigl(\sin\theta + (\pi-\theta)\cos\theta\bigr), \qquad
#   \mathbb E[\phi'(u)\phi'(v)] = \frac{\pi-\theta}{2\pi}.$$
#
# At $\theta = 0$ they give $\mathbb E[\phi(u)^2] = q/2$ and $\mathbb E[\phi'(u)^2] = 1/2$. So each input's variance
# follows a one-dimensional map of its own, the **variance map**
#
# $$q_{l+1} = \sigma_w^2\,\mathbb E_{z\sim\mathcal N(0,1)}\bigl[\phi(\sqrt{q_l}\,z)^2\bigr] + \sigma_b^2,
#   \qquad\text{for ReLU}\quad q_{l+1} = \tfrac{\sigma_w^2}{2}\,q_l + \sigma_b^2 .$$
#
# In code the two ReLU formulas are four lines; everything below uses them.

# %%
def relu_dual(q1, q2, cov):
    """E[φ(u)φ(v)] and E[φ′(u)φ′(v)] for φ = ReLU and (u, v) ~ N(0, [[q1, cov], [cov, q2]])."""
    theta = torch.arccos((cov / (q1 * q2).sqrt()).clamp(-1, 1))           # the angle of the Gaussian pair
    e = (q1 * q2).sqrt() / (2 * math.pi) * (torch.sin(theta) + (math.pi - theta) * torch.cos(theta))
    return e, (math.pi - theta) / (2 * math.pi)


# %% tags=["check"]
# Against the package's ReLU (its own implementation of the same closed form), on 3 arbitrary triples.
q1, q2, cov = (torch.tensor(v, dtype=torch.float64)
               for v in ([1.0, 2.0, 0.3], [0.5, 2.0, 4.0], [0.2, -1.9, 0.9]))
nh.check_close("E[φ(u)φ(v)] of the formula vs the package", relu_dual(q1, q2, cov)[0],
               nh.relu().dual(q1, q2, cov)[0], rtol=1e-12)
nh.check_close("E[φ′(u)φ′(v)] of the formula vs the package", relu_dual(q1, q2, cov)[1],
               nh.relu().dual(q1, q2, cov)[1], rtol=1e-12)
nh.check_close("E[φ(u)²] = q/2 on the diagonal", relu_dual(q1, q1, q1)[0], q1 / 2, rtol=1e-12)

# %% [markdown]
# ### Where the recursion comes from, step 1: Gaussian pre-activations
#
# Take one unit of layer $l+1$ and hold everything below it fixed:
#
# $$z_i^{(l+1)}(x) = \frac{\sigma_w}{\sqrt m}\sum_{j=1}^{m} W_{ij}\,\phi\bigl(z_j^{(l)}(x)\bigr) + \sigma_b\,b_i .$$
#
# - **A sum of independent terms.** Given layer $l$, this is a sum of $m$ independent, zero-mean terms (one per
#   weight $W_{ij}$) plus an independent bias: jointly Gaussian over the inputs (exactly, for Gaussian weights),
#   with covariance $\sigma_w^2\,\frac1m\sum_j \phi(z_j^{(l)}(x))\,\phi(z_j^{(l)}(x')) + \sigma_b^2$.
# - **An average that becomes deterministic.** That covariance is an *average over the $m$ units* of layer $l$. If
#   those units are independent copies of one Gaussian process with covariance $\Sigma^{(l)}$, the law of large
#   numbers turns it into $\sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2 = \Sigma^{(l+1)}$, with $(u,v)$ drawn
#   from the triple's matrix $\Lambda^{(l)}$.
# - **Independent units.** Two units $i\neq i'$ of layer $l+1$ use independent weight rows and biases, so in the
#   limit they are independent copies of the same process. That is what the next layer's average needs
#   (induction), and it is why the kernel describes *one* unit at two inputs.
# - **The start.** $z^{(1)}$ is exactly Gaussian, with $\Sigma^{(1)} = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$.
#
# **One limit at a time.** This induction lets the widths go to infinity one after another, layer 1's first: a
# *sequential* limit (the one in which Jacot et al. 2018 prove that the NTK converges). When all widths grow
# together, the units of a layer are only exchangeable, not independent, and the proof needs more care; the
# kernels are the same, as Matthews et al. (2018) proved for the NNGP and Yang (2019, 2020) for the NNGP and the
# NTK (Arora et al. 2019 bound a ReLU network's NTK error at finite widths).
#
# Check it on a network of width $m = 4096$ (two hidden layers, ReLU, $\sigma_w^2 = 2$, $\sigma_b = 0.2$) and two
# inputs of different lengths. First what the recursion predicts, for both kernels:

# %%
pair = torch.tensor([[1.0, 0.0, 0.0], [0.9, 1.5, 0.3]], dtype=torch.float64)   # x, x′ in R³, |x| ≠ |x′|
sigma_w, sigma_b, width = math.sqrt(2), 0.2, 4096

Sigma = sigma_w ** 2 * pair @ pair.T / 3 + sigma_b ** 2        # Σ^(1): the 2×2 matrix Λ^(1) of the triple
Theta = Sigma.clone()                                          # Θ^(1) = Σ^(1)
predicted_sigma, predicted_sigma_dot = [Sigma], []
for layer in (1, 2):                                           # two hidden layers, then the readout
    q = torch.diagonal(Sigma)                                  # (Σ(x,x), Σ(x′,x′))
    e, e_dot = relu_dual(q[:, None], q[None, :], Sigma)        # entry (i, j): variances of inputs i and j
    Sigma = sigma_w ** 2 * e + sigma_b ** 2                    # Σ^(l+1)
    Theta = Sigma + sigma_w ** 2 * e_dot * Theta               # Θ^(l+1) = Σ^(l+1) + Σ̇^(l+1) Θ^(l)
    predicted_sigma.append(Sigma)
    predicted_sigma_dot.append(sigma_w ** 2 * e_dot)           # Σ̇^(l+1)
print(nh._("recursion, output: Σ(x,x′) = {sigma:.4f}, Θ(x,x′) = {theta:.4f}").format(
    sigma=float(Sigma[0, 1]), theta=float(Theta[0, 1])))

# %% tags=["check"]
package = nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).kernel(pair)
nh.check_close("NNGP of the loop vs nh.mlp(...).kernel", Sigma, package.nngp, rtol=1e-12)
nh.check_close("NTK of the loop vs nh.mlp(...).kernel", Theta, package.ntk, rtol=1e-12)

# %% [markdown]
# In `relu_dual(q[:, None], q[None, :], Sigma)` the two variance arguments are the *column* and the *row* of the
# same two numbers: entry $(i, j)$ of the result pairs the variance of input $i$ with that of input $j$, as the
# triple requires. (The package's `nh.mlp(...).kernel(...)` runs exactly this recursion.)
#
# Now the network. Its modules alternate dense layer and ReLU; the output of each dense layer is a pre-activation
# $z^{(l)}$ (the last one is $f$). The 4096 units of one layer are (nearly) independent samples of that layer's
# Gaussian process, so the average of $z_i(x)\,z_i(x')$ over the units estimates $\Sigma^{(l)}(x,x')$, within a
# standard error (SE): the products' standard deviation divided by $\sqrt{4096} = 64$. That SE counts only the
# sampling of layer $l$'s own units. The last column gives each error in units of its SE.
#
# - **Layer 1** has nothing finite below it, so its errors are pure sampling: over 12 seeds their root-mean-square
#   was 0.9 SE, and one error of about 2 SE among a few is chance.
# - **Layer 2** sits on a finite layer 1, whose own random deviation shifts every unit of layer 2 alike; no average
#   over layer 2 removes that. So layer 2 misses the recursion by more than its SE says: over 12 seeds its errors
#   had a root-mean-square of 1.9 SE, and 2–3 SE is no sign of a bug.

# %%
network_of = lambda seed: nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).network(3, width=width,
                                                                                      seed=seed)
wide = network_of(0)
preactivations, h = [], pair
for index, module in enumerate(wide):                  # dense, relu, dense, relu, dense(1)
    h = module(h)
    if index % 2 == 0:
        preactivations.append(h)                       # z^(1), z^(2): (2, 4096); f = z^(3): (2, 1)


def unit_average(products):
    """Mean over the units of a layer, and its standard error."""
    return float(products.mean()), float(products.std() / math.sqrt(products.numel()))


entries = ((0, 0, "(x, x)"), (1, 1, "(x′, x′)"), (0, 1, "(x, x′)"))
for layer in (1, 2):
    z = preactivations[layer - 1].detach()
    for a, b, entry in entries:
        measured, se = unit_average(z[a] * z[b])
        predicted = float(predicted_sigma[layer - 1][a, b])
        print(nh._("layer {layer}, Σ{entry}: recursion {predicted:.3f}, mean over the units {measured:.3f} "
                   "± {se:.3f}, error {error:+.1f} SE").format(layer=layer, entry=entry, measured=measured,
                                                              se=se, predicted=predicted,
                                                              error=(measured - predicted) / se))

# %% [markdown]
# Now look at the numbers themselves: the 4096 values $h_j^{(1)}(x')$ that feed layer 2 (left), and the 4096 values
# $z_i^{(2)}(x')$ of layer 2 with the density of $\mathcal N(0, \Sigma^{(2)}(x',x'))$ that the recursion predicts
# (right).

# %%
inputs = torch.relu(preactivations[0][1].detach())                             # h^(1)(x′): (4096,)
units = preactivations[1][1].detach()                                          # z^(2)(x′): (4096,)
variance = float(predicted_sigma[1][1, 1])
grid = torch.linspace(-4, 4, 201, dtype=torch.float64) * math.sqrt(variance)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
left.hist(inputs, bins=60, color=nh.plotting.PALETTE[1], alpha=0.6)
left.set_xlabel(nh._("post-activation h⁽¹⁾ⱼ(x′) = relu(z⁽¹⁾ⱼ(x′))"))
left.set_ylabel(nh._("number of units"))
left.set_title(nh._("What layer 2 sums: ReLU outputs, half of them 0"))
heights = right.hist(units, bins=60, density=True, alpha=0.5,
                     label=nh._("{width} units of one network").format(width=width))[0]
right.plot(grid, torch.exp(-grid ** 2 / (2 * variance)) / math.sqrt(2 * math.pi * variance),
           label=nh._("N(0, Σ⁽²⁾(x′,x′)) from the recursion"))
right.set_ylim(0, 1.35 * max(float(heights.max()), 1 / math.sqrt(2 * math.pi * variance)))   # legend room
right.set_xlabel(nh._("pre-activation z⁽²⁾ᵢ(x′)"))
right.set_ylabel(nh._("probability density"))
right.set_title(nh._("Layer 2's units against N(0, Σ⁽²⁾) of the recursion"))
right.legend(loc="upper left", fontsize=9)
plt.show()

# %% [markdown]
# **What do the zeros do?** Half of the 4096 numbers that layer 2 sums are exactly 0 (the spike on the left).
# Do these zero outputs make layer 2's units any less Gaussian? What do they do to the variance? Predict before
# you open the answer; step 1 above has what you need.
#
# <details><summary>Answer</summary>
#
# They cost nothing in Gaussianity. Given layer 1, unit $i$ of layer 2 is
# $\frac{\sigma_w}{\sqrt m}\sum_j W_{ij}h_j^{(1)} + \sigma_b b_i$: a zero $h_j^{(1)}$ only drops one Gaussian term,
# and the roughly 2048 others still add up to an exactly Gaussian unit. The zeros do halve the variance: it is
# $\sigma_w^2|h^{(1)}|^2/m + \sigma_b^2$, and the average of $h_j^{(1)2}$ over the units is close to
# $\mathbb E[\phi(u)^2] = \Sigma^{(1)}(x',x')/2$ (here 1.07 = 2.14/2), half of what it would be without the ReLU.
# That half is why $\sigma_w^2 = 2$ (He et al. 2015) keeps the variance from shrinking layer after layer.
#
# </details>

# %% tags=["check"]
# Tolerance 6 SE: the layers below are finite too (over 12 seeds the layer-2 errors had a root-mean-square of
# 1.9 naive SE), so 6 SE is about 3 real standard deviations.
errors_in_se = []
for layer in (1, 2):
    z = preactivations[layer - 1].detach()
    for a, b, _entry in entries:
        measured, se = unit_average(z[a] * z[b])
        errors_in_se.append(abs(measured - float(predicted_sigma[layer - 1][a, b])) / se)
nh.check_between("largest |error|/SE of the six unit covariances", max(errors_in_se), 0.0, 6.0)
inside = float((units.abs() < math.sqrt(variance)).double().mean())
gaussian_inside = math.erf(1 / math.sqrt(2))                                   # P(|u| < 1 sd) = 0.6827
binomial_se = math.sqrt(gaussian_inside * (1 - gaussian_inside) / width)
nh.check_close("fraction of the units within one standard deviation (6 binomial SE)", inside, gaussian_inside,
               atol=6 * binomial_se)
nh.check_close("fraction of the ReLU outputs that are 0 (6 binomial SE)",
               float((inputs == 0).double().mean()), 0.5, atol=6 * math.sqrt(0.25 / width))
half = float((inputs ** 2).mean())                                             # |h^(1)(x′)|² / m
nh.check_close("the answer: |h⁽¹⁾(x′)|²/m vs Σ⁽¹⁾(x′,x′)/2 (6 SE)", half, float(predicted_sigma[0][1, 1]) / 2,
               atol=6 * float((inputs ** 2).std()) / math.sqrt(width))
nh.check_close("the answer: the two numbers, rounded", [half, float(predicted_sigma[0][1, 1])], [1.07, 2.14],
               atol=5e-3)

# %% [markdown]
# ### Where the recursion comes from, step 2: the NTK, layer by layer
#
# The NTK sums over all parameters, $\Theta(x,x') = \sum_p \partial_p f(x)\,\partial_p f(x')$, so it splits into one
# term per layer, $\Theta = \sum_{l=1}^{L+1}T_l$, where $T_l$ sums over layer $l$'s weights and biases only (not to
# be confused with $\Theta^{(l)}$, the NTK of the first $l$ layers). Write $h^{(0)} = x$ (width $m_0 = d$),
# $h^{(l)} = \phi(z^{(l)})$,
# $z^{(l)} = \frac{\sigma_w}{\sqrt{m_{l-1}}}W^{(l)}h^{(l-1)} + \sigma_b b^{(l)}$, and let
# $\delta^{(l)}(x) = \partial f(x)/\partial z^{(l)}(x)$ be the signal that backpropagation brings to layer $l$.
# Since $\partial f/\partial W^{(l)}_{ij} = \delta^{(l)}_i\,\sigma_w h^{(l-1)}_j/\sqrt{m_{l-1}}$ and
# $\partial f/\partial b^{(l)}_i = \sigma_b\,\delta^{(l)}_i$,
#
# $$T_l(x,x') = \underbrace{\bigl\langle\delta^{(l)}(x),\delta^{(l)}(x')\bigr\rangle}_{\text{backward}}\;
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
# - **The one subtle step.** Averaged over $j$, the two bracketed factors give
#   $\langle\delta^{(l+1)}(x),\delta^{(l+1)}(x')\rangle$ *if* the $W$ of the backward pass may be treated as
#   independent of the forward pass, which used the same $W$. Why that is plausible: the forward pass uses $W$
#   only through the products $Wh$ with its own vectors $h$, while the backward vector $\delta^{(l+1)}$ carries
#   the readout weights, fresh random numbers of mean zero; the correlations between $W^\top\delta$ and those
#   products are averages of terms of random sign, which vanish as $m\to\infty$. This is a heuristic, not a
#   proof. Yang (2020, *Tensor Programs II*) proves that this "gradient independence" gives the exact limit when
#   the readout weights are drawn with mean zero, independently of everything else, and used nowhere else in
#   the forward pass, as in our MLP. The law of large numbers then turns the average of $\phi'\phi'$ into
#   $\mathbb E[\phi'(u)\phi'(v)]$.
#
# So every layer above multiplies the backward inner product by $\dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]$,
# and
#
# $$\Theta = \sum_{l=1}^{L+1}\Sigma^{(l)}\prod_{k=l+1}^{L+1}\dot\Sigma^{(k)},$$
#
# which is the recursion $\Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\Theta^{(l)}$ written out. Compare it
# with networks of width 4096 split into their three layers (autograd, one output at a time). One network's terms
# scatter by several percent from seed to seed, so take eight networks and compare their mean:

# %%
def layer_terms(network):
    """T_l(x, x′), l = 1, 2, 3: the gradients of f(x) and f(x′) over layer l's parameters, multiplied."""
    outputs = network(pair)[:, 0]                                              # f(x), f(x′)
    parameters = list(network.parameters())
    gradient_x = torch.autograd.grad(outputs[0], parameters, retain_graph=True)  # ∂f(x)/∂p, one tensor per p
    gradient_x2 = torch.autograd.grad(outputs[1], parameters)                   # ∂f(x′)/∂p
    layer_of = [int(name.split(".")[0]) // 2 for name, _p in network.named_parameters()]  # modules 0, 2, 4
    terms = torch.zeros(3, dtype=torch.float64)
    for layer, a, b in zip(layer_of, gradient_x, gradient_x2):
        terms[layer] += (a * b).sum()
    return terms


terms = torch.stack([layer_terms(wide)] + [layer_terms(network_of(seed)) for seed in range(1, 8)])  # (8, 3)
cross = lambda matrices: [float(m[0, 1]) for m in matrices]                     # the (x, x′) entries
backward = [math.prod(cross(predicted_sigma_dot)[l:]) for l in range(3)]       # ∏_{k>l} Σ̇^(k)(x, x′)
predicted_terms = [sigma * factor for sigma, factor in zip(cross(predicted_sigma), backward)]
for layer in range(3):
    measured = terms[:, layer]
    print(nh._("layer {layer}: Σ⁽ˡ⁾(x,x′) = {sigma:.3f} × ∏ Σ̇ = {backward:.3f} → {predicted:.3f}; "
               "8 networks: mean {mean:.3f}, from {low:.3f} to {high:.3f}").format(
        layer=layer + 1, sigma=cross(predicted_sigma)[layer], backward=backward[layer],
        predicted=predicted_terms[layer], mean=float(measured.mean()), low=float(measured.min()),
        high=float(measured.max())))
total = terms.sum(1)
print(nh._("sum, Θ(x,x′): recursion {predicted:.3f}; 8 networks: mean {mean:.3f}, from {low:.3f} to "
           "{high:.3f}").format(predicted=float(Theta[0, 1]), mean=float(total.mean()),
                                low=float(total.min()), high=float(total.max())))

# %% [markdown]
# **Why is the first layer's share the smallest?** All three layers use the same $\sigma_w$ and $\sigma_b$, yet the
# first contributes a third as much as the readout. Read the reason off the printout.
#
# <details><summary>Answer</summary>
#
# Two effects multiply. The forward covariance grows up the network, $\Sigma^{(l)}(x,x') = 0.640, 0.806, 0.933$:
# each ReLU layer raises the correlation of the pair, and the bias adds $\sigma_b^2$ to every entry. And each term
# is multiplied by the backward factors of all the layers above it, $\dot\Sigma^{(k)}(x,x') = 1 - \theta/\pi$
# with $\theta$ the angle of the pair one layer below: below 1 whenever $x$ and $x'$ point in different
# directions. Layer 2 gets one factor (0.718), layer 1 two (0.484 together), the readout none. A single network
# scatters around these predictions (layer 1: from 0.286 to 0.353), and the mean of the eight lies within one
# standard error (their scatter divided by $\sqrt 8$) of each prediction.
#
# </details>

# %% tags=["check"]
per_layer = terms[0]                                                           # the network `wide` (seed 0)
nh.check_close("sum of the three layers vs nh.empirical_ntk", per_layer.sum(),
               nh.empirical_ntk(wide, pair)[0, 1], rtol=1e-10)
nh.check_close("Σ Σ⁽ˡ⁾ ∏ Σ̇ vs the recursion's Θ(x,x′)", sum(predicted_terms), Theta[0, 1], rtol=1e-12)
h2 = torch.relu(preactivations[1].detach())                                    # h^(2): (2, 4096)
forward, forward_se = unit_average(sigma_w ** 2 * h2[0] * h2[1])
nh.check_close("readout term = σ_w² h·h′/m + σ_b² exactly", per_layer[2], forward + sigma_b ** 2, rtol=1e-10)
nh.check_close("readout term vs Σ⁽³⁾(x,x′) (6 SE)", per_layer[2], predicted_sigma[2][0, 1],
               atol=6 * forward_se)
for layer in (1, 2):                            # the backward factor: σ_w² × mean of φ′φ′ over the units
    step = (preactivations[layer - 1].detach() > 0).double()                   # φ′(z) for ReLU
    measured, se = unit_average(sigma_w ** 2 * step[0] * step[1])
    nh.check_close("σ_w² × mean of φ′(z(x))φ′(z(x′)) vs Σ̇(x,x′) (6 SE)", measured,
                   predicted_sigma_dot[layer - 1][0, 1], atol=6 * se)
# The mean of 8 networks against the recursion, with SE = the seed-to-seed standard deviation / √8: per layer
# within one SE, as the answer says (these 8 seeds give at most 0.9 SE); the sum within 4 SE.
mean_error_in_se = (terms.mean(0) - torch.tensor(predicted_terms)).abs() / (terms.std(0) / math.sqrt(8))
nh.check_between("each layer's term: |mean of 8 networks − Σ⁽ˡ⁾ ∏ Σ̇| in SE, largest of the three",
                 mean_error_in_se.max(), 0.0, 1.0)
nh.check_between("one network's terms scatter by several percent: relative std, smallest of the layers",
                 (terms.std(0) / terms.mean(0)).min(), 0.02, 0.1)
nh.check_between("one network's terms scatter by several percent: relative std, largest of the layers",
                 (terms.std(0) / terms.mean(0)).max(), 0.02, 0.1)
nh.check_close("Θ(x,x′): mean of 8 networks vs the recursion (4 SE)", total.mean(), Theta[0, 1],
               atol=4 * float(total.std()) / math.sqrt(8))
# One network's NTK fluctuates around the limit with a relative standard deviation of about √(5L/m): Hanin &
# Nica 2020 prove it for the diagonal Θ(x,x) of a bias-free ReLU network; here it is only used as a scale for
# Θ(x,x′) with σ_b = 0.2 (4.9 %; over 12 seeds we measured 5.4 %, ddof 0). Tolerance 4 √(5L/m):
# this check tests the scatter only, the 4-SE mean check above carries the claim.
nh.check_close("Θ(x,x′) of each of the 8 networks vs the recursion (4 √(5L/m))", total,
               torch.full_like(total, float(Theta[0, 1])), rtol=4 * math.sqrt(5 * 2 / width))
nh.check_close("the answer: Σ⁽ˡ⁾(x,x′) and the backward products", cross(predicted_sigma) + backward[:2],
               [0.640, 0.806, 0.933, 0.484, 0.718], atol=5e-4)
nh.check_close("the answer: the first layer's share of the readout's (a third)",
               predicted_terms[0] / predicted_terms[2], 1 / 3, atol=0.02)
nh.check_close("the answer: one network's layer-1 term ranges from 0.286 to 0.353",
               [terms[:, 0].min(), terms[:, 0].max()], [0.286, 0.353], atol=5e-4)

# %% [markdown]
# ### Why the triple matters
#
# From 4.1.2 on, this lesson, like most papers on deep kernels, takes inputs of equal length: then
# $\Sigma(x,x) = \Sigma(x',x')$, one variance $q$ serves both inputs, and the recursion becomes a map of the
# correlation alone. It is tempting to keep that one-variance formula for inputs of different lengths, using
# $\Sigma(x,x)$ for both. Our two inputs differ in length ($|x'|^2 = 3.15$, $|x|^2 = 1$). Compare the shortcut with
# the triple and with the truth, measured as in step 1: one random layer with $2^{20}$ units, where $\sigma_w^2$
# times the average of $\phi(z_j(x))\,\phi(z_j(x'))$ over the units, plus $\sigma_b^2$, is the covariance
# $\Sigma^{(2)}(x,x')$ that the next layer sees.

# %%
q, cov = torch.diagonal(predicted_sigma[0]), predicted_sigma[0][0, 1]          # layer 1: the triple
correct = float(sigma_w ** 2 * relu_dual(q[0], q[1], cov)[0] + sigma_b ** 2)     # Σ(x,x) and Σ(x′,x′)
shortcut = float(sigma_w ** 2 * relu_dual(q[0], q[0], cov)[0] + sigma_b ** 2)    # Σ(x,x) twice: wrong

layer_1 = nh.serial(nh.dense(sigma_w=sigma_w, sigma_b=sigma_b), nh.relu())
h1 = layer_1.network(3, width=2 ** 20, seed=0)(pair).detach()                  # φ(z^(1)): (2, 2^20)
monte_carlo, mc_se = unit_average(sigma_w ** 2 * h1[0] * h1[1] + sigma_b ** 2)
print(nh._("Σ⁽²⁾(x,x′): with the triple {correct:.4f}, shortcut {shortcut:.4f}, layer of 2^20 units "
           "{measured:.4f}").format(correct=correct, shortcut=shortcut, measured=monte_carlo))

# %% tags=["check"]
nh.check_close("the wide layer agrees with the triple (6 SE)", monte_carlo, correct, atol=6 * mc_se)
nh.check_that("the shortcut misses the wide layer by more than 6 SE", abs(shortcut - monte_carlo) > 6 * mc_se,
              measured=abs(shortcut - monte_carlo), expected=6 * mc_se)
nh.check_close("|x′|² and |x|²", [float(pair[1] @ pair[1]), float(pair[0] @ pair[0])], [3.15, 1.0],
               rtol=1e-12)
nh.check_close("question 1 at the end: shortcut, triple, wide layer", [shortcut, correct, monte_carlo],
               [0.686, 0.806, 0.807], atol=5e-4)

# %% [markdown]
# ## 4.1.2 Kernel collapse: what depth does
#
# **Indexing, once for the rest of the lesson.** A network of *depth* $L$ has $L$ hidden layers; its output is layer
# $L+1$, so the kernels shown at depth $L$ are $\Sigma^{(L+1)}$ and $\Theta^{(L+1)}$ (depth 1 shows $\Sigma^{(2)}$).
#
# Take ReLU at the usual initialization $\sigma_w^2 = 2$ (He et al. 2015), $\sigma_b = 0$. The formulas of 4.1.1 say
# at once that **nothing dies**: the variance map is $q_{l+1} = q_l$, so every layer has the same variance, and on
# the diagonal $\dot\Sigma(x,x) = \sigma_w^2\cdot\tfrac12 = 1$ exactly, so the backward signal of one input neither
# grows nor shrinks. What changes with depth is the **angle** between two inputs.
#
# ### The correlation map
#
# With $q$ fixed, one layer maps the correlation $c = \cos\theta$ of two inputs to (divide the arc-cosine formula
# by $q/2$)
#
# $$c_{l+1} = \rho(c_l), \qquad \rho(c) = \frac{\sqrt{1-c^2} + (\pi - \arccos c)\,c}{\pi}.$$
#
# $\rho(1) = 1$ and $\rho(c) > c$ for every $c < 1$, so every pair of inputs is driven towards correlation 1.
# Iterating a map is easiest to see as a *cobweb*: from $c_0$ go up to the curve (that is $c_1$), across to the
# diagonal, up to the curve again, and so on; each step of the staircase is one layer.

# %%
c = torch.linspace(-1, 1, 201, dtype=torch.float64)
path = nh.correlation_trajectory(torch.tensor(0.0, dtype=torch.float64), 12, "relu")   # c_0 = 0, ..., c_12
stairs = path.repeat_interleave(2)                                             # c0 c0 c1 c1 c2 c2 ...
fig, ax = plt.subplots(figsize=(5.2, 4.8))
ax.plot(c, nh.correlation_map(c, "relu"), label="ReLU, σ_w² = 2")
ax.plot(c, c, "k--", lw=1, label="c′ = c")
ax.plot(stairs[:-1], stairs[1:], color=nh.plotting.PALETTE[1], lw=1.2, label=nh._("12 layers from c₀ = 0"))
ax.set_xlabel(nh._("correlation c at layer l"))
ax.set_ylabel(nh._("correlation c′ at layer l + 1"))
ax.set_title(nh._("Each layer is one step; near c = 1 the steps shrink"))
ax.legend(loc="upper left", fontsize=9)
plt.show()

# %% [markdown]
# **Explain, then predict.** (a) Why do the steps shrink near $c = 1$? (b) Twelve layers took the correlation from
# 0 to 0.897. How many layers does it take to pass 0.999? Write down a number, then find where the curve of the
# next figure crosses $10^{-3}$.
#
# <details><summary>Answer</summary>
#
# (a) The curve touches the diagonal at $c = 1$ with slope exactly 1, so near 1 the gap $\rho(c) - c$ between curve
# and diagonal, which is the length of the next step, shrinks faster than $1 - c$ itself. The fixed point $c^* = 1$
# attracts, but only *marginally*: the approach is polynomial, not exponential.
#
# (b) 199 layers. Already 0.99 takes 57: 45 layers for the last 0.09, almost four times the 12 for the first
# 0.897. Each layer closes a smaller fraction of the remaining gap $1 - c$ than the one before: the first closes
# about a third of it (the staircase jumps from 0 to 0.32), later layers ever less. So the gap falls only like a
# power of $l$. If you scaled the gap 0.103 at $l = 12$ by $(12/l)^2$, you got about 122 layers: too few, because
# the law $1 - c_l \approx 9\pi^2/(2l^2)$, derived next, holds only for large $l$; at $l = 12$ it would give 0.31,
# three times the true gap.
#
# </details>

# %% tags=["check"]
h_step = 1e-6                                 # the finite difference itself is off by about 0.3 √h = 3e-4
slope_at_one = (1 - nh.correlation_map(torch.tensor(1 - h_step, dtype=torch.float64), "relu")) / h_step
nh.check_close("slope of ρ at c = 1 (finite difference)", slope_at_one, 1.0, atol=1e-3)
gap = nh.correlation_map(c[:-1], "relu") - c[:-1]
nh.check_that("ρ(c) > c for every c < 1 on the grid", bool((gap > 0).all()), measured=float(gap.min()),
              expected="> 0")
nh.check_that("the steps of the staircase shrink", bool((path.diff()[1:] < path.diff()[:-1]).all()))
longer = nh.correlation_trajectory(torch.tensor(0.0, dtype=torch.float64), 100, "relu")   # c_0 .. c_100
closed = longer.diff() / (1 - longer[:-1])                    # the share of the gap that each layer closes
nh.check_close("answer (b): c after 12 layers", path[12], 0.897, atol=5e-4)
passes = int((longer > 0.99).nonzero()[0])
nh.check_that("answer (b): the correlation first passes 0.99 after 57 layers", passes == 57, measured=passes,
              expected=57)
farther = nh.correlation_trajectory(torch.tensor(0.0, dtype=torch.float64), 300, "relu")
passes = int((farther > 0.999).nonzero()[0])
nh.check_that("answer (b): the correlation first passes 0.999 after 199 layers", passes == 199,
              measured=passes, expected=199)
nh.check_close("answer (b): the gap at l = 12 scaled by (12/l)² reaches 10⁻³ at l ≈ 122",
               12 * math.sqrt((1 - float(path[12])) / 1e-3), 122, atol=1)
law_at_12 = 9 * math.pi ** 2 / (2 * 12 ** 2)
nh.check_close("answer (b): 9π²/(2l²) at l = 12, about three times the true gap",
               [law_at_12, law_at_12 / (1 - float(path[12]))], [0.31, 3.0], atol=0.01)
nh.check_that("answer (b): each layer closes a smaller fraction of the gap", bool((closed.diff() < 0).all()))
nh.check_close("answer (b): the fraction of the gap that the first layer closes (1/π)", closed[0],
               1 / math.pi, rtol=1e-12)

# %% [markdown]
# ### Why $1/l^2$: a three-line derivation
#
# Expand $\rho$ for a small angle $\theta$: $\sin\theta + (\pi - \theta)\cos\theta = \pi - \pi\theta^2/2 + \theta^3/3 +
# O(\theta^4)$, so
#
# $$\cos\theta_{l+1} = 1 - \frac{\theta_l^2}{2} + \frac{\theta_l^3}{3\pi} + O(\theta_l^4)
#   \quad\Longrightarrow\quad \theta_{l+1} = \theta_l - \frac{\theta_l^2}{3\pi} + O(\theta_l^3).$$
#
# Then $1/\theta_{l+1} = 1/\theta_l + 1/(3\pi) + O(\theta_l)$: the inverse angle grows by $1/(3\pi)$ per layer, so
# $\theta_l \approx 3\pi/l$ and
#
# $$1 - c_l = 1 - \cos\theta_l \approx \frac{\theta_l^2}{2} \approx \frac{9\pi^2}{2l^2}.$$
#
# The exact iteration, from orthogonal inputs, against this law:

# %%
layers = torch.arange(0, 1001)
trajectory = nh.correlation_trajectory(torch.tensor([0.0], dtype=torch.float64), 1000, "relu")[:, 0]
fig, ax = plt.subplots()
ax.loglog(layers[1:], 1 - trajectory[1:], label=nh._("1 − c_l (orthogonal inputs)"))
ax.loglog(layers[10:], 9 * math.pi ** 2 / (2 * layers[10:] ** 2), "k--", lw=1, label="9π²/(2l²)")
ax.set_xlabel(nh._("layer l"))
ax.set_ylabel("1 − c_l")
ax.set_title(nh._("Correlations reach 1 polynomially: 1 − c_l ≈ 9π²/(2l²)"))
ax.legend()
plt.show()

# %% tags=["check"]
ratio = (1 - trajectory[1000]) * 1000 ** 2 / (9 * math.pi ** 2 / 2)
nh.check_between("(1 − c_l) / (9π²/(2l²)) at l = 1000 (the O(θ) terms make it approach 1 from below)", ratio,
                 0.9, 1.0)

# %% [markdown]
# ### NNGP → constant, NTK → ¾ I + ¼ 11ᵀ
#
# The NNGP of a deep network is the last layer's covariance, $q\,c_L \to q$: normalized, it tends to 1 for every
# pair of inputs, a constant kernel. The NTK remembers more, because it is a sum over layers (step 2):
#
# $$\Theta^{(L+1)}(x,x') = \sum_{l=1}^{L+1}\Sigma^{(l)}(x,x')\prod_{k=l+1}^{L+1}\dot\Sigma^{(k)}(x,x').$$
#
# - On the diagonal every factor is exact: $\Sigma^{(l)}(x,x) = q$ and $\dot\Sigma^{(k)}(x,x) = 1$, so
#   $\Theta^{(L+1)}(x,x) = (L+1)\,q$.
# - Off the diagonal $\Sigma^{(l)}(x,x') = q\,c_{l-1} \to q$, but the backward factors stay below 1. Layer $k$'s
#   factor is $\dot\Sigma^{(k)}(x,x') = \sigma_w^2\,\frac{\pi-\theta}{2\pi} = 1 - \frac{\theta}{\pi}$, where $\theta$
#   is the angle between the two inputs' pre-activations one layer below. After about $k$ layers that angle is
#   $\theta \approx 3\pi/k$ (the derivation above; strictly the factor of layer $k$ uses the angle $\theta_{k-1}$ one
#   layer below, but for large $k$, $3\pi/(k-1) \approx 3\pi/k$), so
#   the factor is about $1 - 3/k$, and the product of the factors is a power law:
#   $\prod_{k=l+1}^{L+1}\bigl(1 - \frac3k\bigr) \approx \exp\bigl(-3\sum_{k=l+1}^{L+1}\frac1k\bigr) \approx \bigl(\frac lL\bigr)^3$.
# - So layer $l$ adds about $q\,(l/L)^3$ to $\Theta(x,x')$ but $q$ to $\Theta(x,x)$, and
#
# $$\frac{\Theta^{(L+1)}(x,x')}{\Theta^{(L+1)}(x,x)} \approx \frac1{L+1}\sum_{l=1}^{L+1}\Bigl(\frac lL\Bigr)^3
#   \;\longrightarrow\; \int_0^1 u^3\,du = \frac14 .$$
#
# The limit is the same for every pair of distinct inputs of equal length, whatever their angle: on $n$ such
# inputs the normalized NTK tends to $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$. Two orthogonal inputs, up to
# depth 1000:

# %%
orthogonal = nh.pair_at_angle(math.pi / 2, d=2)
deep = nh.mlp_kernels_by_depth(orthogonal, depth=1000, activation="relu")
ntk_corr = deep.ntk[:, 0, 1] / deep.ntk[:, 0, 0]
nngp_corr = deep.nngp[:, 0, 1] / deep.nngp[:, 0, 0]
fig, ax = plt.subplots()
ax.semilogx(deep.depths, nngp_corr, label="NNGP  Σ(x,x′)/Σ(x,x)")
ax.semilogx(deep.depths, ntk_corr, label="NTK  Θ(x,x′)/Θ(x,x)")
ax.axhline(0.25, color="k", ls="--", lw=1, label="1/4")
ax.set_xlabel(nh._("depth L"))
ax.set_ylabel(nh._("normalized kernel, orthogonal inputs"))
ax.set_title(nh._("The NNGP forgets the angle; the normalized NTK settles at ¼"))
ax.legend()
plt.show()

# %%
print(nh._("depth 1000: normalized NNGP {nngp:.4f}, normalized NTK {ntk:.4f}, Θ(x,x) = {theta:.0f} = (L+1)·q")
      .format(nngp=float(nngp_corr[-1]), ntk=float(ntk_corr[-1]), theta=float(deep.ntk[-1, 0, 0])))
peak = int(ntk_corr.argmax())
print(nh._("normalized NTK: largest {peak:.3f} at depth {at}; {at_100:.4f} at depth 100").format(
    peak=float(ntk_corr[peak]), at=int(deep.depths[peak]), at_100=float(ntk_corr[99])))
k = torch.tensor([10, 100])
damping = k * torch.arccos(trajectory[k - 2]) / math.pi          # layer k's factor is 1 − θ/π = 1 − damping/k
print(nh._("backward factors 1 − a/k: a = {a_10:.2f} at k = 10, {a_100:.2f} at k = 100 (large k: a → 3)")
      .format(a_10=float(damping[0]), a_100=float(damping[1])))

# %% [markdown]
# **Why the bump?** The normalized NTK does not fall straight to ¼: it first climbs above 0.3 near $L = 10$.
# Which approximation of the derivation fails at small depth? The last printed line is a hint.
#
# <details><summary>Answer</summary>
#
# The backward factor $1 - \theta/\pi \approx 1 - 3/k$ uses the large-$k$ angle $\theta \approx 3\pi/k$. In the
# first layers the angle is still well below $3\pi/k$ (which even exceeds π for $k < 3$), so the factors damp less:
# written $1 - a/k$, they have $a = 1.86$ at $k = 10$ and $a = 2.74$ at $k = 100$, not 3. With a constant $a$ the
# weights $(l/L)^a$ would give the ratio $1/(a+1)$, above ¼ while $a < 3$. As $a$ creeps towards 3 the curve comes
# down, slowly: largest 0.316 at $L = 11$, 0.2725 at $L = 100$, 0.2533 at $L = 1000$. (The climb at the very start
# is the forward factor: orthogonal inputs start from $\Sigma^{(1)}(x,x') = 0$.)
#
# </details>

# %% tags=["check"]
nh.check_between("normalized NNGP at depth 1000", nngp_corr[-1], 0.999, 1.0)
nh.check_close("normalized NTK at depth 1000 (0.2533, still approaching 1/4)", ntk_corr[-1], 0.2533,
               atol=5e-5)
with_bias = nh.mlp_kernels_by_depth(orthogonal, depth=1000, activation="relu", sigma_b=0.5).ntk[-1]
nh.check_between("the ¼ limit needs σ_b = 0: with σ_b = 0.5 the normalized NTK at depth 1000 heads for 4/7",
                 with_bias[0, 1] / with_bias[0, 0], 0.55, 4 / 7)
nh.check_close("Θ(x,x) at depth 1000 = (L+1) q = 2002", deep.ntk[-1, 0, 0], 1001 * 2.0, rtol=1e-12)
nh.check_close("the bump: largest normalized NTK, and at depth 100", [ntk_corr[peak], ntk_corr[99]],
               [0.316, 0.2725], atol=5e-4)
nh.check_that("the bump: the largest normalized NTK is at depth 11", int(deep.depths[peak]) == 11,
              measured=int(deep.depths[peak]), expected=11)
nh.check_close("the bump: a at k = 10 and k = 100", damping, [1.86, 2.74], atol=5e-3)
every_k = torch.arange(2, 1001)
nh.check_that("the bump: a < 3 at every k ≤ 1000 (the factors damp less than 1 − 3/k)",
              bool((every_k * torch.arccos(trajectory[every_k - 2]) / math.pi < 3).all()))
# Layer k's factor read off the kernels: Σ̇^(k) = (Θ^(k) − Σ^(k)) / Θ^(k−1), where deep.ntk[L − 1] is Θ^(L+1).
factor = lambda k: (deep.ntk[k - 2, 0, 1] - deep.nngp[k - 2, 0, 1]) / deep.ntk[k - 3, 0, 1]
nh.check_close("the bump: a = k (1 − Σ̇⁽ᵏ⁾) from the kernels, k = 10 and 100", [10 * (1 - factor(10)),
               100 * (1 - factor(100))], damping, rtol=1e-9)

# %% [markdown]
# A constant plus a multiple of the identity is **full rank**. To count how many directions a kernel matrix $K$
# really uses, the course uses its **effective rank** (lesson 08)
#
# $$r_\text{eff}(K) = \frac{(\operatorname{tr} K)^2}{\operatorname{tr}(K^2)} = \frac{\bigl(\sum_i\lambda_i\bigr)^2}{\sum_i\lambda_i^2},$$
#
# which is $n$ for the $n\times n$ identity and 1 for a matrix of rank one. For $\tfrac34 I + \tfrac14\mathbf 1\mathbf
# 1^\top$ it is $16n/(n+15)$ (a question at the end derives it), 12.3 for $n = 50$. On 50 random points of the
# sphere of radius $\sqrt d$ in $\mathbb R^{10}$ (so $x\cdot x/d = 1$), at depth 500:

# %%
points = nh.sphere(50, d=10, seed=2)
deep50 = nh.mlp_kernels_by_depth(points, depth=500, activation="relu")
r_ntk = nh.effective_rank(nh.normalize(deep50.ntk[-1]))
r_nngp = nh.effective_rank(deep50.nngp[-1])
smallest = float(nh.eigenvalues(nh.normalize(deep50.ntk[-1]))[-1])
print(nh._("depth 500, n = 50: r_eff(NTK) = {r_ntk:.2f} (limit 16n/(n+15) = {limit:.2f}), r_eff(NNGP) = "
           "{r_nngp:.4f}; smallest eigenvalue of the normalized NTK {smallest:.3f} (limit 3/4)").format(
    r_ntk=r_ntk, limit=16 * 50 / 65, r_nngp=r_nngp, smallest=smallest))

# %% tags=["check"]
nh.check_close("r_eff of the normalized NTK vs 16n/(n+15) (10 %: depth 500 is not yet the limit)", r_ntk,
               16 * 50 / 65, rtol=0.1)
nh.check_between("r_eff of the NNGP at depth 500 (→ 1)", r_nngp, 1.0, 1.01)
nh.check_between("smallest eigenvalue of the normalized NTK (limit 3/4)", smallest, 0.7, 0.8)

# %% [markdown]
# ### What collapse costs: generalization
#
# Kernel regression with the NTK, $\hat f(x) = \Theta(x,X)\,\Theta(X,X)^{-1}y$, is the **mean** prediction of infinitely
# wide networks trained to convergence by gradient descent on the squared loss, averaged over their random
# initializations. (A single such network adds $f_0(x) - \Theta(x,X)\Theta(X,X)^{-1}f_0(X)$, where $f_0$ is its random
# function at initialization; Lee et al. 2019, and lesson [07](07_training_dynamics.ipynb).) With a deep ReLU NTK:
#
# - on a training point it returns the label exactly, because $\Theta(X,X)$ is full rank;
# - off the training set, $\Theta(x, x_i)/\Theta(x,x) \approx \tfrac14$ for *every* training point $x_i$ and every
#   new $x$, so the prediction is nearly the same number everywhere.
#
# A smooth target on the sphere of radius $\sqrt{10}$ in $\mathbb R^{10}$ ($x\cdot x/d = 1$), 100 training and 200
# test points, and the NTKs of depth 1 to 50:

# %%
data = nh.sphere(300, d=10, seed=1)
direction_a, direction_b = nh.sphere(2, d=10, seed=7) / math.sqrt(10)
target = lambda X: torch.cos(2 * X @ direction_a / math.sqrt(10)) + X @ direction_b / math.sqrt(10)
y = target(data)
train, test = slice(0, 100), slice(100, 300)
depths = [1, 2, 5, 20, 50]
by_depth = nh.mlp_kernels_by_depth(data, depth=max(depths), activation="relu")
predictions = {L: nh.kernel_regression(by_depth.ntk[L - 1][train, train], by_depth.ntk[L - 1][test, train],
                                       y[train]) for L in depths}
test_mse = [float(((predictions[L] - y[test]) ** 2).mean()) for L in depths]
spread = float(predictions[50].std() / predictions[1].std())
print(nh._("test MSE by depth {depths}: {mse}; variance of the test labels {variance:.3f}").format(
    depths=depths, mse=", ".join(f"{v:.4f}" for v in test_mse), variance=float(y[test].var())))
print(nh._("spread of the test predictions (standard deviation), depth 50 / depth 1: {ratio:.3f}").format(
    ratio=spread))

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.semilogy(depths, test_mse, "o-", label=nh._("NTK regression"))
left.axhline(float(y[test].var()), color="k", ls="--", lw=1, label=nh._("predict the mean"))
left.set_xlabel(nh._("depth L"))
left.set_ylabel(nh._("test MSE"))
left.set_title(nh._("Test error rises with depth"))
left.legend()
for L, colour in ((1, 0), (50, 1)):
    right.plot(y[test], predictions[L], ".", color=nh.plotting.PALETTE[colour],
               label=nh._("depth {depth}").format(depth=L))
right.plot([-0.2, 1.8], [-0.2, 1.8], "k--", lw=1)                              # prediction = target
right.set_xlabel(nh._("target y on a test point"))
right.set_ylabel(nh._("prediction"))
right.set_title(nh._("At depth 50 the predictions are nearly flat"))
right.legend()
plt.show()

# %% tags=["check"]
fit = nh.kernel_regression(by_depth.ntk[49][train, train], by_depth.ntk[49][train, train], y[train])
nh.check_close("depth 50 still fits every training label", fit, y[train], atol=1e-6)
nh.check_that("the test MSE grows with every depth step", all(a < b for a, b in zip(test_mse, test_mse[1:])),
              measured=str([round(v, 4) for v in test_mse]), expected="increasing")
nh.check_between("test MSE at depth 50 / variance of the labels (near predicting the mean)",
                 test_mse[-1] / float(y[test].var()), 0.5, 1.0)
nh.check_between("spread of the test predictions, depth 50 / depth 1 (they flatten)", spread, 0.0, 0.25)
nh.check_close("question 5 at the end: the spread ratio, the test MSE at depth 50, the label variance",
               [spread, test_mse[-1], float(y[test].var())], [1 / 6, 0.101, 0.129], atol=5e-3)
nh.check_close("question 5: the spread ratio, printed as 0.171", spread, 0.171, atol=5e-4)
ones = torch.ones(100, dtype=torch.float64)
limit_kernel = 0.75 * torch.eye(100, dtype=torch.float64) + 0.25 * ones[:, None] * ones[None, :]
nh.check_close("question 5: ¼ 1ᵀ(¾I + ¼11ᵀ)⁻¹y = n ȳ/(n + 3)",
               0.25 * ones @ torch.linalg.solve(limit_kernel, y[train]), 100 / 103 * y[train].mean(),
               rtol=1e-10)
nh.check_close("question 5: ȳ of the training labels and n ȳ/(n + 3)",
               [y[train].mean(), 100 / 103 * y[train].mean()], [0.807, 0.783], atol=5e-4)
nh.check_close("question 5: the mean of the depth-50 test predictions", predictions[50].mean(), 0.793,
               atol=5e-4)

# %% [markdown]
# ## Order and chaos (tanh, erf)
#
# For a bounded activation with a bias, the variance map has a fixed point $q^* > 0$, reached within a few layers (unless
# $\sigma_w^2\phi'(0)^2 \approx 1$ and $\sigma_b$ is small: at tanh, $\sigma_w = 1$, $\sigma_b = 0.05$ it takes about 40 layers to
# come within 1 %).
# Once both inputs have the variance $q^*$, one layer maps their correlation by the general **correlation map**
#
# $$c_{l+1} = \rho(c_l), \qquad \rho(c) = \frac{\sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2}{q^*}, \qquad
#   (u, v) \sim \mathcal N\Bigl(0,\ q^*\begin{pmatrix}1 & c\\ c & 1\end{pmatrix}\Bigr)$$
#
# (for ReLU at $\sigma_w^2 = 2$ without a bias it is the $\rho$ of 4.1.2, at any $q$).
#
# **Its slope is $\dot\Sigma$.** For a centred Gaussian pair, $\partial\,\mathbb E[\phi(u)\phi(v)] / \partial\,
# \mathrm{Cov}(u,v) = \mathbb E[\phi'(u)\phi'(v)]$ at fixed variances (Price's theorem, or Gaussian integration by
# parts). Here $\mathrm{Cov}(u,v) = q^*c$, so the $q^*$ cancels:
#
# $$\rho'(c) = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)] = \dot\Sigma(x,x'),$$
#
# the $\dot\Sigma$ of a pair of inputs at correlation $c$. At $c = 1$ this is the number that decides the fate of
# correlations (Poole et al. 2016; Schoenholz et al. 2017):
#
# $$\chi_1 = \rho'(1) = \sigma_w^2\,\mathbb E_{z\sim\mathcal N(0,1)}\bigl[\phi'(\sqrt{q^*}\,z)^2\bigr] = \dot\Sigma(x,x),$$
#
# the factor by which every layer scales the squared norm of a backpropagated gradient (step 2). For ReLU at
# $\sigma_w^2 = 2$, $\dot\Sigma(x,x) = 1$: that is why its map has slope exactly 1 at $c = 1$.

# %% [markdown]
# **Three phases.** Whether $\chi_1$ is below, above or at 1 decides what depth does. In each phase the **depth
# scale** counts the layers over which the remaining distance shrinks by a factor $e$.
#
# - $\chi_1 < 1$, **ordered**: all inputs become perfectly correlated, exponentially fast: $1 - c$ shrinks by about
#   $\chi_1$ per layer (depth scale $-1/\ln\chi_1$). The NTK tends, more slowly than the NNGP, to the constant matrix
#   $q^*/(1-\chi_1)\,\mathbf 1\mathbf 1^\top$: rank one, so gradient descent can move all outputs only together.
# - $\chi_1 > 1$, **chaotic**: $c = 1$ repels, and correlations settle at the stable fixed point $c^* < 1$ of $\rho$,
#   where the slope $\chi_c = \rho'(c^*)$ is below 1. Pairs more correlated than $c^*$ are pushed apart, less
#   correlated ones pulled together, and the distance to $c^*$ shrinks by about $\chi_c$ per layer (depth scale
#   $-1/\ln\chi_c$). $\Theta(x,x)$ grows like $\chi_1^l$, while off the diagonal the recursion becomes
#   $\Theta(x,x') \leftarrow q^*c^* + \chi_c\,\Theta(x,x')$, which stays bounded (it tends to $q^*c^*/(1-\chi_c)$). So
#   the normalized NTK tends to the identity: every input looks unrelated to every other, and off the training set
#   kernel regression with it predicts values that shrink towards 0 as the depth grows.
# - $\chi_1 = 1$, the **edge of chaos**: the slow, polynomial regime, like ReLU at $\sigma_w^2 = 2$.
#
# ReLU has phases too once it has a bias: for $\sigma_w^2 < 2$ its variance map has the fixed point
# $q^* = \sigma_b^2/(1 - \sigma_w^2/2)$ and $\chi_1 = \sigma_w^2/2 < 1$, so it is ordered (never chaotic: for
# $\sigma_w^2 > 2$ the variance grows without bound).
#
# The phase diagram of tanh colours $\log\chi_1$. Its green stretch along the bottom is a fourth, degenerate case,
# taken up after the next two figures.

# %%
sigma_w2_grid = torch.linspace(0.5, 4.0, 36, dtype=torch.float64)
sigma_b2_grid = torch.linspace(0.0, 0.5, 26, dtype=torch.float64)
chi = nh.chi1("tanh", sigma_w=sigma_w2_grid[None, :].sqrt(),        # the axes show the squares σ_w², σ_b²
              sigma_b=sigma_b2_grid[:, None].sqrt())                  # (26, 36)

fig, ax = plt.subplots()
log_chi = torch.log(chi)
norm = colors.TwoSlopeNorm(vmin=float(log_chi.min()), vcenter=0.0, vmax=float(log_chi.max()))   # 0 = white
image = ax.pcolormesh(sigma_w2_grid, sigma_b2_grid, log_chi, cmap="RdBu_r", norm=norm, shading="auto")
ax.contour(sigma_w2_grid, sigma_b2_grid, chi, levels=[1.0], colors="k")
ax.plot([], [], "k-", label=nh._("edge of chaos, χ₁ = 1"))
ax.plot([1.761], [0.05], "k*", ms=12, label=nh._("a point on the edge of chaos (1.761, 0.05)"))
ax.plot([0.5, 1.0], [0.0, 0.0], color=nh.plotting.PALETTE[2], lw=6, label=nh._("q* = 0 (degenerate)"))
outline = [patheffects.withStroke(linewidth=3, foreground="black")]                # readable on dark blue
ax.text(0.7, 0.42, nh._("ordered\nχ₁ < 1"), fontsize=12, color="white", fontweight="bold",
        path_effects=outline)
ax.text(3.1, 0.3, nh._("chaotic\nχ₁ > 1"), fontsize=12)
ax.set_xlabel("σ_w²")
ax.set_ylabel("σ_b²")
ax.set_title(nh._("tanh: the line χ₁ = 1 separates order (blue) from chaos (red)"))
ax.legend(loc="lower right", fontsize=9)
plt.colorbar(image, ax=ax, label="log χ₁")
plt.show()

# %% tags=["check"]
edge = nh.chi1("tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05))
nh.check_close("χ₁ at the point (1.761, 0.05) on the edge of chaos (5e-3: its three digits)", edge, 1.0,
               atol=5e-3)

# %% [markdown]
# The correlation of two inputs through 40 tanh layers in each phase (labelled $(\sigma_w^2, \sigma_b^2)$, always with
# $\sigma_b^2 = 0.05$), from $c_0 = 0.2$ (solid) and from $c_0 = 0.95$ (dashed). Both inputs start at the variance
# $q_0 = 1$, not at $q^*$, so the first layers also carry the variance to its fixed point:

# %%
phases = {nh._("ordered (1.0, 0.05)"): 1.0, nh._("edge (1.761, 0.05)"): 1.761,  # σ_w² of each
          nh._("chaotic (3.0, 0.05)"): 3.0}
starts = torch.tensor([0.2, 0.95], dtype=torch.float64)
fig, ax = plt.subplots(figsize=(9.5, 4.2))
paths = []                                                                   # ordered, edge, chaotic
for index, (name, w2) in enumerate(phases.items()):
    paths.append(nh.correlation_trajectory(starts, 40, "tanh", sigma_w=math.sqrt(w2),
                                           sigma_b=math.sqrt(0.05)))                   # (41 layers, 2 starts)
    ax.plot(paths[-1][:, 0], color=nh.plotting.PALETTE[index], label=name)
    ax.plot(paths[-1][:, 1], "--", color=nh.plotting.PALETTE[index])
ax.plot([], [], "k-", label=nh._("from c₀ = 0.2"))
ax.plot([], [], "k--", label=nh._("from c₀ = 0.95"))
ax.set_xlabel(nh._("layer"))
ax.set_ylabel(nh._("correlation c_l"))
ax.set_title(nh._("Order pulls correlations to 1, the edge only slowly; chaos drives them to c* < 1 "
                  "from both sides"), fontsize=11)
ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0))     # outside: the curves cross inside
zoom = ax.inset_axes([1.08, 0.0, 0.3, 0.36])                                 # below the legend, outside
zoom.plot(paths[1][:13, 1], "--", color=nh.plotting.PALETTE[1])
zoom.axhline(0.95, color="k", ls=":", lw=1)
zoom.set_title(nh._("zoom: the edge from 0.95 first dips"), fontsize=9)
zoom.tick_params(labelsize=8)
plt.show()
chaotic_w2 = list(phases.values())[-1]
chaos = nh.signal_regime("tanh", sigma_w=math.sqrt(chaotic_w2), sigma_b=math.sqrt(0.05))
print(nh._("chaotic (σ_w² = {w2}): χ₁ = {chi:.3f}, c* = {c_star:.3f}, depth scale {scale:.1f} layers").format(
    w2=chaotic_w2, chi=chaos.chi1, c_star=chaos.c_star, scale=chaos.depth_scale))

# %% [markdown]
# The edge's dashed curve first dips, from 0.950 to 0.944 in four layers (zoom, right), and only then rises. That
# is the start at $q_0 = 1$, above the edge's $q^* = 0.57$.
#
# - **The slope while $q$ moves.** Layer $l+1$ gives $c_{l+1} = (\sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2)/q_{l+1}$
#   with $\mathrm{Cov}(u,v) = q_l c_l$, so Price's theorem gives the slope $\partial c_{l+1}/\partial c_l =
#   \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]\,q_l/q_{l+1}$; at $c = 1$ it is
#   $\sigma_w^2\,\mathbb E[\phi'(\sqrt{q_l}\,z)^2]\,q_l/q_{l+1}$.
# - **Above 1 at every layer.** While the variance shrinks, $q_l/q_{l+1} > 1$ lifts that slope above 1: 1.099, 1.043,
#   1.021, 1.010, 1.005 in the first five layers, approaching 1 as $q_l \to q^*$. So near $c = 1$ every layer
#   pushes the pair apart a little.
# - **Why the dip ends.** The slope at 1 fixes only the tangent there; the map curves upwards, so at $c = 0.944$ it
#   lies a little above that tangent. After four layers the slope is so close to 1 that this curvature wins, and
#   the correlation rises. Started at $q_0 = q^*$, the dashed curve rises at every layer.
#
# **Predict, then run.** In the cell above, raise the chaotic $\sigma_w^2$ from 3.0 to 4.0 (make the last entry of
# `phases` read `"chaotic (4.0, 0.05)": 4.0`) and run it again. Will $c^*$ be higher or lower, and will the dashed
# curve get there in fewer or more layers? (Set it back to 3.0 afterwards.) Hint: $c^*$ is where $\rho$ crosses the
# diagonal, and $\rho$ runs from $\rho(0) = \sigma_b^2/q^*$ (tanh is odd) to $\rho(1) = 1$ with slope $\chi_1$ there.
# Which way do $q^*$ and $\chi_1$ move when $\sigma_w^2$ grows?
#
# <details><summary>Answer</summary>
#
# Lower, and faster: $c^* = 0.165$ instead of 0.299. A larger $\sigma_w^2$ raises $q^*$, so $\rho(0) = \sigma_b^2/q^*$ drops,
# and it steepens $\rho$ at 1 ($\chi_1 = 1.342$ instead of 1.209): the curve meets the diagonal lower. The speed is set
# by the slope at $c^*$: the distance to $c^*$ shrinks by $\chi_c = 0.867$ per layer instead of 0.895 (depth scale
# $-1/\ln\chi_c$ 7.0 layers instead of 9.1), and the dashed curve is down to about 0.33 after 20 layers instead of 40.
#
# </details>

# %% tags=["check"]
nh.check_between("ordered: correlation after 40 layers, from both starts", paths[0][-1].min(), 0.999,
                 1.0)
nh.check_close("chaotic: correlation after 40 layers from c₀ = 0.2 vs c* (depth scale 9 layers: 3e-3)",
               paths[2][-1, 0], chaos.c_star, atol=3e-3)
nh.check_that("chaotic: from c₀ = 0.95 the correlation falls at every layer (inputs pushed apart)",
              bool((paths[2][:, 1].diff() < 0).all()))
nh.check_that("ordered > edge > chaotic after 40 layers, from c₀ = 0.2",
              bool(paths[0][-1, 0] > paths[1][-1, 0] > paths[2][-1, 0]),
              measured=str([round(float(p[-1, 0]), 4) for p in paths]), expected="decreasing")
hotter = nh.signal_regime("tanh", sigma_w=2.0, sigma_b=math.sqrt(0.05))                 # σ_w² = 4
hotter_path = nh.correlation_trajectory(starts, 40, "tanh", sigma_w=2.0, sigma_b=math.sqrt(0.05))
nh.check_close("the answer: χ₁, c*, depth scale at σ_w² = 3 and 4",
               [chaos.chi1, chaos.c_star, chaos.depth_scale, hotter.chi1, hotter.c_star, hotter.depth_scale],
               [1.209, 0.299, 9.05, 1.342, 0.165, 6.98], atol=6e-3)
nh.check_close("the answer: the dashed curve after 20 layers at σ_w² = 4 and after 40 at σ_w² = 3",
               [hotter_path[20, 1], paths[2][40, 1]], [0.33, 0.33], atol=0.01)
# The chaotic depth scale is −1/ln χ_c, χ_c = ρ′(c*) = Σ̇(x,x′) at c* (central difference of one layer at q*).
one_layer = lambda c0: float(nh.correlation_trajectory(torch.tensor(c0, dtype=torch.float64), 1, "tanh",
                                                       sigma_w=math.sqrt(3.0), sigma_b=math.sqrt(0.05),
                                                       q0=chaos.q_star)[1])
chi_c = (one_layer(chaos.c_star + 1e-5) - one_layer(chaos.c_star - 1e-5)) / 2e-5
nh.check_close("chaotic depth scale = −1/ln ρ′(c*)", chaos.depth_scale, -1 / math.log(chi_c), rtol=1e-6)
nh.check_close("ρ′(1) = χ₁ (one-sided difference: 1e-4)", (1 - one_layer(1 - 1e-6)) / 1e-6, chaos.chi1,
               rtol=1e-4)
chaotic_pair = nh.mlp(60, "tanh", sigma_w=math.sqrt(3.0), sigma_b=math.sqrt(0.05)).kernel(
    nh.pair_at_angle(math.pi / 3)).ntk
nh.check_close("chaotic: Θ(x,x′) at depth 60 vs q*c*/(1 − χ_c) (2 %: still approaching)", chaotic_pair[0, 1],
               chaos.q_star * chaos.c_star / (1 - chi_c), rtol=0.02)
edge_dashed = paths[1][:, 1]
nh.check_close("the dip: the edge's dashed curve at its lowest, 4 layers in", edge_dashed.min(), 0.944,
               atol=5e-4)
nh.check_that("the dip: lowest after 4 layers", int(edge_dashed.argmin()) == 4,
              measured=int(edge_dashed.argmin()), expected=4)
edge_regime = nh.signal_regime("tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05))
nh.check_close("the dip: the edge's q*", edge_regime.q_star, 0.57, atol=5e-3)
near_one = torch.tensor(1 - 1e-6, dtype=torch.float64)
first_slope = (1 - float(nh.correlation_trajectory(near_one, 1, "tanh", sigma_w=math.sqrt(1.761),
                                                   sigma_b=math.sqrt(0.05))[1])) / 1e-6
nh.check_close("the dip: the first layer's slope at c = 1, from q₀ = 1", first_slope, 1.10, atol=5e-3)
from_q_star = nh.correlation_trajectory(starts, 40, "tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05),
                                        q0=edge_regime.q_star)[:, 1]
nh.check_that("the dip: from q₀ = q* the dashed curve rises at every layer",
              bool((from_q_star.diff() > 0).all()))
near = nh.correlation_trajectory(torch.tensor(1 - 1e-7, dtype=torch.float64), 40, "tanh",
                                 sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05))
slopes = (1 - near[1:]) / (1 - near[:-1])                         # each layer's slope at c = 1, from q₀ = 1
nh.check_close("the dip: the slopes at c = 1 of the first five layers", slopes[:5],
               [1.099, 1.043, 1.021, 1.010, 1.005], atol=6e-4)
nh.check_that("the dip: the slope at c = 1 is above 1 at every one of the 40 layers",
              bool((slopes > 1).all()),
              measured=float(slopes.min()), expected="> 1")
tangent = 1 - slopes * (1 - edge_dashed[:-1])                     # each layer's tangent at c = 1, at c_l
nh.check_that("the dip: each layer's map lies above its tangent at c = 1 (it curves upwards)",
              bool((edge_dashed[1:] > tangent).all()))
nh.check_close("the answer: χ_c = exp(−1/depth scale) at σ_w² = 3 and 4",
               [math.exp(-1 / chaos.depth_scale), math.exp(-1 / hotter.depth_scale)], [0.895, 0.867],
               atol=5e-4)
nh.check_close("the answer: χ_c at σ_w² = 3 from the central difference", chi_c, 0.895, atol=5e-4)
nh.check_that("the hint: q* grows with σ_w² (3 → 4), so ρ(0) = σ_b²/q* drops",
              hotter.q_star > chaos.q_star,
              measured=str([round(chaos.q_star, 3), round(hotter.q_star, 3)]), expected="increasing")
nh.check_close("the hint: ρ(0) = σ_b²/q* for tanh at σ_w² = 3", one_layer(0.0), 0.05 / chaos.q_star,
               rtol=1e-9)

# %% [markdown]
# ### A degenerate case: no bias, small $\sigma_w$
#
# Take **no bias and a small $\sigma_w$**, $\sigma_w^2\phi'(0)^2 \le 1$ ($\sigma_w \le 1$ for tanh,
# $\sigma_w \le \sqrt\pi/2 \approx 0.89$ for erf). The variance map then has no fixed point above 0: the variance
# dies out, $q^* = 0$. On the phase diagram this is the green bottom edge $\sigma_b^2 = 0$, $\sigma_w^2 \le 1$, which
# ends where the edge-of-chaos line meets it, at $(1, 0)$.
#
# - **Gradients.** Below the boundary, $\sigma_w^2\phi'(0)^2 < 1$, the variance and the NTK's scale vanish
#   exponentially with depth, and so do the gradients that reach the early layers. (In the ordered phase only the
#   gradients do: there $q \to q^* > 0$ and $\Theta(x,x) \to q^*/(1-\chi_1)$.) *On* the boundary,
#   $\sigma_w^2\phi'(0)^2 = 1$, the variance falls only like $1/(2l)$, gradients shrink only polynomially, and
#   $\Theta(x,x)$ tends to ½, not to 0.
# - **Correlations** neither go to 1 nor approach a common $c^*$: the pre-activations shrink into the range where
#   $\phi$ is linear, the correlation map tends to the identity, and each pair's correlation *freezes*: it barely
#   moves from where it started.

# %% [markdown]
# The degenerate case, bias-free tanh at $\sigma_w = 0.5$, $0.8$ and on the boundary $\sigma_w = 1$: the variance
# $q_l$, the NTK's scale $\Theta(x,x)$ and the normalized NNGP at 60° (input correlation 0.5), over 100 layers. On
# the boundary the variance decays only like $1/(2l)$: there $\tanh(u)^2 \approx u^2 - \tfrac23u^4$ gives
# $q_{l+1} \approx q_l - 2q_l^2$, so $q_l \approx 1/(2l)$. Below it the decay is exponential. The inset of the middle
# panel shows $\Theta(x,x)$ at $\sigma_w = 1$ on a linear scale.
#
# In the right panel the dotted line is the input correlation 0.5. Already at depth 1 the curves lie below it: the
# first hidden layer has the variance $q_1 = \sigma_w^2$ (here $x\cdot x/d = 1$), too large for tanh to act linearly,
# and for an odd $\phi$ without a bias the correlation map has $\rho(c) < c$ for $0 < c < 1$ (its expansion in $c$
# has only odd powers).

# %%
layers_100 = torch.arange(1, 101)
fig, (left, middle, right) = plt.subplots(1, 3, figsize=(14, 3.9))
for index, small in enumerate((0.5, 0.8, 1.0)):
    kernels = sp.ring_kernels("tanh", small, 0.0)                          # depths 1..100, inputs on a circle
    style = dict(color=nh.plotting.PALETTE[index], label=f"σ_w = {small}")
    left.loglog(layers_100 + 1, kernels.variance, **style)                 # mlp(L)'s output: layer l = L + 1
    middle.semilogy(layers_100, kernels.ntk_scale, **style)
    right.plot(layers_100, kernels.nngp[:, sp.AT_60], **style)
left.loglog(layers_100 + 1, 1 / (2 * (layers_100 + 1.0)), "k--", lw=1, label="1/(2l)")
left.set_ylim(1e-12, 3)
middle.axhline(0.5, color="k", ls=":", lw=1)
linear = middle.inset_axes([0.1, 0.08, 0.42, 0.36])                       # empty lower left of the panel
linear.plot(layers_100, sp.ring_kernels("tanh", 1.0, 0.0).ntk_scale, color=nh.plotting.PALETTE[2])
linear.axhline(0.5, color="k", ls=":", lw=1)
linear.set_ylim(0, 1)
linear.set_title(nh._("σ_w = 1, linear scale"), fontsize=8)
linear.tick_params(labelsize=7)
right.axhline(0.5, color="k", ls=":", lw=1, label=nh._("input correlation 0.5"))
right.set_ylim(0.3, 0.7)
for ax, x_label, y_label, title in (
        (left, nh._("layer l = L + 1"), nh._("variance q_l"),
         nh._("The variance dies, like 1/(2l) at σ_w = 1")),
        (middle, nh._("depth L"), "Θ(x,x)",
         nh._("So does the NTK's scale, but not at σ_w = 1 (→ ½, inset)")),
        (right, nh._("depth L"), nh._("normalized NNGP at 60°"),
         nh._("The correlation stays below the input's 0.5, never nears 1"))):
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title, fontsize=11)
    ax.legend(fontsize=9, loc="center right" if ax is middle else "best")
plt.show()
boundary = nh.self_kernels_by_depth(1.0, depth=1000, activation="tanh", sigma_w=1.0, sigma_b=0.0)[1]
print(nh._("tanh, σ_w = 1, no bias: Θ(x,x) = {d10:.3f}, {d100:.3f}, {d1000:.3f} at depths 10, 100, 1000")
      .format(d10=float(boundary[9]), d100=float(boundary[99]), d1000=float(boundary[999])))

# %% [markdown]
# **Explain.** On the boundary $\sigma_w = 1$ the variance still goes to 0, yet $\Theta(x,x)$ levels off near ½.
# Where does the ½ come from? Hint: $\Theta(x,x) = \sum_l q_l\prod_{k>l}\dot\Sigma^{(k)}(x,x)$, and
# $\tanh'(u)^2 \approx 1 - 2u^2$ for small $u$.
#
# <details><summary>Answer</summary>
#
# With $q_l \approx 1/(2l)$, layer $k$'s backward factor on the diagonal is
# $\dot\Sigma^{(k)}(x,x) = \mathbb E[\tanh'(\sqrt{q_{k-1}}\,z)^2] \approx 1 - 2q_{k-1} \approx 1 - 1/k$, so the product
# of the factors above layer $l$ is about $l/L$: the squared gradient reaching layer $l$ shrinks only like $l/L$,
# polynomially. Then $\Theta(x,x) \approx \sum_l \frac1{2l}\cdot\frac lL = \frac12$: every layer contributes about
# $1/(2L)$. The printout approaches it: 0.616, 0.520, 0.503. Below the boundary the variance shrinks by a factor
# of about $\sigma_w^2$ per layer and each backward factor is about $\sigma_w^2 < 1$, so their product shrinks
# geometrically too, and $\Theta(x,x)$ falls exponentially: below $10^{-18}$ at depth 100 for $\sigma_w = 0.8$.
#
# </details>

# %% tags=["check"]
at_60_nngp = {s: sp.ring_kernels("tanh", s, 0.0).nngp[:, sp.AT_60] for s in (0.5, 0.8, 1.0)}   # depths 1..100
drift = {s: float(values[-1] / values[0]) - 1 for s, values in at_60_nngp.items()}
nh.check_between("relative drift of the 60° NNGP over 100 layers, σ_w = 0.5", abs(drift[0.5]), 0.0, 0.002)
nh.check_between("relative drift of the 60° NNGP over 100 layers, σ_w = 0.8", abs(drift[0.8]), 0.0, 0.02)
nh.check_between("relative drift of the 60° NNGP over 100 layers, σ_w = 1.0 (the boundary)", abs(drift[1.0]),
                 0.03, 0.10)
nh.check_that("the right panel's curves stay inside its limits 0.3 .. 0.7",
              all(0.3 < float(v.min()) and float(v.max()) < 0.7 for v in at_60_nngp.values()))
nh.check_that("the right panel: below the input correlation 0.5 from depth 1 on",
              all(float(v.max()) < 0.5 for v in at_60_nngp.values()))
nh.check_close("the right panel: depth 1 at σ_w = 0.5, 0.8, 1", [at_60_nngp[s][0] for s in (0.5, 0.8, 1.0)],
               [0.494, 0.482, 0.473], atol=5e-4)
nh.check_close("the inset: Θ(x,x) at σ_w = 1, depths 10 and 100",
               sp.ring_kernels("tanh", 1.0, 0.0).ntk_scale[[9, 99]], [0.616, 0.520], atol=5e-4)
nh.check_that("the correlation never moves towards 1", all(d < 0 for d in drift.values()),
              measured=str(drift), expected="every drift < 0")
nh.check_close("q at σ_w = 1 after 101 layers vs 1/(2l) (5 %: higher-order terms)",
               sp.ring_kernels("tanh", 1.0, 0.0).variance[-1] * 2 * 101, 1.0, rtol=0.05)
nh.check_between("Θ(x,x) at σ_w = 0.5, depth 100: the NTK's scale vanishes",
                 sp.ring_kernels("tanh", 0.5, 0.0).ntk_scale[-1], 0.0, 1e-50)
nh.check_between("Θ(x,x) at σ_w = 0.8, depth 100: below 1e-18",
                 sp.ring_kernels("tanh", 0.8, 0.0).ntk_scale[-1], 0.0, 1e-18)
nh.check_close("the boundary: Θ(x,x) at depths 10, 100, 1000", boundary[[9, 99, 999]], [0.616, 0.520, 0.503],
               atol=5e-4)
nh.check_close("the boundary: Θ(x,x) → ½ (depth 1000, 1 %)", boundary[-1], 0.5, rtol=0.01)
variances, scales = nh.self_kernels_by_depth(1.0, depth=1000, activation="tanh", sigma_w=1.0, sigma_b=0.0)
# The diagonal recursion Θ^(k) = Σ^(k) + Σ̇^(k) Θ^(k−1) gives layer k's factor; entry j holds layer j + 2.
factors = (scales[1:] - variances[1:]) / scales[:-1]                          # layers 3 .. 1001
above = lambda l: float(factors[l - 2:].prod())                               # layers l + 1 .. 1001
nh.check_close("the boundary: the product of the factors above layer l is about l/L (l = 100, 500; 3 %)",
               [above(100), above(500)], [100 / 1001, 500 / 1001], rtol=0.03)
erf_boundary = nh.self_kernels_by_depth(1.0, depth=1000, activation="erf", sigma_w=math.sqrt(math.pi) / 2)[1]
nh.check_close("the boundary: the same for erf at σ_w = √π/2 (depth 1000, 1 %)", erf_boundary[-1], 0.5,
               rtol=0.01)

# %% [markdown]
# And the NTK follows the phases: nearly rank one when ordered, the identity when chaotic (erf, depth 50, 20 points):

# %%
points20 = nh.sphere(20, d=10, seed=3)
ordered = nh.mlp(50, "erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
chaotic = nh.mlp(50, "erf", sigma_w=2.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
ordered_regime = nh.signal_regime("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05))
constant = ordered_regime.q_star / (1 - ordered_regime.chi1)
print(nh._("ordered: entries between {low:.3f} and {high:.3f}, q*/(1 − χ₁) = {constant:.3f}, "
           "r_eff = {rank:.3f}").format(low=float(ordered.min()), high=float(ordered.max()),
                                        constant=constant, rank=nh.effective_rank(ordered)))
print(nh._("chaotic: r_eff = {rank:.2f} of 20").format(rank=nh.effective_rank(chaotic)))

# %% tags=["check"]
nh.check_close("ordered NTK: every entry = q*/(1 − χ₁) (2 %)", ordered, torch.full_like(ordered, constant),
               rtol=0.02)
nh.check_between("ordered NTK: r_eff (nearly rank one)", nh.effective_rank(ordered), 1.0, 1.05)
nh.check_between("chaotic NTK: r_eff (the identity)", nh.effective_rank(chaotic), 19.9, 20.0)
nh.check_close("chaotic NTK: normalized, the identity", nh.normalize(chaotic),
               torch.eye(20, dtype=torch.float64), atol=1e-6)

# %% [markdown]
# ### Explore: depth, activation, scale
#
# The explorer draws the normalized NTK $\Theta(x,x')/\Theta(x,x)$ (solid) and NNGP $\Sigma(x,x')/\Sigma(x,x)$ (dashed)
# between a fixed input $x$ and inputs $x'$ at angle $\theta$ on the same circle, at the chosen depth, with depth 1
# drawn faint for reference. Above the plot a paragraph names the regime of the current settings, computed from
# $q^*$ and $\chi_1$ (it says "edge of chaos" whenever $|\chi_1 - 1| \le 1\,\%$, so a few settings just inside
# the ordered or chaotic side get that name); the title names the regime and gives both kernels at 60° (input correlation 0.5), so the
# saved figure of the starting settings (relu, $\sigma_w = \sqrt2$, no bias, depth 10) carries its numbers too.
# The $\sigma_w$ slider holds the exact value $\sqrt2$ ($\sigma_w^2 = 2$) between 1.40 and 1.45. Read the questions below first, predict, then move
# the sliders to check.

# %%
def draw_collapse(depth, activation, sigma_w, sigma_b):
    kernels = sp.ring_kernels(activation, sigma_w, sigma_b)             # every depth 1..100 at once, cached
    fig, ax = plt.subplots()
    for shown in sorted({1, depth}):
        alpha = 1.0 if shown == depth else 0.3                             # depth 1 faint, for reference
        ax.plot(sp.DEGREES, kernels.ntk[shown - 1], color=nh.plotting.PALETTE[0], alpha=alpha,
                label=nh._("NTK, depth {depth}").format(depth=shown))
        ax.plot(sp.DEGREES, kernels.nngp[shown - 1], "--", color=nh.plotting.PALETTE[1], alpha=alpha,
                label=nh._("NNGP, depth {depth}").format(depth=shown))
    ax.set_ylim(*sp.y_limits(kernels.ntk[[0, depth - 1]], kernels.nngp[[0, depth - 1]]))
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel(nh._("angle θ between the inputs (degrees)"))
    ax.set_ylabel(nh._("normalized kernel  K(x,x′)/K(x,x)"))
    ax.set_title(sp.figure_title(activation, sigma_w, sigma_b, depth), fontsize=11)
    ax.legend(fontsize=9)
    print(sp.report(activation, sigma_w, sigma_b, depth))


# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_collapse,
    depth=nh.widgets.depth_slider(10, max=100),
    activation=nh.widgets.activation_dropdown("relu", options=("relu", "tanh", "erf")),
    sigma_w=sp.sigma_w_slider(),
    sigma_b=nh.widgets.sigma_slider(nh._("sigma_b"), 0.0, max=1.0),
)

# %% [markdown]
# **1. Does $\sigma_w$ matter for ReLU without a bias?** With relu and $\sigma_b = 0$, move $\sigma_w$ from $\sqrt2$ to
# 1.00, then to 2.00. Predict how the curves change.
#
# <details><summary>Answer</summary>
#
# They do not change at all: at depth 10 the readout says NTK 0.373 and NNGP 0.898 at 60° for every $\sigma_w$. ReLU
# is positively homogeneous ($\phi(az) = a\,\phi(z)$ for $a > 0$), so without a bias, compared with $\sigma_w = \sqrt2$,
# each layer multiplies every entry of $\Sigma$, and every term of $\Theta$, by the same factor $\sigma_w^2/2$; the
# normalized kernels divide it out. Only the title and the paragraph above the plot change: the variance now
# shrinks or grows geometrically.
#
# </details>
#
# **2. How much does a bias matter at $\sigma_w = \sqrt2$?** Set depth 100 and read the NTK at 60° without a bias.
# Predict: with $\sigma_b = 0.5$, is it higher or lower, and by a little or a lot? Hint: the variance map
# $q_{l+1} = \tfrac{\sigma_w^2}{2}q_l + \sigma_b^2$ says how the variance grows; what share of $q_l$ does one
# layer's bias $\sigma_b^2$ make after $l$ layers? Then keep the bias and set $\sigma_w = 2.00$.
#
# <details><summary>Answer</summary>
#
# Higher, and by a lot: 0.544 against 0.278 without a bias (0.621 at $\sigma_b = 1$). The bias adds the same
# $\sigma_b^2$ to $\Sigma(x,x)$ and to $\Sigma(x,x')$, so at every layer the two inputs are more correlated, the
# backward factors $\dot\Sigma(x,x')$ stay closer to 1, and the products $\prod\dot\Sigma$ in $\Theta$ decay more
# slowly. At $\sigma_w^2 = 2$ the variance grows only additively, by $\sigma_b^2 = 0.25$ per layer (from 2.5 at depth
# 1 to 27.25 at depth 100), so one layer's bias makes a share $\sigma_b^2/q_l$ that falls only like $1/l$: the NTK stays above its
# bias-free value at every depth (it tends to 4/7, not ¼). At
# $\sigma_w = 2.00$ the variance doubles at every layer, the bias's share vanishes geometrically, and the NTK at 60°
# is 0.279, next to 0.278 without a bias.
#
# </details>
#
# **3. Where does tanh turn chaotic?** First, before you move anything, predict from the chaotic bullet of
# "Order and chaos": in a chaotic tanh network 100 layers deep, what does the NNGP curve look like, and which
# angles have moved up since depth 1, which down? Then choose tanh and $\sigma_b = 0.50$, so $\sigma_b^2 = 0.25$. On
# the phase diagram above, read the $\sigma_w^2$ where the line $\chi_1 = 1$ crosses $\sigma_b^2 = 0.25$, and predict the
# $\sigma_w$ at which the title switches from "ordered" to "chaotic". Check, try erf at the same settings, and last
# set tanh at $\sigma_w = 1.60$ and depth 100 to check your first prediction.
#
# <details><summary>Answer</summary>
#
# At $\sigma_w = 1.60$ and depth 100 the tanh NNGP curve is nearly flat, near $c^* = 0.928$ at every angle but 0°:
# 0.925 at 60°, 0.924 at 175° (from $-0.514$ at depth 1). Less correlated pairs were pulled up to $c^*$; the pair
# at 5° was pushed apart, from 0.996 at depth 1 to 0.956, and is still on its way down: the depth scale
# $-1/\ln\chi_c$ is 33.4 layers here. The NTK, meanwhile, is 0.032 at 60°: on its way to 0.
#
# The line crosses near $\sigma_w^2 \approx 2.4$, so $\sigma_w \approx 1.55$. At 1.50 the title says ordered
# ($\chi_1 = 0.967$, depth scale 30 layers), at 1.55 edge of chaos ($\chi_1 = 1.0002$), at 1.60 chaotic ($\chi_1 = 1.033$,
# $c^* = 0.928$). erf switches earlier: at $\sigma_w = 1.50$ it is already chaotic ($\chi_1 = 1.098$, $c^* = 0.815$),
# because it is steeper near 0 ($\phi'(0) = 2/\sqrt\pi \approx 1.13$, against 1 for tanh).
#
# </details>

# %% tags=["check"]
at_60 = lambda activation, sigma_w, sigma_b, depth: float(
    sp.ring_kernels(activation, sigma_w, sigma_b).ntk[depth - 1, sp.AT_60])
regimes = {(a, s): sp.regime(a, s, 0.5)
           for a, s in (("tanh", 1.5), ("tanh", 1.55), ("tanh", 1.6), ("erf", 1.5))}
nh.check_close("answer 1: relu, no bias, NTK at 60°, depth 10, σ_w = 1 and 2 vs √2",
               [at_60("relu", 1.0, 0.0, 10), at_60("relu", 2.0, 0.0, 10)],
               [at_60("relu", sp.SQRT2, 0.0, 10)] * 2, rtol=1e-10)
nh.check_close("answer 1: the NTK at 60°, depth 10", at_60("relu", sp.SQRT2, 0.0, 10), 0.373, atol=5e-4)
nh.check_close("answer 1: the NNGP at 60°, depth 10",
               sp.ring_kernels("relu", sp.SQRT2, 0.0).nngp[9, sp.AT_60], 0.898, atol=5e-4)
nh.check_close("answer 2: NTK at 60°, depth 100, σ_w = √2, σ_b = 0, 0.5, 1",
               [at_60("relu", sp.SQRT2, b, 100) for b in (0.0, 0.5, 1.0)], [0.278, 0.544, 0.621], atol=5e-4)
nh.check_close("answer 2: q at depth 1 and 100, σ_w = √2, σ_b = 0.5",
               sp.ring_kernels("relu", sp.SQRT2, 0.5).variance[[0, 99]], [2.5, 27.25], rtol=1e-12)
nh.check_close("answer 2: NTK at 60°, depth 100, σ_w = 2, σ_b = 0.5", at_60("relu", 2.0, 0.5, 100), 0.279,
               atol=5e-4)
biased, depth_axis = sp.ring_kernels("relu", sp.SQRT2, 0.5), torch.arange(1, 101, dtype=torch.float64)
nh.check_close("question 2 at the end: Σ⁽ᴸ⁺¹⁾(x,x) = 2 + (L+1)/4 at σ_b² = 0.25", biased.variance,
               2 + (depth_axis + 1) / 4, rtol=1e-12)
nh.check_close("question 2 at the end: Θ(x,x) = 2(L+1) + (L+1)(L+2)/8 at σ_b² = 0.25", biased.ntk_scale,
               2 * (depth_axis + 1) + (depth_axis + 1) * (depth_axis + 2) / 8, rtol=1e-12)
nh.check_close("question 2 at the end: Θ(x,x) at depths 1 and 3", biased.ntk_scale[[0, 2]], [4.75, 10.5],
               rtol=1e-12)
names = [found.name for found in regimes.values()]
nh.check_that("answer 3: ordered, edge, chaotic for tanh at σ_w = 1.50, 1.55, 1.60; erf chaotic at 1.50",
              names == ["ordered", "edge of chaos", "chaotic", "chaotic"], measured=str(names),
              expected="ordered, edge of chaos, chaotic, chaotic")
nh.check_close("answer 3: χ₁ of tanh at σ_w = 1.50, 1.55, 1.60 and of erf at 1.50",
               [found.chi1 for found in regimes.values()], [0.967, 1.0002, 1.033, 1.098], atol=6e-4)
nh.check_close("answer 3: the depth scale −1/ln χ_c of tanh at 1.60", regimes["tanh", 1.6].depth_scale, 33.4,
               atol=0.05)
nh.check_close("answer 3: c* of tanh at 1.60 and of erf at 1.50",
               [regimes["tanh", 1.6].c_star, regimes["erf", 1.5].c_star], [0.928, 0.815], atol=5e-4)
hot = sp.ring_kernels("tanh", 1.6, 0.5)
nh.check_close("answer 3: tanh at 1.60, NNGP at 5°, 60°, 175°: depth 1 and depth 100",
               [hot.nngp[0, 1], hot.nngp[0, 35], hot.nngp[99, 1], hot.nngp[99, sp.AT_60], hot.nngp[99, 35]],
               [0.996, -0.514, 0.956, 0.925, 0.924], atol=5e-4)
nh.check_that("answer 3: at depth 100 every angle but 0° is within 0.03 of c* (flat)",
              bool(((hot.nngp[99, 1:] - regimes["tanh", 1.6].c_star).abs() < 0.03).all()))
nh.check_close("answer 3: the NTK at 60°, depth 100", hot.ntk[99, sp.AT_60], 0.032, atol=5e-4)

# %% [markdown]
# ## Check your understanding
#
# **1.** The recursion needs $\Sigma(x',x')$ as well as $\Sigma(x,x)$ and $\Sigma(x,x')$. What exactly goes wrong if
# you use $\Sigma(x,x)$ twice, and how large was the error above?
#
# <details><summary>Answer</summary>
#
# The expectation $\mathbb E[\phi(u)\phi(v)]$ is over a Gaussian pair whose covariance matrix is $\Lambda$: the two
# variances set the scales of $u$ and $v$, and together with $\Sigma(x,x')$ they fix the angle,
# $\cos\theta = \Sigma(x,x')/\sqrt{\Sigma(x,x)\Sigma(x',x')}$. For ReLU both enter the formula, through
# $\sqrt{q q'}$ and through $\theta$. With one variance twice both are wrong: above, the shortcut gave 0.686
# against 0.806 for the triple, and a layer of $2^{20}$ units measured 0.807.
#
# </details>
#
# **2.** ReLU, $\sigma_w^2 = 2$, now *with* a bias, $\sigma_b^2 = 0.25$, and an input with $x\cdot x/d = 1$. Without
# computing anything numerically, give $\Sigma^{(l)}(x,x)$, $\dot\Sigma^{(l)}(x,x)$ and $\Theta(x,x)$ of a network with $L$
# hidden layers. (Without a bias, 4.1.2 found $\Theta(x,x) = (L+1)\,q$.)
#
# <details><summary>Answer</summary>
#
# $\Sigma^{(1)}(x,x) = \sigma_w^2 + \sigma_b^2 = 2.25$, and the variance map $q_{l+1} = \tfrac{\sigma_w^2}{2}q_l + \sigma_b^2 =
# q_l + 0.25$ adds 0.25 per layer: $\Sigma^{(l)}(x,x) = 2 + l/4$. The bias does not enter $\dot\Sigma$:
# $\dot\Sigma(x,x) = \sigma_w^2\,\mathbb E[\phi'(u)^2] = 2\cdot\tfrac12 = 1$ at any variance. So the terms of
# $\Theta = \sum_l\Sigma^{(l)}\prod_{k>l}\dot\Sigma^{(k)}$ are the variances themselves, and
# $\Theta(x,x) = \sum_{l=1}^{L+1}(2 + l/4) = 2(L+1) + (L+1)(L+2)/8$: 4.75 at depth 1, 10.5 at depth 3. Without the
# bias the same steps give $2(L+1)$, the 2002 printed at $L = 1000$.
#
# </details>
#
# **3.** Show that the effective rank of $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$ ($n\times n$) is $16n/(n+15)$.
#
# <details><summary>Answer</summary>
#
# $\mathbf 1\mathbf 1^\top$ has the eigenvalue $n$ once (eigenvector $\mathbf 1$) and 0 otherwise, so the matrix has the
# eigenvalues $\tfrac34 + \tfrac n4$ once and $\tfrac34$ $n - 1$ times. Then $\operatorname{tr}K = n$ and
# $\operatorname{tr}K^2 = \bigl(\tfrac{n+3}{4}\bigr)^2 + (n-1)\tfrac9{16} = \tfrac{n^2+15n}{16}$, so
# $r_\text{eff} = n^2\cdot 16/(n^2+15n) = 16n/(n+15)$: 12.3 for $n = 50$, and at most 16 however many points.
#
# </details>
#
# **4.** In the ordered phase, why does every entry of the NTK tend to the same number $q^*/(1-\chi_1)$?
#
# <details><summary>Answer</summary>
#
# Deep in the network every pair of inputs has correlation 1, so every entry of $\Sigma$ is $q^*$ and every entry
# of $\dot\Sigma$ is $\sigma_w^2\,\mathbb E[\phi'(\sqrt{q^*}z)^2] = \chi_1$. The recursion $\Theta^{(l+1)} = \Sigma^{(l+1)} +
# \dot\Sigma^{(l+1)}\Theta^{(l)}$ becomes $\Theta \leftarrow q^* + \chi_1\Theta$ for every entry, with the fixed point
# $q^*/(1-\chi_1)$ (it attracts because $\chi_1 < 1$). A matrix with equal entries has rank one.
#
# </details>
#
# **5.** The depth-50 ReLU NTK fits every training label exactly, yet its test MSE (0.101) is most of the way to
# that of predicting the mean (0.129). In the limit of great depth, which constant does its prediction tend to off
# the training set? Hint: there $\Theta(x,X) \approx \tfrac14\Theta(x,x)\,\mathbf 1^\top$ and
# $\Theta(X,X) \approx \Theta(x,x)\bigl(\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top\bigr)$; try $\mathbf 1$ as an eigenvector.
#
# <details><summary>Answer</summary>
#
# The prediction becomes $\tfrac14\mathbf 1^\top\bigl(\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top\bigr)^{-1}y$. The vector $\mathbf 1$
# is an eigenvector with eigenvalue $\tfrac34 + \tfrac n4$, so $\mathbf 1^\top(\cdots)^{-1} = \tfrac4{n+3}\mathbf 1^\top$ and the
# prediction is $\sum_i y_i/(n+3) = \tfrac n{n+3}\,\bar y$: the mean of the training labels, shrunk a little; 0.783 here
# ($n = 100$, $\bar y = 0.807$). The part $\tfrac34 I$ that lets the kernel fit acts only on the training points
# themselves. At depth 50, not yet the limit, the test predictions average 0.793, and their spread is about a
# sixth of that at depth 1 (ratio 0.171).
#
# </details>
#
# **6.** Where does the derivation of step 1 use that the widths go to infinity one after another?
#
# <details><summary>Answer</summary>
#
# In the law of large numbers for layer $l+1$: it averages over the units of layer $l$ as if they were already
# independent Gaussian processes with covariance $\Sigma^{(l)}$, which is true once layer $l$'s width (and those
# below) has gone to infinity first. When all widths grow together, the units at each finite width are only
# exchangeable; that the
# limit is the same is the content of Matthews et al. (2018) and Yang (2019).
#
# </details>

# %% [markdown]
# ## Summary
#
# - Layer by layer, an infinitely wide MLP maps the triple $(\Sigma(x,x),\Sigma(x',x'),\Sigma(x,x'))$ to the next one
#   through two Gaussian expectations $E$, $\dot E$ (for ReLU the arc-cosine formulas); the NTK follows with
#   $\Theta^{(l+1)} = \Sigma^{(l+1)} + \sigma_w^2\dot E\,\Theta^{(l)}$. Width-4096 networks agree, within their
#   seed-to-seed scatter.
# - Where it comes from: each unit sums many independent terms (Gaussian), its covariance is an average over the
#   units below (law of large numbers, one width after another), and the NTK is a sum over layers of
#   forward covariance times backward factors $\dot\Sigma$.
# - Deep ReLU kernels at $\sigma_w^2 = 2$ without a bias lose the angle **polynomially**,
#   $1 - c_l \approx 9\pi^2/(2l^2)$, because the correlation map is marginal at $c = 1$; no unit dies. The NNGP tends
#   to a constant, the normalized NTK to $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$: full rank, it fits the
#   training set, but its predictions flatten and the test error grows with depth. (With a bias the loss is still
#   polynomial, but the limit is $\tfrac37 I + \tfrac47\mathbf 1\mathbf 1^\top$.)
# - Bounded activations are ordered ($\chi_1 < 1$: rank-one NTK), chaotic ($\chi_1 > 1$: identity-like NTK) or at the
#   edge of chaos $\chi_1 = 1$; ReLU with a bias is ordered for $\sigma_w^2 < 2$ (never chaotic). Without a bias and with $\sigma_w^2\phi'(0)^2 \le 1$ the variance dies ($q^* = 0$) and
#   correlations freeze; below that boundary gradients vanish exponentially, on it only polynomially
#   ($\Theta(x,x) \to \tfrac12$).
# - A bias matters: at $\sigma_w^2 = 2$ the variance then grows by $\sigma_b^2$ per layer and the normalized NTK stays
#   above its bias-free value at every depth (it tends to 4/7 instead of ¼).
#
# **Exercises:** 4.1 (the role of $\dot\Sigma$, the identity activation) and 4.7 (collapse and effective rank of a
# 50-layer MLP).
#
# **Next:** [03 · Convolutional networks: locality, weight sharing, pooling](03_cnn.ipynb)

# %% [markdown]
# ## For readers of chapter 4
#
# <details><summary>§4.1.1: the NNGP kernel and the NTK recursion (errata A1, A2)</summary>
#
# **The text says:** the NNGP kernel is $K^{(l)}(x,x') = \mathbb E[\sigma(z_i^{(l)})\,\sigma(z_j^{(l)})]$, and
# $\Theta^{(l)} = K^{(l)} + \dot K^{(l-1)}\Theta^{(l-1)}$.  
# **What is true:** the expectation is over **one** unit at two inputs, $\mathbb E[\phi(z_i(x))\,\phi(z_i(x'))]$; two
# different units $i\neq j$ are independent and their covariance is zero. The NTK step adds the *pre-activation*
# covariance, and both $\sigma_w^2$ and $\sigma_b^2$ belong in it, as in 4.1.1 above
# ([errata A1](../ERRATA.md#a1), [A2](../ERRATA.md#a2)).
#
# </details>
#
# <details><summary>§4.1.2: why deep kernels collapse (errata A3)</summary>
#
# **The text says:** deep kernels degenerate because units die (ReLU) or saturate (tanh), so $\dot K \to 0$.  
# **What is true:** at $\sigma_w^2 = 2$, $\sigma_b = 0$ no ReLU unit dies on average ($\dot\Sigma(x,x) = 1$, and the
# variance is preserved); the angle collapses because the correlation map is marginal at $c = 1$. For tanh and erf
# it is the ordered or chaotic phase ([errata A3](../ERRATA.md#a3)).
#
# </details>
#
# <details><summary>§4.1.2: "the NTK becomes nearly constant or low rank" (errata A4)</summary>
#
# **The text says:** a deep NTK becomes nearly constant or low rank.  
# **What is true:** it depends on the phase. For ReLU at $\sigma_w^2 = 2$, $\sigma_b = 0$ and inputs of equal length
# the deep NTK tends to $(L+1)\,q\,\bigl[\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top\bigr]$, which is full rank;
# only the NNGP becomes constant. An ordered NTK (tanh/erf with $\chi_1 < 1$, or ReLU with a bias and
# $\sigma_w^2 < 2$) tends to rank one, a chaotic one to the identity ([errata A4](../ERRATA.md#a4)).
#
# </details>
#
# <details><summary>§4.1.2: the function space of a deep network (errata A5)</summary>
#
# **The text says:** a very deep network's function space is the same as, or simpler than, a shallow one's.  
# **What is true:** the deep NTK can still fit every training point (it is full rank), but off the training set its
# predictions flatten towards a constant, and the test error grows with depth ([errata A5](../ERRATA.md#a5)).
#
# </details>
#
# <details><summary>§4.1.2: a rule of thumb about ResNets (errata A6, A15)</summary>
#
# **The text says:** kernel collapse of deep ReLU MLPs was one of the theoretical motivations for residual
# networks, whose skip connections counter it.  
# **What is true:** residual networks answered the *degradation problem*: deeper plain networks reached a higher
# *training* error, an optimization difficulty that identity shortcuts removed (He et al. 2016); infinite-width
# kernels played no part. The kernel view of depth came later (Huang et al. 2020; Hayou et al. 2021): branches
# scaled like $1/\sqrt L$ keep the kernel from degenerating, while unscaled ones ($\alpha = 1$) degenerate like the
# MLP and grow exponentially. Lesson [04](04_resnet.ipynb) measures this ([errata A6](../ERRATA.md#a6),
# [A15](../ERRATA.md#a15)).
#
# </details>
#
# <details><summary>The overview, §6.1: "set the Lyapunov exponent to zero" (errata B26)</summary>
#
# **The overview says:** initialize at the edge of chaos by setting the "Lyapunov exponent" to zero.  
# **What is true:** that is the condition $\chi_1 = 1$ in other words ($\tfrac12\ln\chi_1$ is the Lyapunov exponent
# of the linearized layer-to-layer map). What it leaves out is where $\chi_1$ is evaluated: at the variance fixed
# point $q^*$, which depends on $\sigma_w$ and $\sigma_b$ ([errata B26](../ERRATA.md#b26)).
#
# </details>
