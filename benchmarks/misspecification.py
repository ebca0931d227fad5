"""Each model on data that break its assumptions: does the interval cover, or does a check fire?

Every data set here is simulated by code in this file (numpy only), not by the package's
simulators or models.  For each condition and method the rule is: coverage of the 95%
interval at least 0.95 - 2.5 Monte-Carlo sd, or the package's own check flags the data in
at least 80% of the broken sets while flagging at most 10% of sets where the assumption
holds.  Printed: one line per row with the figure, its Monte-Carlo sd and whether the
rule is met.

Conditions (``--only`` picks some):

``edges``        rates 0.01 and 0.99 with 20 and 50 labels (1,000 items; judge 0.9 / 0.7)
``clusters``     4 and 8 prompts of 50 responses (ICC 0.1), 15 labels per prompt
``design``       labels drawn with probability 0.3 for judge-positives, 0.05 for negatives
``covariate``    the judge's sensitivity and specificity depend on an item covariate
                 (0.97 / 0.9 on short answers, 0.7 / 0.5 on long ones), random labels
``self``         two systems, the judge far more lenient on B's answers (specificity 0.8
                 on A, 0.4 on B): the shared-rates model's assumption broken
``shift``        two systems whose answers differ in length (B's longer by 1.4 sd), the
                 judge's errors following length the same way on both (lenient on long
                 answers): the constant shared rates are wrong for both systems, rates
                 shared as a function of length (``covariates=``) are not
``judges``       three judges whose errors share an item difficulty (tau = 2)
``channel``      pairwise judge that overrides the true winner toward one system 30% of
                 the time: the default judge_error channel (judges may favour items)
                 against the constant one, whose check should fire
``labelling``    labels that follow what the judge's errors follow: short answers labelled
                 more often (smoothly in log length) while the judge is lenient on long
                 ones; labels from the first 40% of a log whose judge drifts; random and
                 verdict-stratified labels as the controls of the labelling check
``unequal``      prompts of unequal sizes (one holding half the responses; lognormal
                 sizes) at 5, 10 and 20 prompts: the cluster-robust closed form
``ushape``       two systems, B's answers longer; the judge lenient on very short and very
                 long answers (its false-positive rate quadratic in length): the
                 covariate model with a linear and with a spline term
``repeats``      10 prompts x 4 generations x 3 judge runs, prompt effects normal (sd 1,
                 2) or bimodal (easy and hard prompts at -1.5 / +1.5 logits), and 40
                 prompts at -2.5 / +2.5: the variance split's closed-form intervals (10
                 prompts) and its NUTS model (on the first ``--nuts-reps`` sets)
``self_verdict`` labels stratified by the verdict with equal counts per system, systems
                 with different pass rates: the self-preference check with shared rates
                 and with specificity 0.8 against 0.4

Run: python benchmarks/misspecification.py [--reps 200] [--only edges self ...]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.special import expit

import judgebayes as jb

NOMINAL = 0.95
#: NUTS fits per row where a row also runs the milliseconds engines
NUTS_REPS = 100
#: sets of the shift condition's lenience-beyond-length fits (three NUTS fits each)
BEYOND_REPS = 30


def _rule_cover(hits) -> str:
    hits = np.asarray(hits, dtype=float)
    sd = np.sqrt(NOMINAL * (1 - NOMINAL) / hits.size)
    ok = hits.mean() >= NOMINAL - 2.5 * sd
    return (
        f"coverage {hits.mean():.3f} (n {hits.size}, MC sd {sd:.3f}) {'MET' if ok else 'NOT MET'}"
    )


def _rule_check(broken, held) -> str:
    b, h = np.mean(broken), np.mean(held)
    ok = b >= 0.8 and h <= 0.1
    return (
        f"check flags {b:.2f} of broken sets (n {len(broken)}), {h:.2f} where the assumption "
        f"holds (n {len(held)}) {'MET' if ok else 'NOT MET'}"
    )


def _items(rng, n, theta, sens, spec, n_lab):
    h = rng.random(n) < theta
    v = np.where(h, rng.random(n) < sens, rng.random(n) >= spec)
    lab = np.zeros(n, bool)
    lab[rng.choice(n, n_lab, replace=False)] = True
    return pd.DataFrame(
        {"judge": v.astype(int), "human": np.where(lab, h.astype(float), np.nan)}
    ), h


def _covers(fit, truth, row=0) -> bool:
    iv = fit.interval().iloc[row]
    return bool(iv["lower"] <= truth <= iv["upper"])


def edges(reps):
    for theta in (0.01, 0.99):
        for n_lab in (20, 50):
            hits = {"exact": [], "closed_form": [], "nuts": []}
            for r in range(reps):
                rng = np.random.default_rng(r)
                frame, h = _items(rng, 1000, theta, 0.9, 0.7, n_lab)
                study = jb.AccuracyStudy.from_items(frame)
                for m in hits:
                    if m == "nuts" and r >= NUTS_REPS:
                        continue
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", jb.errors.ConvergenceWarning)
                        fit = study.fit(m, random_seed=r)
                    hits[m].append(_covers(fit, h.mean()))
            for m, x in hits.items():
                print(f"edges  rate {theta} {n_lab} labels  {m:12s} {_rule_cover(x)}")


def clusters(reps):
    # the process rate: the mean over prompts of the logit-normal prompt rates
    truth = expit(np.log(1.5) + 0.6 * np.random.default_rng(0).normal(size=2_000_000)).mean()
    for g in (4, 8):
        hits = []
        for r in range(reps):
            rng = np.random.default_rng(r)
            # prompt rates logit-normal with sd giving ICC ~0.1 around 0.6
            rates = expit(np.log(1.5) + 0.6 * rng.normal(size=g))
            frames = []
            for i, p in enumerate(rates):
                f, _ = _items(rng, 50, p, 0.9, 0.7, 15)
                frames.append(f.assign(prompt=f"p{i}"))
            frame = pd.concat(frames, ignore_index=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", jb.errors.FewClustersWarning)
                study = jb.AccuracyStudy.from_items(frame, cluster="prompt", estimand="process")
            hits.append(_covers(study.fit("closed_form"), truth))
        print(f"clusters  {g} prompts  closed_form   {_rule_cover(hits)}")


def design(reps):
    hits = {"exact": [], "closed_form (weights)": [], "labels_only (weights)": []}
    for r in range(reps):
        rng = np.random.default_rng(r)
        frame, _ = _items(rng, 2000, 0.3, 0.9, 0.7, 2000)
        pi = np.where(frame["judge"] == 1, 0.3, 0.05)
        keep = rng.random(len(frame)) < pi
        frame["human"] = frame["human"].where(keep)
        frame["w"] = 1 / pi
        plain = jb.AccuracyStudy.from_items(frame, estimand="process")
        weighted = jb.AccuracyStudy.from_items(frame, weights="w", estimand="process")
        hits["exact"].append(_covers(plain.fit("exact", random_seed=r), 0.3))
        hits["closed_form (weights)"].append(_covers(weighted.fit("closed_form"), 0.3))
        hits["labels_only (weights)"].append(_covers(weighted.fit("labels_only"), 0.3))
    for m, x in hits.items():
        print(f"design  verdict-dependent labels  {m:34s} {_rule_cover(x)}")


def covariate(reps):
    hits = {"exact": [], "closed_form": []}
    for r in range(reps):
        rng = np.random.default_rng(r)
        n = 1000
        long = rng.random(n) < 0.5
        h = rng.random(n) < np.where(long, 0.7, 0.4)
        sens, spec = np.where(long, 0.7, 0.97), np.where(long, 0.5, 0.9)
        v = np.where(h, rng.random(n) < sens, rng.random(n) >= spec)
        lab = np.zeros(n, bool)
        lab[rng.choice(n, 100, replace=False)] = True
        frame = pd.DataFrame(
            {"judge": v.astype(int), "human": np.where(lab, h.astype(float), np.nan)}
        )
        study = jb.AccuracyStudy.from_items(frame)
        for m in hits:
            hits[m].append(_covers(study.fit(m, random_seed=r), h.mean()))
    for m, x in hits.items():
        print(f"covariate  judge error by item length  {m:12s} {_rule_cover(x)}")


def _two_systems(rng, spec_b, n=400, n_lab=100):
    frames, truth = [], {}
    for s, (theta, spec) in {"A": (0.7, 0.8), "B": (0.65, spec_b)}.items():
        f, h = _items(rng, n, theta, 0.9, spec, n_lab)
        frames.append(f.assign(system=s))
        truth[s] = h.mean()
    return pd.concat(frames, ignore_index=True), truth


def _contrast(study, method, r, d):
    """(covered A - B?, width, gate passed?) of one fit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.errors.ConvergenceWarning)
        fit = study.fit(method, random_seed=r)
    c = fit.contrasts().iloc[0]
    sign = 1 if c["a"] == "A" else -1
    passed = fit.diagnostics is None or fit.diagnostics.passed
    return bool(c["lower"] <= sign * d <= c["upper"]), c["upper"] - c["lower"], passed


def _print_rows(cond, what, rows):
    for m, x in rows.items():
        x = np.array(x, dtype=float)
        print(
            f"{cond}  {what}  {m:36s} {_rule_cover(x[:, 0])}  width {x[:, 1].mean():.3f}  "
            f"gate failed {int((1 - x[:, 2]).sum())}"
        )


#: the items NUTS fits compared under a judge that errs differently on one system
JUDGE_RATE_FITS = (
    ("exact (nothing shared)", "exact", {}),
    ("nuts default (pooled judge rates)", "nuts", {}),
    ("nuts judge_rates='shared'", "nuts", {"judge_rates": "shared"}),
    ("nuts judge_rates='per_system'", "nuts", {"judge_rates": "per_system"}),
)


def self_preference(reps):
    rows = {spec_b: {name: [] for name, _, _ in JUDGE_RATE_FITS} for spec_b in (0.4, 0.8)}
    for n_lab in (100, 200):
        flags = {0.8: [], 0.4: []}
        for spec_b in flags:
            for r in range(reps):
                rng = np.random.default_rng(r)
                frame, truth = _two_systems(rng, spec_b, n_lab=n_lab)
                shared = jb.AccuracyStudy.from_items(frame, system="system", judge_rates="shared")
                flags[spec_b].append(bool(shared.check()["flagged"].any()))
                if n_lab == 100 and r < NUTS_REPS:
                    d = truth["A"] - truth["B"]
                    for name, m, kw in JUDGE_RATE_FITS:
                        study = jb.AccuracyStudy.from_items(frame, system="system", **kw)
                        rows[spec_b][name].append(_contrast(study, m, r, d))
        rule = _rule_check(flags[0.4], flags[0.8])
        print(f"self  {n_lab} labels per system  check self_preference  {rule}")
    _print_rows("self", "A - B, judge lenient on B (spec 0.4), 100 labels", rows[0.4])
    _print_rows("self", "A - B, equal judge rates, 100 labels", rows[0.8])


def _shifted(rng, follows=True, extra_b=0.0, n=400, n_lab=100, ushape=False):
    """Two systems, B's answers longer; the judge's rates logistic in length when
    ``follows``; ``extra_b`` adds a lenience on B's answers beyond length (logit scale);
    ``ushape``: instead, the false-positive rate rises on very short and very long answers
    (quadratic in the standardised length), the sensitivity constant.
    """
    frames, truth = [], {}
    for s, mu in (("A", -0.7), ("B", 0.7)):
        x = rng.normal(mu, 1.0, n)
        h = rng.random(n) < expit(0.6 + (0.3 if ushape else 0.5) * x)
        slope = (0.8, 1.2) if follows and not ushape else (0.0, 0.0)
        sens = expit(2.0 + slope[0] * x)
        fpr = expit(-1.5 + slope[1] * x + (extra_b if s == "B" else 0.0))
        if ushape:
            fpr = expit(-2.2 + 1.3 * x * x)
        v = np.where(h, rng.random(n) < sens, rng.random(n) < fpr)
        lab = np.zeros(n, bool)
        lab[rng.choice(n, n_lab, replace=False)] = True
        frames.append(
            pd.DataFrame(
                {
                    "system": s,
                    "judge": v.astype(int),
                    "human": np.where(lab, h.astype(float), np.nan),
                    "length": 200 + 60 * x,  # words, as a user would pass them
                }
            )
        )
        truth[s] = h.mean()
    return pd.concat(frames, ignore_index=True), truth


def shift(reps):
    fits = (
        *JUDGE_RATE_FITS,
        # with covariates the default judge rates are shared (the covariates carry what
        # differs between the systems)
        ("nuts default, covariates=length", "nuts", {"covariates": "length"}),
    )
    rows = {name: [] for name, _, _ in fits}
    flags = {"plain": [], "follows": [], "given": [], "beyond": []}
    for r in range(reps):
        rng = np.random.default_rng(r)
        frame, truth = _shifted(rng)
        kw = {"system": "system", "judge_rates": "shared"}
        plain = jb.AccuracyStudy.from_items(frame, **kw)
        given = jb.AccuracyStudy.from_items(frame, covariates="length", **kw)
        flags["follows"].append(bool(plain.check()["flagged"].any()))
        flags["given"].append(bool(given.check()["flagged"].any()))
        held, _ = _shifted(rng, follows=False)
        held_check = jb.AccuracyStudy.from_items(held, **kw).check()
        flags["plain"].append(bool(held_check["flagged"].any()))
        beyond, _ = _shifted(rng, extra_b=1.5, n_lab=200)
        s = jb.AccuracyStudy.from_items(beyond, covariates="length", **kw)
        flags["beyond"].append(bool(s.check()["flagged"].any()))
        if r >= NUTS_REPS:
            continue
        d = truth["A"] - truth["B"]
        for name, m, fkw in fits:
            study = jb.AccuracyStudy.from_items(frame, system="system", **fkw)
            rows[name].append(_contrast(study, m, r, d))
    _print_rows("shift", "A - B, errors follow length", rows)
    # the covariate model when the judge is also lenient on B beyond length (seeds 1000+)
    beyond_fits = (
        ("nuts default, covariates=length", {"covariates": "length"}),
        (
            "nuts per_system, covariates=length",
            {"covariates": "length", "judge_rates": "per_system"},
        ),
        ("nuts default (pooled, no covariates)", {}),
    )
    beyond_rows = {name: [] for name, _ in beyond_fits}
    for r in range(min(reps, BEYOND_REPS)):
        rng = np.random.default_rng(1000 + r)
        frame, truth = _shifted(rng, extra_b=1.5)
        for name, fkw in beyond_fits:
            study = jb.AccuracyStudy.from_items(frame, system="system", **fkw)
            beyond_rows[name].append(_contrast(study, "nuts", r, truth["A"] - truth["B"]))
    _print_rows("shift", "A - B, lenient on B beyond length, 100 labels", beyond_rows)
    print(
        "shift  shared rates  check self_preference  "
        f"{_rule_check(flags['follows'], flags['plain'])}"
    )
    print(
        "shift  covariates=length  check self_preference given length (lenience on B beyond "
        f"length, 200 labels)  {_rule_check(flags['beyond'], flags['given'])}"
    )


def _judges(rng, tau, n=600, n_lab=300):
    h = rng.random(n) < 0.6
    z = rng.normal(size=n)
    right = rng.random((n, 3)) < expit(np.array([1.6, 1.4, 1.2])[None, :] - tau * z[:, None])
    votes = np.where(right, h[:, None], ~h[:, None]).astype(int)
    human = np.where(np.arange(n) < n_lab, h.astype(float), np.nan)
    return pd.DataFrame(votes, columns=["j0", "j1", "j2"]).assign(human=human), h.mean()


def judges(reps):
    flags = {0.0: [], 2.0: []}
    hits = []
    for tau in flags:
        for r in range(reps):
            frame, truth = _judges(np.random.default_rng(r), tau)
            study = jb.AccuracyStudy.from_items(frame, judge=["j0", "j1", "j2"])
            flags[tau].append(bool(study.check()["flagged"].any()))
            if tau == 2.0:
                hits.append(_covers(study.fit(random_seed=r), truth))
    print(f"judges  correlated (tau 2)  exact (default)   {_rule_cover(hits)}")
    print(
        f"judges  latent-class nuts   check judge_dependence  {_rule_check(flags[2.0], flags[0.0])}"
    )


def _pairs(seed, override, n=400, labelled=0.3):
    return jb.simulate.simulate_favouring_judge(n, override=override, labelled=labelled, seed=seed)


def channel(reps):
    q = np.array([0.0, 0.3, -0.2, 0.5, -0.4])
    truth = q - q.mean()
    flags = {0.0: [], 0.3: []}
    hits = {"default (judge may favour items)": [], "constant channel": []}
    for override in flags:
        for r in range(reps):
            rk = jb.PairwiseRanking.from_frames(_pairs(r, override), human="human")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", jb.errors.ConvergenceWarning)
                const = rk.fit("judge_error", random_seed=r, warn=False, judge_bias="none")
                flags[override].append(bool(rk.check(const)["flagged"].any()))
                if override == 0.0:
                    continue
                fits = {
                    "default (judge may favour items)": rk.fit(
                        "judge_error", random_seed=r, warn=False
                    ),
                    "constant channel": const,
                }
            for name, fit in fits.items():
                th = fit.theta_draws()
                d = th - th.mean(1, keepdims=True)
                lo, hi = np.quantile(d[:, 0], [0.025, 0.975])
                hits[name].append(bool(lo <= truth[0] <= hi))
    for name, x in hits.items():
        print(f"channel  favoured system's quality  {name:34s} {_rule_cover(x)}")
    rule = _rule_check(flags[0.3], flags[0.0])
    print(f"channel  constant channel  check channel  {rule}")


def _log(rng, n, labelling):
    """A judged log: length lognormal, the judge's specificity falling in log length (0.95
    to 0.45 across the middle 90%) or with time (drift), labels by ``labelling``."""
    z = rng.normal(size=n)  # standardised log length
    t = np.arange(n) / n  # position in the log
    h = rng.random(n) < 0.55
    spec = expit(0.8 - 1.6 * t * 3) if labelling == "drift" else expit(0.8 - 1.5 * z)
    v = np.where(h, rng.random(n) < 0.88, rng.random(n) >= spec)
    p = {
        "length": expit(-1.6 - 1.3 * z),
        "drift": np.where(t < 0.4, 0.3, 0.0),
        "random": np.full(n, 0.15),
        "verdict": np.where(v, 0.25, 0.07),
    }[labelling]
    lab = rng.random(n) < p
    frame = pd.DataFrame(
        {
            "judge": v.astype(int),
            "human": np.where(lab, h.astype(float), np.nan),
            "length": np.exp(5 + 0.7 * z),
            "t": t,
        }
    )
    return frame, h.mean()


def labelling(reps):
    flags = {}
    for kind in ("length", "drift", "random", "verdict"):
        hits = {"closed_form": [], "exact": [], "closed_form labelled_by": []}
        flagged = []
        by = "t" if kind == "drift" else "length"
        for r in range(reps):
            frame, truth = _log(np.random.default_rng(r), 1500, kind)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", jb.errors.LabellingWarning)
                study = jb.AccuracyStudy.from_items(frame, design_columns=["length"])
                flagged.append(bool(study.check().failures))
                hits["closed_form"].append(_covers(study.fit("closed_form"), truth))
                hits["exact"].append(_covers(study.fit("exact", random_seed=r), truth))
                strat = jb.AccuracyStudy.from_items(frame, labelled_by=by)
                hits["closed_form labelled_by"].append(_covers(strat.fit("closed_form"), truth))
        flags[kind] = flagged
        for m, x in hits.items():
            print(f"labelling  {kind:8s} {m:26s} {_rule_cover(x)}")
    for kind in ("length", "drift"):
        for ctl in ("random", "verdict"):
            rule = _rule_check(flags[kind], flags[ctl])
            print(f"labelling  {kind} against {ctl}  check labelling  {rule}")


def unequal(reps):
    x, w = np.polynomial.hermite_e.hermegauss(80)
    truth = float(np.sum(w * expit(0.2 + 0.8 * x)) / np.sqrt(2 * np.pi))
    for kind in ("one holds half", "lognormal"):
        for g in (5, 10, 20):
            hits = []
            for r in range(reps):
                rng = np.random.default_rng(r)
                if kind == "lognormal":
                    sizes = np.maximum(2, rng.lognormal(np.log(25), 1.1, g).round()).astype(int)
                else:
                    sizes = np.r_[12 * (g - 1), np.full(g - 1, 12)]
                frames = []
                for i, (k, e) in enumerate(zip(sizes, rng.normal(size=g), strict=True)):
                    f, h = _items(rng, int(k), expit(0.2 + 0.8 * e), 0.85, 0.75, 0)
                    lab = rng.random(int(k)) < 0.35
                    frames.append(f.assign(prompt=i, human=np.where(lab, h, np.nan)))
                frame = pd.concat(frames, ignore_index=True)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", jb.errors.FewClustersWarning)
                    warnings.simplefilter("ignore", jb.errors.LabellingWarning)
                    study = jb.AccuracyStudy.from_items(frame, cluster="prompt", estimand="process")
                    hits.append(_covers(study.fit("closed_form"), truth))
            print(f"unequal  {kind:14s} {g:2d} prompts  closed_form  {_rule_cover(hits)}")


def ushape(reps):
    fits = (
        ("nuts covariates=length (linear)", {"covariates": "length"}),
        ("nuts covariates={length: spline}", {"covariates": {"length": "spline"}}),
    )
    rows = {name: [] for name, _ in fits}
    flags = {name: [] for name, _ in fits}
    for r in range(min(reps, NUTS_REPS)):
        frame, truth = _shifted(np.random.default_rng(r), ushape=True)
        for name, fkw in fits:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", jb.errors.LabellingWarning)
                study = jb.AccuracyStudy.from_items(frame, system="system", **fkw)
                t = study.check().table.query("check == 'self_preference'")
                flags[name].append(bool(t["flagged"].any()))
                rows[name].append(_contrast(study, "nuts", r, truth["A"] - truth["B"]))
    _print_rows("ushape", "A - B, judge lenient on short and long answers", rows)
    for name, f in flags.items():
        print(f"ushape  {name}  check self_preference given length flags {np.mean(f):.2f}")


#: (label, prompt effect: "normal" sd or "bimodal" +-logit, prompts) of the variance split rows
REPEATS = (
    ("10 prompts, normal sd 1", "normal", 1.0, 10),
    ("10 prompts, normal sd 2", "normal", 2.0, 10),
    ("10 prompts, bimodal 1.5", "bimodal", 1.5, 10),
    ("40 prompts, bimodal 2.5", "bimodal", 2.5, 40),
)


def _repeats_truth(shape, size):
    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    if shape == "bimodal":
        a_nodes, a_w = np.array([-size, size]), np.array([0.5, 0.5])
    else:
        a_nodes, a_w = size * x, w
    p = expit(0.3 + a_nodes[:, None] + 0.8 * x[None, :])
    m = p @ w
    return {
        "prompt": float(np.sum(a_w * m**2) - np.sum(a_w * m) ** 2),
        "generation": float(np.sum(a_w * (p**2 @ w - m**2))),
        "judge run": float(np.sum(a_w * ((p * (1 - p)) @ w))),
    }


def repeats(reps):
    for label, shape, size, n_p in REPEATS:
        truth = _repeats_truth(shape, size)
        hits = {"closed_form": [], "nuts": []}
        for r in range(reps):
            rng = np.random.default_rng(r)
            a = rng.choice([-size, size], n_p) if shape == "bimodal" else rng.normal(0, size, n_p)
            y = rng.random((n_p, 4, 3)) < expit(
                0.3 + a[:, None, None] + rng.normal(0, 0.8, (n_p, 4, 1))
            )
            i, g, _ = np.indices(y.shape)
            frame = pd.DataFrame(
                {"prompt": i.ravel(), "generation": g.ravel(), "judge": y.ravel() * 1}
            )
            study = jb.RepeatsStudy.from_frame(frame)
            methods = ("closed_form", "nuts") if r < NUTS_REPS else ("closed_form",)
            for method in methods:
                if method == "closed_form" and n_p != 10:
                    continue
                iv = study.fit(method, random_seed=r).interval()
                hits[method].append(
                    [iv.loc[c, "lower"] <= v <= iv.loc[c, "upper"] for c, v in truth.items()]
                )
        for method, h in hits.items():
            h = np.array(h)
            for j, c in enumerate(truth):
                if h.size:
                    print(f"repeats  {label:24s} {c:10s} {method:11s}  {_rule_cover(h[:, j])}")


def self_verdict(reps):
    flags = {}
    for spec_b in (0.8, 0.4):
        out = []
        for r in range(reps):
            rng = np.random.default_rng(r)
            frames = []
            for s, theta, spec in (("A", 0.8, 0.8), ("B", 0.3, spec_b)):
                f, h = _items(rng, 700, theta, 0.85, spec, 0)
                lab = np.zeros(700, bool)
                for val in (0, 1):  # 100 labels among each verdict of each system
                    idx = np.flatnonzero(f["judge"].to_numpy() == val)
                    lab[rng.choice(idx, min(100, idx.size), replace=False)] = True
                frames.append(f.assign(system=s, human=np.where(lab, h, np.nan)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", jb.errors.LabellingWarning)
                study = jb.AccuracyStudy.from_items(pd.concat(frames), system="system")
                t = study.check().table.query("check == 'self_preference'")
            out.append(bool(t["flagged"].any()))
        flags[spec_b] = out
    rule = _rule_check(flags[0.4], flags[0.8])
    print(f"self_verdict  verdict-stratified labels  check self_preference  {rule}")


CONDITIONS = {
    "edges": edges,
    "clusters": clusters,
    "design": design,
    "covariate": covariate,
    "self": self_preference,
    "shift": shift,
    "judges": judges,
    "channel": channel,
    "labelling": labelling,
    "unequal": unequal,
    "ushape": ushape,
    "repeats": repeats,
    "self_verdict": self_verdict,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--channel-reps", type=int, default=20)
    ap.add_argument("--only", nargs="*", default=list(CONDITIONS))
    ap.add_argument("--nuts-reps", type=int, default=NUTS_REPS, help="NUTS fits per row")
    a = ap.parse_args()
    globals()["NUTS_REPS"] = a.nuts_reps
    for name in a.only:
        t0 = time.perf_counter()
        CONDITIONS[name](a.channel_reps if name == "channel" else a.reps)
        print(f"  ({name}: {time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
