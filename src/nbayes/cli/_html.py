"""A self-contained HTML page: inline style, figures as inline PNG, no script, no network.

``nbayes report`` builds its page from these pieces; everything a browser needs is in the one
file (the icon link is an empty data URL, so that the browser does not ask for favicon.ico).
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence

#: Resolution of the inline PNGs: sharp enough on a laptop screen, ~20-60 kB a figure.
DPI = 90

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #1f2328; background: #fff; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: 0.2rem; margin-top: 2rem; }
nav a { margin-right: 1rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #d0d7de; padding: 0.2rem 0.6rem; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f6f8fa; }
.figures { display: flex; flex-wrap: wrap; gap: 0.5rem; }
figure { margin: 0; }
figure img { max-width: 100%; height: auto; }
p.note { color: #57606a; font-size: 0.9rem; }
code { background: #f6f8fa; padding: 0 0.2rem; }
details pre { max-height: 20rem; overflow: auto; white-space: pre-wrap; margin: 0.3rem 0; }
"""


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def figure(fig, alt: str) -> str:
    """A matplotlib figure as an inline PNG ``<figure>``; the figure is closed (freed)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,{data}"></figure>'


class Markup(str):
    """HTML built here (a table cell that is not escaped again)."""


def details(summary: str, whole: str) -> Markup:
    """A collapsible detail: ``summary`` shown, ``whole`` (preformatted) on a click."""
    return Markup(f"<details><summary>{esc(summary)}</summary><pre>{esc(whole)}</pre></details>")


def _cell(value) -> str:
    if isinstance(value, Markup):
        return f"<td>{value}</td>"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f'<td class="num">{int(value):,}</td>'
    if isinstance(value, float):
        return f'<td class="num">{value:.4g}</td>'
    if isinstance(value, int) and not isinstance(value, bool):
        return f'<td class="num">{value:,}</td>'
    return f"<td>{esc(value)}</td>"


def table(rows: Sequence[Sequence], headers: Sequence[str]) -> str:
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    if not any(headers):  # a list of facts: no header row
        return f"<table><tbody>{body}</tbody></table>"
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def note(text: str) -> str:
    return f'<p class="note">{esc(text)}</p>'


def section(anchor: str, title: str, parts: Sequence[str]) -> tuple[str, str, str]:
    return (
        anchor,
        title,
        f'<section id="{esc(anchor)}"><h2>{esc(title)}</h2>{"".join(parts)}</section>',
    )


def page(title: str, subtitle: str, sections: Sequence[tuple[str, str, str]]) -> str:
    nav = "".join(f'<a href="#{esc(a)}">{esc(t)}</a>' for a, t, _ in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{esc(title)}</title>'
        f"<style>{STYLE}</style></head><body><main>"
        f"<h1>{esc(title)}</h1>{note(subtitle)}<nav>{nav}</nav>"
        + "".join(body for _, _, body in sections)
        + "</main></body></html>\n"
    )
