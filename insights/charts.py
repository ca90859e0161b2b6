"""Charts drawn on the server as SVG (pygal), shown as images: no script, no stylesheet or font
from elsewhere, no URL at all. The SVG carries its own styles (pygal's, inline in it), which the
site's Content-Security-Policy would refuse in the page itself but not inside an image, so a
chart is an ``<img>`` of a ``data:`` URL. It has a light background of its own, which the dark
theme turns dark (a filter in rollroom.css: inverted, its hues turned back); its viewBox lets it
shrink to a phone's width. Every chart's numbers are also in a table beside it (and its title in
the image's alt text)."""

import base64

import pygal
from django.utils.html import format_html
from pygal.style import Style

STYLE = Style(
    background="#fffdf8",
    plot_background="#fffdf8",
    foreground="#1d1b18",
    foreground_strong="#1d1b18",
    foreground_subtle="rgba(128, 128, 128, 0.45)",
    opacity=".85",
    opacity_hover=".95",
    # a mid orange and a mid blue: enough contrast on a light and on a dark background
    colors=("#d0702f", "#4a86d8"),
    font_family="system-ui, sans-serif",
    # large for the viewBox: a chart is drawn 480 wide and shrinks to a phone's width
    title_font_size=17,
    label_font_size=15,
    major_label_font_size=15,
    legend_font_size=16,
    value_font_size=14,
)


def _self_contained(root):
    """Drop what pygal adds for its browser script and its credits: every <script> and every
    comment (they name pygal's sites)."""
    for parent in root.iter():
        for child in list(parent):
            if child.tag == "script" or not isinstance(child.tag, str):
                parent.remove(child)
    return root


def svg(chart):
    """The chart as SVG text."""
    return chart.render(is_unicode=True)  # pygal escapes every text it draws


def _render(chart):
    """The chart as an ``<img>`` of its SVG, its title as the alt text."""
    data = base64.b64encode(svg(chart).encode()).decode()
    return format_html(
        '<img class="chart" src="data:image/svg+xml;base64,{}" alt="{}" width="480" height="320">',
        data,
        chart.config.title,
    )


def _chart(kind, title, **config):
    chart = kind(
        style=STYLE,
        title=title,
        disable_xml_declaration=True,
        js=[],
        css=["file://style.css", "file://graph.css"],  # pygal's own, inlined in the SVG
        width=480,
        height=320,
        legend_at_bottom=True,
        print_values=False,
        # At most 6 labels on the y axis (pygal's default let 0.2 steps crowd it), and the x
        # labels whole: slanted when there are many, never cut short.
        max_scale=6,
        truncate_label=-1,
        **config,
    )
    chart.add_xml_filter(_self_contained)
    return chart


def luck_by_session(rows):
    """Observed against expected successes per session (``rows``: ``insights.reports.Row``s);
    None without rolls."""
    if not rows:
        return None
    chart = _chart(
        pygal.Bar,
        "Successes per session: observed and expected",
        x_label_rotation=30 if len(rows) > 4 else 0,
    )
    chart.x_labels = [row.label for row in rows]
    chart.add("Observed", [row.tally.observed for row in rows])
    chart.add(
        "Expected",
        [
            {"value": round(float(row.tally.expected), 2), "label": f"± {row.tally.spread:.2f}"}
            for row in rows
        ],
    )
    return _render(chart)


def rolled_against_exact(dist):
    """How often each outcome of one pool was rolled against how often it was expected
    (``dist``: a ``insights.reports.Distribution``)."""
    chart = _chart(pygal.Bar, f"{dist.title}: {dist.what}, rolled and expected")
    chart.x_labels = [b.label for b in dist.bins]
    chart.add("Rolled", [b.rolled for b in dist.bins])
    chart.add("Expected", [round(float(b.expected), 2) for b in dist.bins])
    return _render(chart)
