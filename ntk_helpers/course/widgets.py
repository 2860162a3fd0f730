"""Standard sliders and a live figure for the lessons (ipywidgets 8).

Every lesson uses the same controls so that learners meet the same names everywhere:
``depth``, ``width``, ``activation``, ``sigma_w``, ``sigma_b``.
"""

from __future__ import annotations

import base64
import io
from typing import Callable

import ipywidgets as widgets
import matplotlib.pyplot as plt

from ..engine.activations import ACTIVATIONS
from .messages import gettext as _

_STYLE = {"description_width": "initial"}
_LAYOUT = widgets.Layout(width="420px")


def int_slider(name: str, value: int, *, min: int, max: int) -> widgets.IntSlider:
    return widgets.IntSlider(value=value, min=min, max=max, description=name, style=_STYLE, layout=_LAYOUT)


def depth_slider(value: int = 3, *, min: int = 1, max: int = 100) -> widgets.IntSlider:
    return int_slider(_("depth"), value, min=min, max=max)


def width_slider(value: int = 256, *, options=(16, 32, 64, 128, 256, 512, 1024, 2048, 4096)) -> widgets.SelectionSlider:
    return widgets.SelectionSlider(value=value, options=list(options), description=_("width"), style=_STYLE, layout=_LAYOUT)


def dropdown(name: str, value: str, *, options) -> widgets.Dropdown:
    return widgets.Dropdown(value=value, options=list(options), description=name, style=_STYLE)


def activation_dropdown(value: str = "relu", *, options=tuple(ACTIVATIONS)) -> widgets.Dropdown:
    return dropdown(_("activation"), value, options=options)


def sigma_slider(name: str, value: float, *, min: float = 0.0, max: float = 3.0, step: float = 0.05) -> widgets.FloatSlider:
    return widgets.FloatSlider(value=value, min=min, max=max, step=step, description=name, style=_STYLE, layout=_LAYOUT)


def live_figure(draw: Callable[..., None], **controls) -> widgets.VBox:
    """Controls above a figure that ``draw(**values)`` redraws whenever a control moves.

    ``draw`` makes its own figure with ``plt.subplots`` (and may print a line of text); the
    result is shown in an Output widget, so a slider move replaces the old plot. Make the call
    the last line of a cell so that Jupyter displays the returned box.
    """

    first_frame: list[bytes] = []

    def redraw(**values):
        draw(**values)
        if not first_frame and plt.get_fignums():           # the default setting, kept for static views
            buffer = io.BytesIO()
            plt.gcf().savefig(buffer, format="png", bbox_inches="tight")
            first_frame.append(buffer.getvalue())
        plt.show()

    output = widgets.interactive_output(redraw, controls)
    row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
    box = LiveFigure([row, output])
    box.first_frame = first_frame[0] if first_frame else None
    return box


class LiveFigure(widgets.VBox):
    """The box :func:`live_figure` returns. Where no widget can be drawn (GitHub's or nbviewer's rendering of
    a saved lesson, a notebook opened before its cells ran, a plain-text viewer), it shows the figure at the
    controls' starting values (``image/png`` beside the widget view in the same output: a front end shows the
    richest form it can) and one line that says how to move the sliders, instead of a ``VBox(children=…)``."""

    first_frame: bytes | None = None

    def __repr__(self) -> str:
        return _("Sliders: run the cells above (Run → Run All Cells) to use them.")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None and self.first_frame:
            bundle["image/png"] = base64.b64encode(self.first_frame).decode("ascii")
        return bundle
