"""Torch on one thread for the lessons' small finite networks (lessons 03, 04, 07).

Their matrices have a few hundred units at most, so splitting each operation over threads only adds overhead, and
on a busy machine (other processes on every core) the waiting threads slow a run down many times over.
"""

from __future__ import annotations

from contextlib import contextmanager

import torch


@contextmanager
def one_thread():
    """Run the block (``with one_thread():``) or a function (``@one_thread()``) with torch on one thread; the
    caller's setting is restored afterwards, also on an error."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
