"""The items design against ppi_py, on the same frames, in one process.

1. Coverage and width (the reference simulation): N = 5,000 items, theta 0.6, judge
   sensitivity 0.9 / specificity 0.7, 300 random human labels, ``--reps`` replicates.
   Process estimand (coverage of theta): closed form, PPI++ (ours and ppi_py's), PPI,
   labels only, exact, Laplace (every replicate) and NUTS (the first ``--nuts``).  Items
   estimand (coverage of the realised N-item rate): closed form, exact, NUTS.
2. Finite population at 10 / 50 / 90% labelled: width of the N-item interval vs PPI++.
3. Clustered items (200 prompts x 10 responses, intra-prompt correlation 0.3): iid vs
   cluster-robust closed form.
5. Real data (LLMBar, bundled): each judge's verdicts on every item of a subset, gold
   labels kept on a random 30% (``--reps`` draws).  The N-item rate is known exactly
   (all gold labels), so coverage is measured on real verdicts: the items design's
   closed form against the two-frame route (unlabelled items as test, labelled as a
   stratified calibration set: Lang-Reiczigel) and PPI++.
4. Speed: the study API's closed form (``from_items`` + ``fit``) vs ``ppi_py.ppi_mean_ci``
   on the same frame; one million items, 5% labelled: closed form and Laplace.

Monte-Carlo error of a coverage near 0.95 over R replicates: sd = sqrt(0.95 * 0.05 / R)
(0.0097 at R = 500, 0.031 at R = 50).

Usage: python benchmarks/items_ppi.py [--reps 500] [--nuts 50] [--part 1,2,3,4]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import judgebayes as jb
from judgebayes.data.items import items_from_frame
from judgebayes.inference import items as ie

warnings.filterwarnings("ignore")


def _arrays(frame):
    lab = frame["human"].notna().to_numpy()
    y = frame["human"].to_numpy()[lab]
    yh = frame["judge"].to_numpy(float)
    return y, yh[lab], yh[~lab]


def part1(reps: int, n_nuts: int, n_laplace: int) -> None:
    import ppi_py

    rows: dict[str, list] = {}

    def add(name, lo, hi, truth, seconds):
        rows.setdefault(name, []).append((lo <= truth <= hi, hi - lo, seconds))

    for r in range(reps):
        sim = jb.simulate.simulate_items(seed=r)
        f = sim.frame
        t0 = time.perf_counter()
        lo, hi = ppi_py.ppi_mean_ci(*_arrays(f), alpha=0.05)
        add("ppi_py PPI++", lo[0], hi[0], sim.theta, time.perf_counter() - t0)
        for est, truth in (("process", sim.theta), ("items", sim.rate_items)):
            t0 = time.perf_counter()
            study = jb.AccuracyStudy.from_items(f, estimand=est)
            fit = study.fit("closed_form")
            lo, hi = fit.interval().iloc[0][["lower", "upper"]]
            add(f"closed form [{est}]", lo, hi, truth, time.perf_counter() - t0)
            t0 = time.perf_counter()
            fit = study.fit("exact", random_seed=r)
            lo, hi = fit.interval().iloc[0][["lower", "upper"]]
            add(f"exact [{est}]", lo, hi, truth, time.perf_counter() - t0)
            if r < n_laplace:
                t0 = time.perf_counter()
                try:
                    fit = study.fit("laplace", random_seed=r)
                    lo, hi = fit.interval().iloc[0][["lower", "upper"]]
                except jb.errors.LaplaceError:
                    lo = hi = np.nan
                add(f"laplace [{est}]", lo, hi, truth, time.perf_counter() - t0)
            if r < n_nuts:
                t0 = time.perf_counter()
                fit = study.fit("nuts", random_seed=r)
                lo, hi = fit.interval().iloc[0][["lower", "upper"]]
                add(f"nuts [{est}]", lo, hi, truth, time.perf_counter() - t0)
        study = jb.AccuracyStudy.from_items(f, estimand="process")
        for m in ("ppi_plus_plus", "ppi", "labels_only"):
            t0 = time.perf_counter()
            lo, hi = study.fit(m).interval().iloc[0][["lower", "upper"]]
            add(m, lo, hi, sim.theta, time.perf_counter() - t0)
    print(
        f"part 1: N = 5000, 300 random labels, {reps} replicates (MC sd of 0.95: "
        f"{np.sqrt(0.95 * 0.05 / reps):.4f})"
    )
    print(f"{'method':28s} {'R':>4s} {'coverage':>8s} {'width':>7s} {'ms/rep':>8s}")
    for name, v in rows.items():
        a = np.array(v, float)
        ok = np.isfinite(a[:, 1])
        print(
            f"{name:28s} {len(a):4d} {a[ok, 0].mean():8.3f} {a[ok, 1].mean():7.4f} "
            f"{1000 * np.median(a[:, 2]):8.2f}" + ("" if ok.all() else f"  ({(~ok).sum()} NaN)")
        )


def part2(reps: int) -> None:
    import ppi_py

    print("part 2: N = 5000, labelled fraction vs width (items estimand vs PPI++)")
    for frac in (0.1, 0.5, 0.9):
        cov, w_items, w_ppi = [], [], []
        for r in range(reps):
            sim = jb.simulate.simulate_items(n_labelled=int(frac * 5000), seed=10_000 + r)
            d = items_from_frame(sim.frame)
            e = ie.double_sampling_items(d, "items")
            lo, hi = e.interval(0.05)
            cov.append(lo[0] <= sim.rate_items <= hi[0])
            w_items.append(hi[0] - lo[0])
            plo, phi = ppi_py.ppi_mean_ci(*_arrays(sim.frame), alpha=0.05)
            w_ppi.append(phi[0] - plo[0])
        print(
            f"  {frac:.0%} labelled: items coverage {np.mean(cov):.3f}, width "
            f"{np.mean(w_items):.4f}; PPI++ width {np.mean(w_ppi):.4f} "
            f"(ratio {np.mean(w_items) / np.mean(w_ppi):.2f})"
        )


def part3(reps: int) -> None:
    print("part 3: 200 prompts x 10 responses, ICC 0.3, 300 random labels")
    res: dict[str, list] = {}
    for r in range(reps):
        sim = jb.simulate.simulate_items(
            2000, n_labelled=300, cluster_size=10, icc=0.3, seed=20_000 + r
        )
        for est, truth in (("process", sim.theta), ("items", sim.rate_items)):
            for cl in (None, "cluster"):
                d = items_from_frame(sim.frame, cluster=cl)
                lo, hi = ie.double_sampling_items(d, est).interval(0.05)
                key = f"{'clustered' if cl else 'iid'} [{est}]"
                res.setdefault(key, []).append((lo[0] <= truth <= hi[0], hi[0] - lo[0]))
    for k, v in res.items():
        a = np.array(v, float)
        print(f"  {k:22s} coverage {a[:, 0].mean():.3f}  width {a[:, 1].mean():.4f}")


def part4() -> None:
    import ppi_py

    sim = jb.simulate.simulate_items(seed=1)
    f = sim.frame
    arrays = _arrays(f)
    jb.AccuracyStudy.from_items(f).fit("closed_form")  # warm imports

    def best(fn, n=200):
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        return np.median(ts)

    t_ppi = best(lambda: ppi_py.ppi_mean_ci(*arrays, alpha=0.05))
    t_ours = best(lambda: jb.AccuracyStudy.from_items(f).fit("closed_form").interval())
    d = items_from_frame(f)
    t_core = best(lambda: ie.double_sampling_items(d, "items").interval(0.05))
    print("part 4: speed on one N = 5000 frame (median of 200)")
    print(f"  ppi_py ppi_mean_ci (arrays)           {1000 * t_ppi:7.3f} ms")
    print(
        f"  from_items + fit('closed_form') + interval {1000 * t_ours:7.3f} ms "
        f"(ratio {t_ours / t_ppi:.1f})"
    )
    print(
        f"  double_sampling_items on ItemData      {1000 * t_core:7.3f} ms "
        f"(ratio {t_core / t_ppi:.1f})"
    )
    big = jb.simulate.simulate_items(1_000_000, n_labelled=50_000, seed=2).frame
    for m in ("closed_form", "laplace", "laplace"):  # the second Laplace fit is warm
        t0 = time.perf_counter()
        fit = jb.AccuracyStudy.from_items(big).fit(m, random_seed=0)
        iv = fit.interval().iloc[0]
        print(
            f"  1,000,000 items, 5% labelled, {m:12s}: {time.perf_counter() - t0:6.2f} s "
            f"[{iv['lower']:.4f}, {iv['upper']:.4f}]"
        )


def part5(reps: int) -> None:
    import warnings as _w

    from judgebayes.datasets import llmbar_accuracy_items
    from judgebayes.inference.accuracy import closed_form as cf

    print(f"part 5: LLMBar, 30% of gold labels kept, {reps} random draws per judge x subset")
    res: dict[str, list] = {}
    for judge in ("GPT-4", "ChatGPT"):
        full = llmbar_accuracy_items(judge)
        full = full[full["judge"].notna()]
        for _subset, g in full.groupby("subset"):
            truth = g["human"].mean()
            for r in range(reps):
                rng = np.random.default_rng(r)
                f = g.copy()
                lab = rng.random(len(f)) < 0.3
                if f["human"][lab].nunique() < 2 or f["judge"][lab].nunique() < 2:
                    continue
                f["human"] = f["human"].where(lab)
                d = items_from_frame(f)
                for est in ("items", "process"):
                    lo, hi = ie.double_sampling_items(d, est).interval(0.05)
                    e = ie.double_sampling_items(d, est).estimate[0]
                    res.setdefault(f"closed form [{est}]", []).append(
                        (lo[0] <= truth <= hi[0], hi[0] - lo[0], abs(e - truth))
                    )
                p = ie.ppi_items(d)
                lo, hi = p.interval(0.05)
                res.setdefault("PPI++", []).append(
                    (lo[0] <= truth <= hi[0], hi[0] - lo[0], abs(p.estimate[0] - truth))
                )
                c = d.cells()
                tp, m1 = c["H1"].sum(), (c["H1"] + c["H0"]).sum()
                m = (c["L1"] + c["L0"]).sum()
                tn = (c["L0"] - c["H0"]).sum()
                k, n = (c["N1"] - c["L1"]).sum(), (c["N1"] + c["N0"]).sum() - m
                with _w.catch_warnings():
                    _w.simplefilter("ignore")
                    ci = cf.lang_reiczigel_from_counts(
                        np.array([k]), np.array([n]), tp, m1, tn, m - m1, 0.05
                    )
                lo, hi, e = (float(np.atleast_1d(x)[0]) for x in (ci.lower, ci.upper, ci.estimate))
                res.setdefault("two frames (Lang-Reiczigel)", []).append(
                    (lo <= truth <= hi, hi - lo, abs(e - truth))
                )
    print("  (truth: the subset's all-gold rate; coverage of a process interval against it")
    print("   is conservative, the N-item interval is the one made for it)")
    for k, v in res.items():
        a = np.array(v, float)
        print(
            f"  {k:30s} n={len(a):5d} coverage {np.nanmean(a[:, 0]):.3f} "
            f"width {np.nanmean(a[:, 1]):.3f} |error| {np.nanmean(a[:, 2]):.3f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--nuts", type=int, default=50)
    ap.add_argument("--laplace", type=int, default=500)
    ap.add_argument("--part", default="1,2,3,4,5")
    a = ap.parse_args()
    parts = set(a.part.split(","))
    if "4" in parts:
        part4()
    if "2" in parts:
        part2(a.reps)
    if "3" in parts:
        part3(a.reps)
    if "5" in parts:
        part5(a.reps)
    if "1" in parts:
        part1(a.reps, a.nuts, a.laplace)


if __name__ == "__main__":
    main()
