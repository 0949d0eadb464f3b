"""Plots of a `Trace`, with matplotlib (the `plot` extra: `pip install 'mur-trace[plot]'`).

matplotlib draws offline, with no JavaScript or CDN; its figures show inline in Jupyter
and save to PNG or SVG (`fig.savefig("x.svg")`, or `mur-trace plot ... -o x.png`). Each
function takes a `Trace`, reads its data through one query of queries/plots/, and returns
a `matplotlib.figure.Figure` (not drawn on pyplot's global state).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from . import queries
from .errors import E_IO_004, MurTraceError, UsageError, visible
from .trace import Trace, count_argument

if TYPE_CHECKING:
    from matplotlib.figure import Figure

KINDS = ("timeline", "waste", "rate")
_COLORS = {"read": "#1f77b4", "mutate": "#2ca02c", "unknown": "#7f7f7f", "redundant": "#d62728"}


#: What `savefig` writes, by file name extension.
IMAGE_FORMATS = ("png", "svg", "pdf")

#: The image `mur-trace plot` writes when no `-o` names one.
DEFAULT_IMAGE = "mur-trace.png"

#: What a PNG mur-trace wrote says of itself (a `tEXt` chunk, before the image data), so
#: that the default image replaces only an image of its own.
MARK = {"Software": "mur-trace"}


def save(figure: Figure, image: Any, path: str | os.PathLike[str]) -> None:
    """Write `figure` to the open file `image` in the format `path` names, marked (MARK)."""
    kind = image_format(path)
    figure.savefig(image, format=kind, dpi=120, metadata=MARK if kind == "png" else None)


def check_default(path: str | os.PathLike[str]) -> None:
    """Refuse to replace, at the default name (no `-o`), a file mur-trace did not write:
    someone's own `mur-trace.png` is theirs (E-IO-004). A PNG whose `Software` text says
    mur-trace is replaced, and so is one matplotlib wrote, as mur-trace did before it
    marked its images. A name given with `-o` is replaced, as every command's `-o`
    replaces its file."""
    if not os.path.lexists(path):
        return
    software = None
    try:
        if os.path.exists(path):  # a link that leads nowhere is nobody's image
            with open(path, "rb") as existing:
                software = _png_software(existing.read(1 << 16))
    except OSError:
        pass  # a directory, a file we may not read: never ours
    if software is None or not (
        software == MARK["Software"] or software.startswith("Matplotlib version")
    ):
        raise MurTraceError(
            E_IO_004,
            f"{visible(os.fspath(path))} exists and mur-trace did not write it: name the "
            "image to write with -o (an image given so is replaced)",
        )


def _png_software(head: bytes) -> str | None:
    """The `Software` text of a PNG's first chunks (before its image data), if any."""
    if not head.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    at = 8
    while at + 8 <= len(head):
        length = int.from_bytes(head[at : at + 4], "big")
        kind = head[at + 4 : at + 8]
        data = head[at + 8 : at + 8 + length]
        if kind == b"IDAT" or len(data) < length:
            return None
        if kind == b"tEXt" and data.startswith(b"Software\0"):
            return data[len(b"Software\0") :].decode("latin-1")
        at += 12 + length
    return None


def image_format(path: str | os.PathLike[str]) -> str:
    """The format `savefig` is asked for, from the name's extension ("png" for x.PNG)."""
    return os.path.splitext(os.fspath(path))[1].lstrip(".").lower()


def check_output(path: str | os.PathLike[str]) -> None:
    """An image path a plot can be written to: one of IMAGE_FORMATS, not a directory."""
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory: name the image to write")
    if image_format(path) not in IMAGE_FORMATS:
        raise UsageError(
            f"cannot tell the image format of {path}: end it in "
            + ", ".join(f".{f}" for f in IMAGE_FORMATS)
        )


#: The longest label a plot draws, in characters: matplotlib lays text out in time that
#: grows faster than its length (a resource of 100,000 characters took 14 s to draw, one of
#: 1 MB did not finish in 120 s), and a longer one does not fit the figure anyway.
LABEL_CHARS = 60


def _text(value: object, limit: int = LABEL_CHARS) -> str:
    """A value from a trace as a label: control characters escaped, `$` not read as the
    start of a formula (matplotlib's mathtext), at most `limit` characters (its middle
    left out: a path's file name is at its end)."""
    text = visible(str(value))
    if len(text) > limit:
        half = (limit - 1) // 2
        text = text[:half] + "…" + text[len(text) - (limit - 1 - half) :]
    return text.replace("$", r"\$")


def _figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise MurTraceError(
            "E-CFG-003", "plots need matplotlib: pip install 'mur-trace[plot]'"
        ) from None
    except ValueError as exc:  # matplotlib refuses its settings (MPLBACKEND=bogus)
        raise MurTraceError("E-CFG-003", f"matplotlib cannot start: {exc}") from None

    class Plot(Figure):
        """A figure that shows itself in Jupyter, with or without `%matplotlib inline`."""

        def _repr_png_(self) -> bytes:
            import io

            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=100)
            return buffer.getvalue()

    return Plot(figsize=(width, height), layout="constrained")


def timeline(trace: Trace, trace_path: str | None = None, *, max_resources: int = 25) -> Figure:
    """One session's calls by line, one row per resource: reads, changes, and redundant
    reads in red, each linked to the read it repeats."""
    _a_trace("plot.timeline()", trace)
    # named as `show` names it (a path that was not loaded drew an empty figure)
    trace_path = trace._analysed("plot.timeline()", trace_path)
    max_resources = count_argument("max_resources", max_resources, optional=False)
    rows = _records(trace._query(queries.get("plots/timeline").sql, trace_path=trace_path))
    order: list[str] = []
    for row in rows:
        if row["resource"] not in order:
            order.append(row["resource"])
    shown = order[:max_resources]
    y = {resource: i for i, resource in enumerate(shown)}
    by_line = {row["line"]: row for row in rows}
    fig = _figure(11, max(2.5, 0.32 * len(shown) + 1.2))
    ax = fig.add_subplot()
    for kind, marker in (("read", "o"), ("mutate", "s"), ("unknown", "x")):
        points = [r for r in rows if r["effect"] == kind and r["resource"] in y]
        ax.scatter([r["line"] for r in points], [y[r["resource"]] for r in points],
                   marker=marker, color=_COLORS[kind], label=kind, zorder=2)  # fmt: skip
    redundant = [r for r in rows if r["prior_line"] is not None and r["resource"] in y]
    for r in redundant:  # a bracket above the row, from the read repeated to the repeat
        prior = by_line.get(r["prior_line"])
        prior_y = y.get(prior["resource"], y[r["resource"]]) if prior else y[r["resource"]]
        ax.annotate("", xy=(r["line"], y[r["resource"]] - 0.08),
                    xytext=(r["prior_line"], prior_y - 0.08),
                    arrowprops={"arrowstyle": "->", "color": _COLORS["redundant"], "alpha": 0.8,
                                "connectionstyle": "bar,fraction=-0.1"})  # fmt: skip
    ax.scatter([r["line"] for r in redundant], [y[r["resource"]] for r in redundant], s=120,
               facecolors="none", edgecolors=_COLORS["redundant"], linewidths=2,
               label="redundant read", zorder=3)  # fmt: skip
    ax.set_yticks(range(len(shown)), [_text(resource) for resource in shown])
    ax.set_ylim(len(shown) - 0.5, -0.9)
    ax.set_xlabel("line in trace")
    from matplotlib.ticker import MaxNLocator  # loaded with the figure (_figure)

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # a line is a whole number
    ax.set_title(f"{_text(trace_path, 2 * LABEL_CHARS)}  ({trace.policy} policy)", fontsize=9)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return fig


#: What `waste` can draw.
WASTE_MEASURES = ("output_bytes", "tokens", "context_tokens")


def waste(trace: Trace, *, top: int = 12, measure: str = "output_bytes") -> Figure:
    """What redundant calls wasted (`output_bytes`, `tokens` or `context_tokens`), by tool
    and by resource."""
    if measure not in WASTE_MEASURES:  # it was a KeyError; E-CLI-001, as any wrong value
        raise UsageError(f"unknown measure {measure!r}; known: {', '.join(WASTE_MEASURES)}")
    top = count_argument("top", top, optional=False)
    _a_trace("plot.waste()", trace)
    trace._usable("plot.waste()", events=True)
    rows = _records(trace._query(queries.get("plots/waste").sql))
    fig = _figure(11, 4.5)
    for i, dimension in enumerate(("tool", "resource")):
        ax = fig.add_subplot(1, 2, i + 1)
        picked = sorted((r for r in rows if r["dimension"] == dimension),
                        key=lambda r: r[measure] or 0, reverse=True)[:top]  # fmt: skip
        # bars at positions, labels beside them: two names cut to the same label stay two bars
        ax.barh(range(len(picked)), [r[measure] or 0 for r in picked], color=_COLORS["redundant"])
        ax.set_yticks(range(len(picked)), [_text(r["name"]) for r in picked])
        ax.invert_yaxis()
        ax.set_title(f"redundant {measure.replace('_', ' ')} by {dimension}", fontsize=10)
        ax.tick_params(axis="y", labelsize=8)
        if not picked:  # it drew empty axes with ticks from -0.04 to 0.04
            ax.set_xticks([])
            ax.text(0.5, 0.5, "no redundant calls", ha="center", va="center",
                    transform=ax.transAxes, color="#666666")  # fmt: skip
    return fig


def rate(trace: Trace) -> Figure:
    """Each session's redundancy rate (redundant calls per tool call) over time: when it
    began (its Murmur id's time, else its first event's); a session whose trace says no
    time is left out, and the figure says how many were."""
    _a_trace("plot.rate()", trace)
    rated = [
        r for r in _records(trace._query(queries.get("plots/rate").sql)) if r["rate"] is not None
    ]
    rows = [r for r in rated if r["created"] is not None]
    untimed = len(rated) - len(rows)
    fig = _figure(10, 4)
    ax = fig.add_subplot()
    sizes = [20 + 3 * r["tool_calls"] ** 0.5 for r in rows]
    ax.scatter([r["created"] for r in rows], [r["rate"] for r in rows], s=sizes, alpha=0.6,
               color=_COLORS["read"], label="session (size: tool calls)")  # fmt: skip
    window = max(1, len(rows) // 20)
    if len(rows) > window:
        smooth = [
            sum(r["rate"] for r in rows[max(0, i - window) : i + 1])
            / len(rows[max(0, i - window) : i + 1])
            for i in range(len(rows))
        ]
        ax.plot([r["created"] for r in rows], smooth, color=_COLORS["redundant"],
                label=f"moving mean ({window + 1} sessions)")  # fmt: skip
    ax.set_ylabel("redundant calls per tool call")
    title = f"redundancy rate over time ({trace.policy} policy)"
    if untimed:
        title += f"; {untimed} session{'' if untimed == 1 else 's'} with no time left out"
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.autofmt_xdate()
    return fig


def _a_trace(what: str, trace: object) -> None:
    """Refuse (E-CLI-001) what is not a Trace: a `Findings` of `find_redundant`, a path."""
    if not isinstance(trace, Trace):
        raise UsageError(
            f"{what} draws a Trace (mur_trace.load or summarise), not {type(trace).__name__}"
        )


def _records(rel: Any) -> list[dict[str, Any]]:
    from .render import records

    return list(records(rel))
