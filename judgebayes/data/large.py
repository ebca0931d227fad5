r"""Large verdict logs (Parquet or CSV) reduced to sufficient statistics, never loaded whole.

A leaderboard's verdict log has millions of rows, and every model here needs only counts
of them.  The readers run one ``GROUP BY`` over the file in DuckDB, which scans Parquet
and CSV in parallel, streaming, within a memory limit, and hands back the grouped rows
only: a few hundred rows however long the log.

* :func:`reduce_items`: the items design's log (one row per judged output, the human
  label blank where unlabelled) to one row per (system, stratum, cluster, verdict, label)
  with its count ``n``; :meth:`judgebayes.AccuracyStudy.from_items` reads it with
  ``count="n"``.  Rows in one group are exchangeable items, so the study (every method,
  every estimand) is the study of the raw log: the same counts, hence the same posterior.
* :func:`reduce_panel`: a panel's item log (one row per output and validator verdict) to
  the cells ``generator, validator, n_judged, n_valid`` of
  :meth:`judgebayes.ValidatorPanel.from_frames`.
* :func:`reduce_pairs`: a pairwise log (one row per comparison, both presentation orders
  as they came) to win counts per ordered pair and judge, for naive Bradley-Terry on
  counts (:func:`judgebayes.inference.ranking.newton.bt_design_from_counts`).  The
  bias-aware models need each comparison's covariates and stay on the rows.

Labels are normalised after grouping (one call per distinct spelling, with the package's
vocabulary and ``positive=``), so a log of ``"PASS"`` / ``"fail"`` strings costs no more
than one of 0/1 integers.  A missing verdict stays a group of its own and is counted by
the study, as with a frame.

DuckDB is the optional extra ``judgebayes[logs]``.  Why DuckDB and not Polars or
dask.dataframe: one SQL ``GROUP BY`` is the whole reduction, DuckDB streams it out of core
with a hard ``memory_limit`` on both Parquet and CSV (Polars' streaming engine covers
fewer CSV dialects and has no memory cap; dask.dataframe is a cluster-scale tool whose
partitions are pandas frames), and it is one wheel with no dependencies.
"""

from __future__ import annotations

import pathlib
from typing import Any

from judgebayes.data.items import binary_labels
from judgebayes.data.ranking.frames import clean_ids
from judgebayes.data.ranking.pairs import TIE_WORDS
from judgebayes.errors import InputError

__all__ = ["reduce_items", "reduce_pairs", "reduce_panel"]


def _connect(memory_limit: str, threads: int | None):
    try:
        import duckdb
    except ImportError:
        raise InputError(
            "reading large logs needs duckdb: pip install 'judgebayes[logs]'",
            field="source",
            value=None,
        ) from None
    con = duckdb.connect(":memory:")
    # DuckDB's own bar writes to stdout, where it would corrupt a CLI's JSON or a pipe; a
    # scan of 10 million rows takes seconds, so no bar is needed
    con.execute("SET enable_progress_bar = false")
    con.execute(f"SET memory_limit = '{memory_limit}'")
    if threads is not None:
        con.execute(f"SET threads = {int(threads)}")
    return con


def _scan(source: Any) -> str:
    """The DuckDB table function reading ``source`` (Parquet or CSV files, globs allowed)."""
    paths = [source] if isinstance(source, (str, pathlib.Path)) else list(source)
    if not paths:
        raise InputError("no log file given", field="source", value=source)
    names = [str(p) for p in paths]
    for n in names:
        if not any(c in n for c in "*?[") and not pathlib.Path(n).is_file():
            raise InputError(f"log file not found: {n}", field="source", value=n)
    kinds = {pathlib.Path(n).suffix.lower() for n in names}
    quoted = "[" + ", ".join("'" + n.replace("'", "''") + "'" for n in names) + "]"
    if kinds <= {".parquet", ".pq"}:
        return f"read_parquet({quoted})"
    if kinds <= {".csv", ".tsv", ".txt", ".gz"}:
        return f"read_csv({quoted}, header = true)"
    raise InputError(
        f"log files must be Parquet (.parquet) or CSV (.csv); got {sorted(kinds)}",
        field="source",
        value=names[0],
    )


def _q(col: str) -> str:
    return '"' + col.replace('"', '""') + '"'


def _column_types(con, scan: str, source, columns: dict[str, str]) -> dict[str, str]:
    """The log's column -> DuckDB type (upper case), after checking every role's column."""
    import duckdb

    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()
    except duckdb.Error as exc:
        raise InputError(
            f"log {source} cannot be read: {str(exc).splitlines()[0]}",
            field="source",
            value=str(source),
        ) from None
    types = {r[0]: str(r[1]).upper() for r in described}
    for role, col in columns.items():
        if col not in types:
            raise InputError(
                f"the log has no column {col!r} (the {role} column); columns are {list(types)}",
                field=role,
                value=col,
            )
    return types


def _group_counts(source, columns: dict[str, str], *, memory_limit: str, threads: int | None):
    """``SELECT <columns>, count(*) AS n ... GROUP BY ALL`` as a pandas frame (role names)."""
    con = _connect(memory_limit, threads)
    try:
        scan = _scan(source)
        _column_types(con, scan, source, columns)
        select = ", ".join(f"{_q(c)} AS {_q(r)}" for r, c in columns.items())
        sql = f"SELECT {select}, count(*) AS n FROM {scan} GROUP BY ALL"
        return con.execute(sql).df()
    finally:
        con.close()


def _normalise(df, role: str, column: str, positive: Any):

    df[role] = binary_labels(df[role], column, positive)


def reduce_items(
    source,
    *,
    judge: str = "judge",
    human: str = "human",
    system: str | None = None,
    stratum: str | None = None,
    cluster: str | None = None,
    positive: Any = None,
    memory_limit: str = "1GB",
    threads: int | None = None,
):
    """Reduce an items-design log to its counts, for ``AccuracyStudy.from_items(count="n")``.

    Parameters
    ----------
    source : str, path, or a list of them
        Parquet or CSV files (DuckDB globs such as ``"logs/*.parquet"`` allowed).
    judge, human, system, stratum, cluster : str
        Columns as in :func:`judgebayes.data.items.items_from_frame`.
    positive : scalar, optional
        The label value meaning correct, when not a usual spelling.
    memory_limit : str
        DuckDB's memory cap for the scan (it spills to disk beyond it).
    threads : int, optional
        DuckDB threads (default: one per core).

    Returns
    -------
    pandas.DataFrame
        One row per distinct (``system``, ``stratum``, ``cluster``, ``judge``, ``human``)
        with ``judge`` and ``human`` as 1.0 / 0.0 / NaN and the count ``n``; columns keep
        the log's names.  ``attrs["n_rows"]``: the rows of the log.

    Examples
    --------
    >>> counts = reduce_items("verdicts.parquet", system="model")  # doctest: +SKIP
    >>> study = jb.AccuracyStudy.from_items(counts, system="model", count="n")  # doctest: +SKIP
    """
    roles = {"judge": judge, "human": human}
    for role, col in (("system", system), ("stratum", stratum), ("cluster", cluster)):
        if col is not None:
            roles[role] = col
    by_role = _group_counts(source, roles, memory_limit=memory_limit, threads=threads)
    _normalise(by_role, "judge", judge, positive)
    _normalise(by_role, "human", human, positive)
    keys = [r for r in roles if r not in ("judge", "human")] + ["judge", "human"]
    out = by_role.groupby(keys, dropna=False, sort=True, observed=True)["n"].sum().reset_index()
    out["n"] = out["n"].astype("int64")
    out = out.rename(columns={r: c for r, c in roles.items()})
    out.attrs["n_rows"] = int(out["n"].sum())
    return out


def reduce_panel(
    source,
    *,
    generator: str = "generator",
    validator: str = "validator",
    verdict: str = "verdict",
    positive: Any = None,
    memory_limit: str = "1GB",
    threads: int | None = None,
):
    """Reduce a panel's verdict log to the cells of ``ValidatorPanel.from_frames``.

    Parameters
    ----------
    source : str, path, or a list of them
        Parquet or CSV files with one row per (output, validator) verdict.
    generator, validator, verdict : str
        Columns: the generator of the output, the validator, its verdict (valid or not).
    positive : scalar, optional
        The verdict value meaning valid, when not a usual spelling.
    memory_limit, threads
        As in :func:`reduce_items`.

    Returns
    -------
    pandas.DataFrame
        ``generator, validator, n_judged, n_valid, n_missing`` (rows without a verdict are
        counted in ``n_missing``, not judged).
    """
    roles = {"generator": generator, "validator": validator, "verdict": verdict}
    g = _group_counts(source, roles, memory_limit=memory_limit, threads=threads)
    _normalise(g, "verdict", verdict, positive)
    g["valid"] = g["verdict"].fillna(0.0) * g["n"]
    g["judged"] = g["verdict"].notna() * g["n"]
    g["missing"] = g["verdict"].isna() * g["n"]
    cells = g.groupby(["generator", "validator"], sort=True)[["judged", "valid", "missing"]].sum()
    cells = cells.astype("int64").reset_index()
    return cells.rename(columns={"judged": "n_judged", "valid": "n_valid", "missing": "n_missing"})


def reduce_pairs(
    source,
    *,
    first: str = "first",
    second: str = "second",
    winner: str = "winner",
    judge: str | None = None,
    memory_limit: str = "1GB",
    threads: int | None = None,
):
    """Reduce a pairwise verdict log to win counts per ordered pair (and judge).

    Parameters
    ----------
    source : str, path, or a list of them
        Parquet or CSV files with one row per comparison, in the comparisons contract of
        :func:`judgebayes.data.ranking.pairwise_from_frames`: the item shown first, the
        item shown second, the winner's id (empty or ``"tie"`` for a tie).
    first, second, winner : str
        Column names.
    judge : str, optional
        Judge column: counts are kept per judge.
    memory_limit, threads
        As in :func:`reduce_items`.

    Returns
    -------
    pandas.DataFrame
        One row per distinct (``first``, ``second`` [, ``judge``]) in presentation order,
        with ``n_first`` (the first-shown item won), ``n_second``, ``n_tie`` and ``n``;
        item ids as strings (whole numbers without ``.0``), columns named as in the log.
        ``attrs["n_rows"]``: the rows of the log.
        :func:`judgebayes.inference.ranking.newton.bt_design_from_counts` fits naive
        Bradley-Terry on it with the same mode and Hessian as on every row.

    Raises
    ------
    InputError
        A winner that is neither shown item nor a tie (the message gives it and its count).
    """
    import duckdb

    roles = {"first": first, "second": second, "winner": winner}
    if judge is not None:
        roles["judge"] = judge
    con = _connect(memory_limit, threads)
    try:
        scan = _scan(source)
        types = _column_types(con, scan, source, roles)
        numeric = ("INT", "FLOAT", "DOUBLE", "DECIMAL", "REAL")

        def is_num(col):
            return any(k in types[col] for k in numeric)

        if is_num(first) and is_num(second):  # numeric ids: 7.0 is item 7, 'tie' no id
            f, s_ = _q(first), _q(second)
            w = _q(winner) if is_num(winner) else f"TRY_CAST({_q(winner)} AS DOUBLE)"
        else:
            f, s_, w = (f"CAST({_q(c)} AS VARCHAR)" for c in (first, second, winner))
        raw_w = f"CAST({_q(winner)} AS VARCHAR)"
        words = ", ".join("'" + t + "'" for t in sorted(TIE_WORDS))
        # the outcome is classified inside the scan, so only one row per ordered pair
        # (and judge) leaves DuckDB; numeric ids compare as numbers (7.0 is item 7)
        tie = f"({raw_w} IS NULL OR lower(trim({raw_w})) IN ({words}))"
        won_f = f"(NOT {tie} AND {w} = {f})"
        won_s = f"(NOT {tie} AND {w} = {s_} AND {w} <> {f})"
        keys = [f"{_q(first)} AS first", f"{_q(second)} AS second"]
        if judge is not None:
            keys.append(f"CAST({_q(judge)} AS VARCHAR) AS judge")
        sql = (
            f"SELECT {', '.join(keys)}, "
            f"count(*) FILTER (WHERE {won_f}) AS n_first, "
            f"count(*) FILTER (WHERE {won_s}) AS n_second, "
            f"count(*) FILTER (WHERE {tie}) AS n_tie, count(*) AS n, "
            f"any_value({raw_w}) FILTER (WHERE NOT ({tie} OR coalesce({w} = {f}, false) OR "
            f"coalesce({w} = {s_}, false))) AS bad "
            f"FROM {scan} GROUP BY ALL"
        )
        try:
            g = con.execute(sql).df()
        except duckdb.Error as exc:
            raise InputError(
                f"log {source}: the {winner!r} column cannot be compared with the item "
                f"columns: {str(exc).splitlines()[0]}",
                field="winner",
                value=winner,
            ) from None
    finally:
        con.close()
    if g["bad"].notna().any():
        r = int(g["bad"].notna().to_numpy().nonzero()[0][0])
        n_bad = int((g["n"] - g["n_first"] - g["n_second"] - g["n_tie"]).sum())
        raise InputError(
            f"column {winner!r}: winner {g['bad'].iloc[r]!r} is neither shown item "
            f"({str(g['first'].iloc[r])!r}, {str(g['second'].iloc[r])!r}) in {n_bad} "
            "row(s); leave it empty or write 'tie' for a tie",
            field=winner,
            value=str(g["bad"].iloc[r]),
        )
    a, b = clean_ids(g["first"]), clean_ids(g["second"])
    if a.isna().any() or b.isna().any():
        role = "first" if a.isna().any() else "second"
        raise InputError(
            f"column {roles[role]!r}: a comparison without an item id",
            field=roles[role],
            value=None,
        )
    g["first"], g["second"] = a, b
    cols = ["first", "second", *(["judge"] if judge is not None else [])]
    counts = ["n_first", "n_second", "n_tie", "n"]
    out = g[[*cols, *counts]].sort_values(cols, ignore_index=True)
    out[counts] = out[counts].astype("int64")
    out = out.rename(columns={r: c for r, c in roles.items() if r in cols})
    out.attrs["n_rows"] = int(out["n"].sum())
    return out
