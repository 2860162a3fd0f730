"""The lessons' sliders: one live figure per explorer, readable even where no widget can be drawn."""

import matplotlib

matplotlib.use("Agg")

import ntk_helpers as nh  # noqa: E402


def test_live_figure_draws_once_and_reads_as_an_instruction_without_a_widget_frontend():
    calls = []
    box = nh.widgets.live_figure(lambda depth, activation: calls.append((depth, activation)),
                                 depth=nh.widgets.depth_slider(4), activation=nh.widgets.activation_dropdown("erf"))
    assert calls == [(4, "erf")], f"draw should run once with the initial values, ran {calls}"
    text = box._repr_mimebundle_()["text/plain"]
    assert "run the cells above" in text.lower() and "VBox" not in text, text


def test_live_figure_redraws_when_a_control_moves():
    calls = []
    depth = nh.widgets.depth_slider(2)
    nh.widgets.live_figure(lambda depth: calls.append(depth), depth=depth)
    depth.value = 7
    assert calls == [2, 7], f"expected a redraw with the new value, got {calls}"
