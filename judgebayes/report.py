"""Self-contained written reports: markdown or HTML with tables and PNG figures.

:class:`Report` collects headings, paragraphs, tables (DataFrames) and matplotlib
figures and writes them as

* markdown: ``<name>.md`` with pipe tables, and the figures as PNG files in
  ``<name>_figures/`` beside it (linked relatively, so the folder can be moved or zipped);
* HTML: one ``<name>.html`` file with the figures embedded as base64 PNG (it opens
  anywhere with nothing else), and the same PNG files written beside it.

:func:`accuracy_report` writes the standard report of an
:class:`~judgebayes.studies.accuracy.AccuracyStudy`: the data, the comparison table of every
method's estimate and interval, the NUTS convergence diagnostics from ArviZ
(``az.summary`` and divergences), the posterior predictive check, and figures (intervals
by method, NUTS posterior and trace).
"""

from __future__ import annotations

import base64
import html
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from judgebayes.errors import InputError, MethodRefused
from judgebayes.inference.nuts import quiet_engine_warnings
from judgebayes.results import COMPARISON_COLUMNS, compare, plot_intervals

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["REPORT_FORMATS", "Report", "ReportFiles", "accuracy_report", "markdown_table"]

REPORT_FORMATS = ("markdown", "html")


def _cell(v: Any, digits: int, escape: bool = True) -> str:
    """A table cell: floats to ``digits`` places, a missing value (None, NaN) as ``-``;
    ``escape`` protects markdown's pipes and line breaks.
    """
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.{digits}f}"
    if hasattr(v, "item"):
        return _cell(v.item(), digits, escape)
    return str(v).replace("|", "\\|").replace("\n", " ") if escape else str(v)


def markdown_table(df: pd.DataFrame, digits: int = 3, index: bool = False) -> str:
    """A pipe table (GitHub-flavoured markdown) of ``df``; floats to ``digits`` places."""
    d = df.reset_index() if index else df
    head = [str(c) for c in d.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for row in d.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, digits) for v in row) + " |")
    return "\n".join(lines)


@dataclass
class ReportFiles:
    """What :meth:`Report.write` wrote: the report, the PNG figures, the tables."""

    path: Path
    figures: list[Path]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: the fits the report shows (each with its convergence gate)
    fits: list = field(default_factory=list)


class Report:
    """An ordered list of report blocks, written as markdown or HTML.

    Examples
    --------
    >>> import pandas as pd
    >>> r = Report("Example")
    >>> r.heading("Numbers")
    >>> r.table("numbers", pd.DataFrame({"a": [1.0, 2.5]}))
    >>> print(r.to_markdown().splitlines()[4])
    | 1.000 |
    """

    def __init__(self, title: str):
        self.title = title
        self.blocks: list[tuple[str, Any]] = []
        self.tables: dict[str, pd.DataFrame] = {}

    def heading(self, text: str, level: int = 2) -> None:
        """A section heading."""
        self.blocks.append(("heading", (level, text)))

    def text(self, text: str) -> None:
        """A paragraph (markdown inline syntax; escaped in HTML)."""
        self.blocks.append(("text", text))

    def table(self, name: str, df: pd.DataFrame, caption: str = "", digits: int = 3) -> None:
        """A table; ``name`` keys it in :attr:`tables` and the JSON output."""
        self.tables[name] = df
        self.blocks.append(("table", (name, df, caption, digits)))

    def figure(self, name: str, fig, caption: str = "") -> None:
        """A matplotlib figure, saved as ``<name>.png`` (and closed)."""
        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        self.blocks.append(("figure", (name, buf.getvalue(), caption)))

    def leaderboard(self, table: pd.DataFrame, name: str = "leaderboard") -> None:
        """A leaderboard's section: what its ranks and tiers hold, its notes, the table
        (rank, rank interval, tier, estimate and interval, P(top k)) and the rank plot
        (:func:`~judgebayes.results.plots.plot_ranks`).  ``table`` is
        :func:`judgebayes.leaderboard`'s or :meth:`BoardFit.leaderboard
        <judgebayes.studies.leaderboard.BoardFit.leaderboard>`'s.
        """
        from judgebayes.results.plots import plot_ranks

        need = ("system", "rank", "rank_lower", "rank_upper", "tier", "estimate", "lower")
        if not isinstance(table, pd.DataFrame) or any(c not in table.columns for c in need):
            raise InputError(
                "Report.leaderboard takes a leaderboard table (fit.leaderboard() or "
                f"jb.leaderboard()); got {type(table).__name__}",
                field="table",
                value=type(table).__name__,
            )
        level = 1 - float(table.attrs.get("alpha", 0.05))
        items = table.attrs.get("n_items")
        self.heading("Leaderboard")
        header = table.attrs.get("header")
        self.text(
            f"{header}."
            if header
            else f"{len(table)} systems{f' on {items} items' if items else ''}. Each rank "
            f"interval holds for every system at once with probability {level:g} "
            f"({table.attrs.get('control', 'joint posterior')})."
        )
        for note in table.attrs.get("notes", []):
            self.text(f"Note: {note}")
        cols = ["system", "rank", "rank_lower", "rank_upper", "tier", "estimate", "lower"]
        cols += [
            c for c in ("upper", "p_top_k", "difference", "p_holm", "p_below") if c in table.columns
        ]
        self.table(name, table[cols].reset_index(drop=True))
        ax = plot_ranks(table)
        self.figure(f"{name}_ranks", ax.figure, caption="Rank intervals, coloured by tier")

    # ------------------------------------------------------------------ output
    def to_markdown(self, figure_dir: str = "figures") -> str:
        """The report as markdown (figures linked under ``figure_dir``)."""
        out = [f"# {self.title}", ""]
        for kind, val in self.blocks:
            if kind == "heading":
                out += ["#" * val[0] + " " + val[1], ""]
            elif kind == "text":
                out += [val, ""]
            elif kind == "table":
                name, df, caption, digits = val
                if caption:
                    out += [f"*{caption}*", ""]
                out += [markdown_table(df, digits), ""]
            else:
                name, _, caption = val
                out += [f"![{caption or name}]({figure_dir}/{name}.png)", ""]
                if caption:
                    out += [f"*{caption}*", ""]
        return "\n".join(out)

    def to_html(self) -> str:
        """The report as one self-contained HTML page (figures embedded)."""
        esc = html.escape
        out = [
            "<!DOCTYPE html>",
            '<html><head><meta charset="utf-8">',
            f"<title>{esc(self.title)}</title>",
            "<style>body{font-family:sans-serif;max-width:72em;margin:2em auto;}"
            "table{border-collapse:collapse;font-size:90%;margin:1em 0;}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;}"
            "img{max-width:100%;}</style></head><body>",
            f"<h1>{esc(self.title)}</h1>",
        ]
        for kind, val in self.blocks:
            if kind == "heading":
                out.append(f"<h{val[0]}>{esc(val[1])}</h{val[0]}>")
            elif kind == "text":
                out.append(f"<p>{esc(val)}</p>")
            elif kind == "table":
                name, df, caption, digits = val
                # every cell through the markdown tables' formatter, whatever its column's
                # dtype (an object column of floats and None printed "NaN"; found by the
                # browser test)
                shown = df.map(lambda v, d=digits: _cell(v, d, escape=False))
                body = shown.to_html(index=False, border=0)
                cap = f"<p><em>{esc(caption)}</em></p>" if caption else ""
                out.append(f'<div class="table" id="{esc(name)}">{cap}{body}</div>')
            else:
                name, png, caption = val
                b64 = base64.b64encode(png).decode("ascii")
                out.append(
                    f'<figure><img alt="{esc(caption or name)}" src="data:image/png;base64,{b64}">'
                    + (f"<figcaption>{esc(caption)}</figcaption>" if caption else "")
                    + "</figure>"
                )
        out.append("</body></html>")
        return "\n".join(out)

    def write(self, path: str | Path, format: str | None = None) -> ReportFiles:
        """Write the report to ``path``; PNG figures go to ``<stem>_figures/`` beside it.

        ``format`` is "markdown" or "html"; by default it follows the suffix (``.html``
        / ``.htm`` -> HTML, anything else markdown).
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if format is None:
            if suffix not in (".html", ".htm", ".md", ".markdown"):
                raise InputError(
                    f"the report path {str(path)!r} ends in {suffix or 'no suffix'!r}: give "
                    "a .html or .md name (or format=)",
                    field="path",
                    value=str(path),
                )
            format = "html" if suffix in (".html", ".htm") else "markdown"
        if format not in REPORT_FORMATS:
            raise InputError(
                f"report format must be one of {REPORT_FORMATS}; got {format!r}",
                field="format",
                value=format,
            )
        if path.is_dir():
            raise InputError(
                f"the report path {str(path)!r} is a directory; give a file name ending in "
                ".md or .html",
                field="path",
                value=str(path),
            )
        path.parent.mkdir(parents=True, exist_ok=True)  # a report's folder is made for it
        fig_dir = path.parent / f"{path.stem}_figures"
        figures = []
        for kind, val in self.blocks:
            if kind == "figure":
                fig_dir.mkdir(exist_ok=True)
                p = fig_dir / f"{val[0]}.png"
                p.write_bytes(val[1])
                figures.append(p)
        text = self.to_html() if format == "html" else self.to_markdown(fig_dir.name)
        path.write_text(text, encoding="utf-8")
        return ReportFiles(path, figures, dict(self.tables))


def accuracy_report(
    study,
    path: str | Path,
    *,
    methods: tuple[str, ...] = ("closed_form", "laplace", "nuts"),
    alpha: float = 0.05,
    format: str | None = None,
    random_seed: int | None = 0,
    title: str = "Judge accuracy report",
    sampler: Any = None,
    fits=None,
    options: dict[str, dict[str, Any]] | None = None,
) -> ReportFiles:
    """Fit ``study`` by each method and write its report.

    Parameters
    ----------
    study : AccuracyStudy
        Binary, strata or K-class study.
    path : str or Path
        Report file (``.md`` or ``.html``).
    methods : tuple of str
        Methods to fit (ignored when ``fits`` is given).
    alpha : float
        Intervals are ``1 - alpha``.
    format : {"markdown", "html"}, optional
        Default: from the file suffix.
    random_seed : int
        Seed of the Bayesian fits.
    title : str
        Report title.
    sampler : SamplerConfig or mapping, optional
        NUTS settings (default: the model's own).
    fits : list of AccuracyFit, optional
        Already fitted results to report instead of fitting.
    options : dict, optional
        Method -> further ``fit`` keywords (the CLI's sampler flags); ``sampler``, when
        given, is the NUTS fit's default.

    Returns
    -------
    ReportFiles
        Paths and the tables (``data``, ``comparison``, ``diagnostics``, ``checks``).
    """
    refused = []
    if fits is None:
        fits = []
        with quiet_engine_warnings():  # failed gates are written into the report
            for m in methods:
                kw = {"sampler": sampler} if m == "nuts" else {}
                kw.update((options or {}).get(m, {}))
                try:
                    fits.append(study.fit(m, random_seed=random_seed, **kw))
                except MethodRefused as e:  # a row of its own; the other methods report
                    refused.append(study._refused_row(m, e, alpha))
    table = pd.concat(
        [compare(fits, alpha=alpha), pd.DataFrame(refused, columns=list(COMPARISON_COLUMNS))]
    ).reset_index(drop=True)
    r = Report(title)
    r.heading("Data")
    r.table("data", _data_table(study), "Test and calibration counts")
    r.heading("Estimates by method")
    r.text(
        f"Quantity `{study.quantity}`, {100 * (1 - alpha):g}% intervals. closed_form: "
        "Rogan-Gladen with the Lang-Reiczigel interval (binary); laplace: normal "
        "approximation at the posterior mode in the unconstrained space; nuts: posterior "
        "mean and equal-tailed credible interval."
    )
    # an accuracy report: the unit is the system
    comparison = table.drop(columns=["quantity", "family"]).rename(columns={"unit": "system"})
    r.table("comparison", comparison)
    fig_ax = plot_intervals(table)
    r.figure("intervals", fig_ax.figure, "Estimates and intervals by method")
    sampled = [f for f in fits if f.method == "nuts"]
    r.heading("Convergence diagnostics (NUTS)")
    if sampled:
        import arviz as az

        f = sampled[0]
        names = [v for v in ("theta", "q0", "q1", "prevalence") if v in f.tree.posterior]
        summ = az.summary(f.tree, var_names=names, round_to="none")
        summ = summ.reset_index().rename(columns={"index": "variable"})
        r.table("diagnostics", summ, "az.summary of the NUTS posterior")
        d = f.diagnostics
        r.text(
            f"Gate: max R-hat {d.r_hat_max:.3f} (threshold {d.r_hat_threshold}), "
            f"min bulk ESS {d.ess_bulk_min:.0f}, min tail ESS {d.ess_tail_min:.0f} "
            f"(threshold {d.ess_threshold:g}), {d.divergences} divergent transitions: "
            + ("passed." if d.passed else d.message())
        )
        r.table(
            "checks",
            study.check(f).table,
            "Checks of the model's assumptions (Holm over each check's rows)",
        )
        pc = az.plot_dist(
            f.tree, var_names=names[:3], ci_prob=1 - alpha, ci_kind="eti", backend="matplotlib"
        )
        r.figure("posterior", _figure_of(pc), "NUTS posterior")
        pc = az.plot_trace_dist(f.tree, var_names=names[:3], compact=True, backend="matplotlib")
        r.figure("trace", _figure_of(pc), "NUTS trace (all chains)")
    else:
        r.text("No NUTS fit in this report: no sampler diagnostics to show.")
        r.table("diagnostics", pd.DataFrame(columns=["variable"]))
    r.heading("Settings")
    info = [{"method": f.method, "seconds": f.seconds, **_flat({**f.tree.attrs, **f.info})}
            for f in fits]  # fmt: skip
    r.table("settings", pd.DataFrame(info))
    files = r.write(path, format)
    files.fits = list(fits)
    return files


def _figure_of(plot_collection):
    """The matplotlib figure of an arviz-plots ``PlotCollection``."""
    return plot_collection.viz["figure"].item()


def _flat(info: dict) -> dict:
    keep = ("random_seed", "version", "kind", "design", "draws", "tune", "chains", "estimator")
    return {k: str(info[k]) for k in keep if k in info}


def _data_table(study) -> pd.DataFrame:

    if study.kind == "multiclass":
        mc = study.multiclass
        return pd.DataFrame(
            [{"system": s, **dict(zip(mc.classes, map(int, row), strict=True))}
             for s, row in zip(mc.systems, mc.test, strict=True)]
        )  # fmt: skip
    t, c = study.test, study.calibration.pooled()
    k, n, miss = t.per_system()
    return pd.DataFrame(
        {
            "system": list(study.systems),
            "judged_positive": k,
            "judged": n,
            "missing_verdicts": miss,
            "calibration_tn": int(c.tn[0]),
            "calibration_m0": int(c.m0[0]),
            "calibration_tp": int(c.tp[0]),
            "calibration_m1": int(c.m1[0]),
        }
    )
