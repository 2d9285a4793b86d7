"""The dashboard's charts as SVG drawn on the server (pygal), readable in any browser without a script: pygal's
tooltips would need its JavaScript from the internet, so none is linked and the table under each chart carries
the exact numbers. See docs/dashboard.md.
"""

from __future__ import annotations

import pygal
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from pygal.style import Style

from chat.dashboard import Chart

_STYLE = Style(
    background="transparent",
    plot_background="transparent",
    font_family="system-ui, 'Noto Sans CJK SC', 'WenQuanYi Micro Hei', sans-serif",
    colors=("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563", "#ca8a04", "#db2777"),
    label_font_size=11,
    major_label_font_size=11,
    legend_font_size=12,
    value_font_size=10,
)
_KINDS = {"line": pygal.Line, "bar": pygal.Bar, "stacked": pygal.StackedBar}


def svg(chart: Chart) -> SafeString:
    """The chart drawn as an inline ``<svg>`` element (its text is ours and pygal escapes the labels)."""
    drawing = _KINDS[chart.kind](
        style=_STYLE,
        js=[],
        disable_xml_declaration=True,
        width=760,
        height=300,
        show_x_labels=True,
        x_label_rotation=30 if len(chart.labels) > 10 else 0,
        show_minor_x_labels=False,
        x_labels_major_count=min(len(chart.labels), 8),
        show_dots=len(chart.labels) <= 31,
        dots_size=2,
        legend_at_bottom=True,
        legend_at_bottom_columns=3,
        truncate_legend=-1,
        print_values=False,
        allow_interruptions=True,
        include_x_axis=True,
        no_data_text=gettext("No data for this period"),
    )
    drawing.x_labels = [label[5:] if len(label) == 10 else label for label in chart.labels]  # 2026-12-04 → 12-04
    for name, values in chart.series.items():
        drawing.add(str(name), values)
    if chart.reference is not None:
        name, level = chart.reference
        drawing.add(str(name), [level] * len(chart.labels), show_dots=False, stroke_style={"dasharray": "6, 4"})
    drawn: str = drawing.render(is_unicode=True)  # pygal ships no types
    return mark_safe(drawn)  # noqa: S308 - pygal's own SVG, labels escaped by it
