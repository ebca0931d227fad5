"""The items study a command reads: from item files, or from an eval tool's log."""

from __future__ import annotations

from judgebayes.cli.io.output import read_csv

_LOG_SOURCES = ("inspect", "lm_eval", "promptfoo")


def _items_from_log(args):
    """The items frame of the ``--inspect`` / ``--lm-eval`` / ``--promptfoo`` source, or None."""
    from judgebayes.errors import InputError

    given = [k for k in _LOG_SOURCES if getattr(args, k, None) is not None]
    if not given:
        if getattr(args, "labels", None) is not None:
            raise InputError(
                "--labels goes with a log (--inspect, --lm-eval or --promptfoo); a CSV "
                "carries its labels in the --human column",
                field="labels",
                value=args.labels,
            )
        return None
    flags = [f"--{k.replace('_', '-')}" for k in given]
    if len(given) > 1 or args.test is not None or args.calibration is not None:
        other = flags[1] if len(given) > 1 else "a CSV file"
        raise InputError(
            f"{flags[0]} and {other} both give the items; give one source",
            field=given[0],
            value=getattr(args, given[0]),
        )
    from judgebayes.data import logs

    src = getattr(args, given[0])
    if given[0] == "inspect":
        return logs.inspect_items(src, args.labels, scorer=args.scorer, positive=args.positive)
    if given[0] == "lm_eval":
        if args.metric is None:
            raise InputError(
                "--lm-eval needs --metric (the per-sample metric that is the verdict)",
                field="metric",
                value=None,
            )
        return logs.lm_eval_items(src, args.labels, metric=args.metric, positive=args.positive)
    return logs.promptfoo_items(src, args.labels, assertion=args.assertion)


def study_from_args(args):
    """The accuracy study the item-file arguments (:func:`add_item_files`) describe.

    Without ``--calibration``: the items design (one file, blank human label =
    unlabelled; ``--stratum``, ``--cluster``, ``--weights`` and ``--estimand`` where the
    subcommand has them).  With it: the two-frame study.
    """
    from judgebayes.errors import InputError
    from judgebayes.studies.accuracy import AccuracyStudy

    design = {
        k: getattr(args, k, None)
        for k in ("stratum", "cluster", "weights", "item", "covariates", "judge_rates")
    }
    for k in ("labelled_by", "design_columns", "order"):
        if getattr(args, k, None) is not None:
            design[k] = getattr(args, k)
    if design["covariates"] and any(":" in c for c in design["covariates"]):
        # COLUMN:TERM, e.g. length:spline
        design["covariates"] = dict(
            (c.rsplit(":", 1) if ":" in c else (c, "linear")) for c in design["covariates"]
        )
    if design["judge_rates"] is None:
        del design["judge_rates"]  # the study's own default
    estimand = getattr(args, "estimand", "items")
    df = _items_from_log(args)
    if df is not None:
        if "epoch" in df.columns and df["epoch"].nunique() > 1 and design["cluster"] is None:
            design["cluster"] = "sample_id"  # epochs of one sample are correlated outputs
        return AccuracyStudy.from_items(
            df, judge="judge", human="human", system="system", **design, estimand=estimand
        )
    if args.test is None:
        raise InputError(
            "no items: give a CSV file, or a log with --inspect, --lm-eval or --promptfoo",
            field="test",
            value=None,
        )
    common = dict(judge=args.judge, human=args.human, system=args.system, positive=args.positive)
    if args.calibration is not None:
        if design["item"] is not None:
            raise InputError(
                "--item pairs the systems of one items file; with --calibration the two "
                "files are a calibration design (leave out --item, or --calibration)",
                field="item",
                value=design["item"],
            )
        flags = {"labelled_by": "--labelled-by", "design_columns": "--design-column"}
        for k in ("labelled_by", "design_columns", "order"):
            if k in design:
                raise InputError(
                    f"{flags.get(k, '--order')} describes how an items file was labelled; "
                    "with --calibration the "
                    "two files are a calibration design (leave out one of them)",
                    field=k,
                    value=design[k],
                )
        test_df = read_csv(args.test, "test")
        return AccuracyStudy.from_frames(
            test_df, read_csv(args.calibration, "calibration"), **common
        )
    df = read_csv(args.test, "items")
    humans = [h.strip() for h in args.human.split(",") if h.strip()]
    if len(humans) > 1:
        common["human"] = humans
        design["truth"] = args.truth
    elif args.human not in df.columns:
        raise InputError(
            f"{args.test} has no human-label column {args.human!r}: without --calibration the "
            "file is read as one items file (every item judged, the human label blank where "
            "unlabelled); give --human, or --calibration for a separate calibration file",
            field="human",
            value=args.human,
        )
    return AccuracyStudy.from_items(df, **common, **design, estimand=estimand)
