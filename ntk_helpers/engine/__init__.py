"""The engine: layers that hold both worlds, a finite torch module and an infinite-width kernel rule.

- :mod:`.kernel`: the ``Kernel`` a layer maps (NNGP, NTK and self covariances), ``NoClosedForm``;
- :mod:`.layer`: the ``Layer`` base with ``kernel()`` and ``network()``; :mod:`.combinators`: ``serial``,
  ``residual``;
- one file per layer family: :mod:`.dense`, :mod:`.activation` (the layer) and :mod:`.activations` (the
  registered ones, with :mod:`.quadrature` for those without a closed form), :mod:`.conv` and :mod:`.pooling`
  (on pixel-pair tensors, :mod:`.spatial`), :mod:`.normalization`; :mod:`.architectures`: ``mlp``, ``resnet``;
  :mod:`.receptive_field`: which input pixels a conv stack's units see;
- the evaluation: :mod:`.planning` (same-position pairs, blocks from a memory budget), :mod:`.blocks`,
  :mod:`.memory` (heap reuse).
"""
