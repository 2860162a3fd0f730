"""The engine: layers that hold both worlds, a finite torch module and an infinite-width kernel rule.

- :mod:`.kernel`: the ``Kernel`` a layer maps (NNGP, NTK and self covariances), ``NoClosedForm``;
- :mod:`.layer`: the ``Layer`` base with ``transform``, ``build``, ``pair_rule`` and ``network()``;
  :mod:`.combinators`: ``serial`` (and ``a >> b``), ``residual``;
- one file per layer family: :mod:`.dense`, :mod:`.activation` (the layer) and :mod:`.activations` (the
  registered ones, with :mod:`.quadrature` for those without a closed form), :mod:`.conv` and :mod:`.pooling`
  (on pixel-pair tensors, :mod:`.spatial`), :mod:`.normalization`; :mod:`.architectures`: ``mlp``, ``resnet``;
  :mod:`.receptive_field`: which input pixels a conv stack's units see;
- :mod:`.rules`: each layer's kernel rule for one pair of inputs as data (``pair_rule()``), which
  :mod:`.compiled` (numba) assembles into one fused function per architecture;
- the evaluation, :mod:`.evaluation`: ``Layer.kernel`` (checks, the choice between the compiled paths and the
  eager rules, blocks from a memory budget, progress, dtype), with :mod:`.planning` (same-position pairs).

Importing this package imports :mod:`.combinators` and :mod:`.evaluation`, which give every layer ``a >> b`` and
``kernel()`` (the layer modules import neither: see :mod:`.evaluation`).
"""

from . import combinators, evaluation  # noqa: F401  (Layer.__rshift__, Layer.kernel)
