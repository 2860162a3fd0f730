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


def test_a_static_view_of_a_saved_lesson_shows_the_figure_at_the_starting_values():
    """GitHub and nbviewer draw no widgets: the output also carries the first frame as a PNG, so the questions
    under an explorer can be read there; a widget front end still shows the live widget (its own mime type)."""
    import base64

    import matplotlib.pyplot as plt

    def draw(depth):
        figure, axis = plt.subplots()
        axis.plot(range(depth))

    depth = nh.widgets.depth_slider(3)
    box = nh.widgets.live_figure(draw, depth=depth)
    bundle = box._repr_mimebundle_()
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG"), "expected a PNG of the first frame"
    assert "application/vnd.jupyter.widget-view+json" in bundle, "the live widget must stay in the output"
    depth.value = 9                                         # moving a slider does not replace the saved frame
    assert box._repr_mimebundle_()["image/png"] == bundle["image/png"]
    plt.close("all")
