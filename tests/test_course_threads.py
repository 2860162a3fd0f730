"""ntk_helpers.course.threads.one_thread: one torch thread inside, the caller's setting restored after."""

import pytest
import torch

from ntk_helpers.course.threads import one_thread


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def test_a_block_runs_on_one_thread_and_the_setting_comes_back(two_threads):
    with one_thread():
        inside = torch.get_num_threads()
    assert (inside, torch.get_num_threads()) == (1, 2), f"expected 1 inside, 2 after; measured {inside}, " \
                                                          f"{torch.get_num_threads()}"


def test_as_a_decorator_each_call_restores_the_setting_also_on_an_error(two_threads):
    @one_thread()
    def fails():
        assert torch.get_num_threads() == 1, f"expected 1 thread inside, measured {torch.get_num_threads()}"
        raise RuntimeError("inside")

    for _ in range(2):                                       # the decorator is reusable, call after call
        with pytest.raises(RuntimeError, match="inside"):
            fails()
        assert torch.get_num_threads() == 2, f"expected the caller's 2 threads back, measured {torch.get_num_threads()}"
