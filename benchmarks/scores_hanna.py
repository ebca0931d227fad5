"""Judges that give scores, on HANNA: label a random share of the stories, estimate each of
the 11 story generators' mean human rating, and compare with the peers on the same draws.

For each configuration (criterion x judge LLM and Eval-Prompt, or several judges) and each
labelled share, ``--reps`` draws label a simple random sample of the stories (the human
label: the mean of the 3 raters).  The target is each system's mean over its scored
stories (a story whose judge rating is a failure code, outside 1-5, is not scored: it is
counted as missing, and not in the target).  Methods, all on the same draws:

* judgebayes ``closed_form`` (cross-fitted isotonic + augmented mean), ``items`` and
  ``process`` estimands, ``ppi_plus_plus``, ``labels_only``, ``naive``;
* CJE ``calibrated_mean_ci`` (cje-eval, its default inference), one call per system with
  the labels rescaled to [0, 1] (it needs at least 4 labelled rows: a system with fewer is
  counted as a failure);
* ppi_py ``ppi_mean_ci`` (PPI++ on the raw score), one call per system;
* ppi-aipw ``mean_inference(method="isotonic")``, one call per system;
* judgebayes ``nuts`` (the latent-level model) on the first ``--nuts-reps`` draws.

Printed per configuration, share and method: coverage of the 95% interval with its
Monte-Carlo sd (over draws x systems), mean width, the width ratio to CJE on the cells
where CJE gave an interval, failures, and seconds per call (all 11 systems).

Run: python benchmarks/scores_hanna.py [--reps 200] [--nuts-reps 0]
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.datasets.base import data_dir

CONFIGS = {
    "RE / Beluga-13B p1": ("RE", ["Beluga-13B:1"]),
    "CH / Beluga-13B p2": ("CH", ["Beluga-13B:2"]),
    "EG / ChatGPT p1": ("EG", ["ChatGPT:1"]),
    "CX / ChatGPT p1": ("CX", ["ChatGPT:1"]),
    "RE / Beluga-13B p1 + ChatGPT p1": ("RE", ["Beluga-13B:1", "ChatGPT:1"]),
}
SHARES = (0.10, 0.25)
OURS = {
    "closed_form (items)": ("closed_form", "items"),
    "closed_form (process)": ("closed_form", "process"),
    "ppi_plus_plus": ("ppi_plus_plus", "process"),
    "labels_only": ("labels_only", "process"),
    "naive": ("naive", "process"),
}


def frame_for(hanna: pd.DataFrame, criterion: str, judges: list[str]) -> pd.DataFrame:
    """One row per story: the judges' ratings (failure codes blanked) and the human mean."""
    rows = hanna[hanna["criterion"] == criterion]
    out = None
    for spec in judges:
        name, prompt = spec.split(":")
        sub = rows[rows["judge"] == name].set_index("story_id")
        col = sub[f"judge_prompt{prompt}"]
        part = pd.DataFrame({spec: col.where(col.between(1, 5))})
        if out is None:
            part["system"] = sub["system"]
            part["prompt"] = sub["pos_in_system"]
            part["truth"] = sub["human_mean"]
            out = part
        else:
            out = out.join(part)
    return out.reset_index()


def peers(frame, judge, lab, systems):
    """CJE, ppi_py and ppi-aipw per system: (lower, upper) arrays and seconds."""
    from cje import calibrated_mean_ci
    from ppi_aipw import mean_inference
    from ppi_py import ppi_mean_ci

    out = {k: (np.full(len(systems), np.nan), np.full(len(systems), np.nan)) for k in PEERS}
    secs = dict.fromkeys(PEERS, 0.0)
    for i, s in enumerate(systems):
        m = (frame["system"] == s).to_numpy() & frame[judge].notna().to_numpy()
        score = frame.loc[m, judge].to_numpy()
        y = frame.loc[m, "truth"].to_numpy()
        li = lab[m]
        t0 = time.perf_counter()
        try:
            r = calibrated_mean_ci(score, np.where(li, (y - 1) / 4, np.nan))
            out["CJE calibrated_mean_ci"][0][i] = 1 + 4 * r.ci[0]
            out["CJE calibrated_mean_ci"][1][i] = 1 + 4 * r.ci[1]
        except ValueError:
            pass
        secs["CJE calibrated_mean_ci"] += time.perf_counter() - t0
        if li.sum() >= 2:
            t0 = time.perf_counter()
            lo, hi = ppi_mean_ci(y[li], score[li], score[~li], alpha=0.05)
            out["ppi_py ppi_mean_ci"][0][i], out["ppi_py ppi_mean_ci"][1][i] = lo[0], hi[0]
            secs["ppi_py ppi_mean_ci"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            try:
                r = mean_inference(y[li], score[li], score[~li], method="isotonic", alpha=0.05)
                out["ppi-aipw isotonic"][0][i], out["ppi-aipw isotonic"][1][i] = r.ci
            except (ValueError, np.linalg.LinAlgError):
                pass
            secs["ppi-aipw isotonic"] += time.perf_counter() - t0
    return out, secs


PEERS = ("CJE calibrated_mean_ci", "ppi_py ppi_mean_ci", "ppi-aipw isotonic")


def run(reps: int, nuts_reps: int, only: list[str] | None) -> pd.DataFrame:
    hanna = pd.read_csv(data_dir() / "hanna" / "hanna_judgments.csv")
    rows = []
    for name, (criterion, judges) in CONFIGS.items():
        if only and not any(o in name for o in only):
            continue
        frame = frame_for(hanna, criterion, judges)
        scored = frame[judges].notna().all(axis=1)
        systems = list(dict.fromkeys(frame["system"]))
        truth = frame[scored].groupby("system")["truth"].mean().reindex(systems).to_numpy()
        for share in SHARES:
            rng = np.random.default_rng([int(share * 100), len(rows)])
            acc: dict[str, list] = {}
            for r in range(reps):
                lab = np.zeros(len(frame), bool)
                lab[rng.choice(len(frame), round(share * len(frame)), replace=False)] = True
                frame["human"] = frame["truth"].where(lab)
                cells = {}
                for label, (method, estimand) in OURS.items():
                    if method.startswith("ppi") and len(judges) > 1:
                        continue
                    study = jb.ScoreStudy.from_items(
                        frame,
                        score=judges,
                        human="human",
                        system="system",
                        item="prompt",
                        scale=(1, 5),
                        estimand=estimand,
                    )
                    t0 = time.perf_counter()
                    tab = study.fit(method, random_seed=r).interval()
                    sec = time.perf_counter() - t0
                    cells[label] = (tab["lower"].to_numpy(), tab["upper"].to_numpy(), sec)
                if r < nuts_reps:
                    study = jb.ScoreStudy.from_items(
                        frame, score=judges, human="human", system="system", scale=(1, 5)
                    )
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fit = study.fit("nuts", random_seed=r)
                    tab = fit.interval()
                    cells["nuts (items)"] = (
                        tab["lower"].to_numpy(),
                        tab["upper"].to_numpy(),
                        fit.seconds,
                    )
                pe, secs = peers(frame, judges[0], lab, systems)
                for k in PEERS:
                    cells[k] = (*pe[k], secs[k])
                cje_ok = ~np.isnan(cells["CJE calibrated_mean_ci"][0])
                cje_w = cells["CJE calibrated_mean_ci"][1] - cells["CJE calibrated_mean_ci"][0]
                for k, (lo, hi, sec) in cells.items():
                    ok = ~np.isnan(lo)
                    a = acc.setdefault(
                        k, {"hit": [], "width": [], "ratio": [], "fail": 0, "sec": []}
                    )
                    a["hit"] += list(((lo <= truth) & (truth <= hi))[ok])
                    a["width"] += list((hi - lo)[ok])
                    both = ok & cje_ok
                    if both.any():
                        a["ratio"].append(np.mean((hi - lo)[both]) / np.mean(cje_w[both]))
                    a["fail"] += int((~ok).sum())
                    a["sec"].append(sec)
            for k, a in acc.items():
                hit = np.asarray(a["hit"], float)
                cover = hit.mean()
                sd = np.sqrt(0.95 * 0.05 / max(hit.size, 1))
                rows.append(
                    {
                        "config": name,
                        "share": share,
                        "method": k,
                        "coverage": round(cover, 3),
                        "mc_sd": round(sd, 4),
                        "met": bool(cover >= 0.95 - 2.5 * sd),
                        "width": round(float(np.mean(a["width"])), 3),
                        "ratio_to_cje": round(float(np.mean(a["ratio"])), 3),
                        "failed_cells": a["fail"],
                        "ms_per_call": round(1000 * float(np.median(a["sec"])), 2),
                    }
                )
            print(pd.DataFrame(rows[-len(acc) :]).to_string(index=False), flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--nuts-reps", type=int, default=0)
    p.add_argument("--only", nargs="*")
    a = p.parse_args()
    logging.disable(logging.WARNING)  # CJE logs a warning per call on small label sets
    warnings.filterwarnings("ignore", category=UserWarning)
    t0 = time.time()
    table = run(a.reps, a.nuts_reps, a.only)
    print(table.to_string(index=False))
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
