"""What the report scripts share: reading the experiment CSVs, drawing
matplotlib figures deterministically (SVG for the page, PNG for slides) and
writing a self-contained HTML page.

Python 3.11 standard library + matplotlib only: the pages must open offline,
so there is no JavaScript library and no web font; the one inline script
records, for the headless-browser test, that every figure rendered.
"""

import csv
import html
import math
import os

import sys

try:
    import matplotlib
except ImportError:
    # The programs choose a Python with matplotlib; this is for a hand-run script.
    sys.exit(f"{os.path.basename(sys.argv[0])}: this Python ({sys.executable}) has no matplotlib "
             "(install Debian's python3-matplotlib and run /usr/bin/python3)")

matplotlib.use("Agg")  # no display: the programs run on build machines and clusters
import matplotlib.pyplot as plt  # noqa: E402  (after use())

# Same inputs, same bytes: SVG element ids come from a hash salted with this,
# and neither format gets a creation date.
matplotlib.rcParams["svg.hashsalt"] = "tlmgpu-report"
matplotlib.rcParams["figure.dpi"] = 100
matplotlib.rcParams["savefig.dpi"] = 150
matplotlib.rcParams["font.size"] = 9

NOT_RECORDED = "not recorded"

# The paper's numbers are drawn in this colour everywhere, ours in the cycle.
PAPER_COLOUR = "black"


# ------------------------------------------------------------ numbers and CSV


def to_float(text):
    """The number in a CSV cell, or None for an empty / non-numeric cell
    (the papers' values are sometimes ranges or directions: '> 1', '~1')."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_csv(path):
    """Rows as dicts keyed by the header's names: columns are looked up by
    name so that columns appended later do not move the others."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def fmt(value, digits=4):
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


# ------------------------------------------------------------ figures


class Figures:
    """Saves figures as OUT/figures/NAME.svg and .png and remembers them, in
    order, with their captions, for the page."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.dir = os.path.join(out_dir, "figures")
        os.makedirs(self.dir, exist_ok=True)

    def save(self, fig, name, caption):
        svg = os.path.join(self.dir, name + ".svg")
        png = os.path.join(self.dir, name + ".png")
        fig.savefig(svg, format="svg", bbox_inches="tight", metadata={"Date": None})
        fig.savefig(png, format="png", bbox_inches="tight", metadata={"Software": None})
        plt.close(fig)
        return {"name": name, "svg": "figures/" + name + ".svg", "png": "figures/" + name + ".png",
                "caption": caption}


def new_figure(width=7.0, height=3.2, ncols=1, nrows=1, **kw):
    width = min(width, 11.0)  # a page's width; more groups make narrower bars
    # Constrained layout keeps panel titles, labels and legends from overlapping.
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, layout="constrained", **kw)
    return fig, axes


def grouped_bars(ax, groups, series, values, paper=None, ylabel="", neutral=None, title=None):
    """Bars: one group per x label, one bar per series. values[s][g] is a
    number or None (a gap, never 0). paper[s][g], when a number, is drawn as a
    black marker on the bar's position: the paper's number beside ours."""
    n = max(1, len(series))
    width = 0.8 / n
    xs = list(range(len(groups)))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    paper_drawn = False
    for i, s in enumerate(series):
        offs = [x - 0.4 + width * (i + 0.5) for x in xs]
        heights = [values[s][g] if values[s][g] is not None else 0.0 for g in range(len(groups))]
        present = [values[s][g] is not None for g in range(len(groups))]
        ax.bar([o for o, p in zip(offs, present) if p], [h for h, p in zip(heights, present) if p],
               width=width, label=s, color=colours[i % len(colours)])
        if paper:
            pts = [(o, paper[s][g]) for g, o in enumerate(offs) if paper.get(s) and paper[s][g] is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="none", marker="D", markersize=5,
                        color=PAPER_COLOUR, label=None if paper_drawn else "paper")
                paper_drawn = True
    if neutral is not None:
        ax.axhline(neutral, color="grey", linewidth=0.8, linestyle=":")
        # Ratios sit near the neutral line: start the axis just below the
        # lowest bar so that a few percent stay visible (as the papers do).
        drawn = [v for s in series for v in values[s] if v is not None]
        drawn += [v for s in series for v in (paper or {}).get(s) or [] if v is not None]
        low = min(drawn + [neutral])
        if low > 0.2:
            ax.set_ylim(bottom=math.floor((low - 0.05) * 10) / 10)
    ax.set_xticks(xs)
    ax.set_xticklabels(groups, rotation=30 if len(groups) > 4 else 0, ha="right" if len(groups) > 4 else "center")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=7, frameon=False)


# ------------------------------------------------------------ HTML


def esc(text):
    return html.escape("" if text is None else str(text), quote=True)


STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 78em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.82em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.yes { background: #e3f4e3; } td.no { background: #f8dddd; }
code { font-size: 0.9em; } td code { white-space: pre-wrap; word-break: break-all; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #444; max-width: 60em; }
.note { background: #fff6d8; padding: 4px 8px; font-size: 0.9em; }
.claim { font-style: italic; }
"""

# For the headless-browser test (tests/test_report.cpp): after the load
# event, the size every figure rendered at and every load error (also those
# before this script ran, found as broken images), written into
# the DOM where `chromium --dump-dom` shows them. The page works without it.
RENDER_CHECK = """
<script>
(function () {
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(e.message || ((e.target && e.target.src) ? 'failed to load ' + e.target.src : 'error'));
  }, true);
  window.addEventListener('load', function () {
    var figs = [];
    document.querySelectorAll('img.figure').forEach(function (img) {
      var r = img.getBoundingClientRect();
      figs.push({src: img.getAttribute('src'), naturalWidth: img.naturalWidth, width: r.width, height: r.height});
      // An image that failed before the listener above was added fired its
      // error event unseen: a loaded page's broken image is an error too.
      var failed = 'failed to load ' + img.src;
      if (img.complete && img.naturalWidth === 0 && errors.indexOf(failed) < 0) errors.push(failed);
    });
    var out = document.getElementById('render-check');
    out.textContent = JSON.stringify({figures: figs, errors: errors});
  });
})();
</script>
"""


def table(header, rows, numeric=(), classes=None):
    """An HTML table. rows are lists of cells (already text); `numeric` names
    the right-aligned columns; classes(row) may give a column -> CSS class map."""
    out = ["<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"]
    for r in rows:
        extra = classes(r) if classes else {}
        cells = []
        for i, c in enumerate(r):
            cls = []
            if header[i] in numeric:
                cls.append("num")
            if header[i] in extra:
                cls.append(extra[header[i]])
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{c}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def code_or_not_recorded(text):
    return f"<code>{esc(text)}</code>" if text else f"<i>{NOT_RECORDED}</i>"


def figure_html(fig):
    return (f'<figure id="fig-{esc(fig["name"])}"><img class="figure" src="{esc(fig["svg"])}" '
            f'alt="{esc(fig["caption"])}">'
            f'<figcaption>{esc(fig["caption"])} '
            f'(<a href="{esc(fig["svg"])}">SVG</a>, <a href="{esc(fig["png"])}">PNG</a>)</figcaption></figure>')


def note_html(text):
    return f'<p class="note">{esc(text)}</p>'


def write_page(out_dir, title, header_html, body_parts):
    """OUT/index.html: no dates, no absolute paths, so that the same results
    give the same page."""
    page = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{esc(title)}</title>", f"<style>{STYLE}</style>", "</head><body>",
            f"<h1>{esc(title)}</h1>", header_html]
    page.extend(body_parts)
    page.append('<pre id="render-check" hidden></pre>')
    page.append(RENDER_CHECK)
    page.append("</body></html>")
    path = os.path.join(out_dir, "index.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")
    return path
