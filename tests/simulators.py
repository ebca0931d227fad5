"""Simulators the tests share: each writes data from its own story with numpy, sharing no
code with the package's models (a test of a model on them can fail)."""

import numpy as np
import pandas as pd


def stream(
    rng,
    weeks=20,
    items=500,
    labels=40,
    rate=0.6,
    sens=0.9,
    spec=0.8,
    drift_at=None,
    sens_after=0.7,
    rate_slope=0.0,
):
    """A log of weekly verdicts with a simple random sample of labels per week.  The true
    rate may move linearly (``rate_slope`` per week); the judge's sensitivity falls to
    ``sens_after`` from week ``drift_at`` on.  Returns the frame and the true labels."""
    week = np.repeat(np.arange(weeks), items)
    p = np.clip(rate + rate_slope * (week - weeks / 2), 0.02, 0.98)
    y = (rng.random(week.size) < p).astype(float)
    s = np.full(week.size, sens)
    if drift_at is not None:
        s[week >= drift_at] = sens_after
    says_yes = np.where(y == 1, rng.random(week.size) < s, rng.random(week.size) > spec)
    human = np.full(week.size, np.nan)
    for w in range(weeks):
        pick = rng.choice(np.flatnonzero(week == w), size=labels, replace=False)
        human[pick] = y[pick]
    frame = pd.DataFrame({"week": week, "judge": says_yes.astype(int), "human": human})
    return frame, y


def running_rate(frame, y):
    """The rate of all items up to each week."""
    totals = pd.Series(y).groupby(frame["week"].to_numpy()).agg(["sum", "count"])
    return (totals["sum"].cumsum() / totals["count"].cumsum()).to_numpy()


def lenient_on_long(seed, follows=True, n=400, n_lab=100, extra_b=0.0):
    """Two systems, B's answers longer by 1.4 sd; the judge lenient on long answers (its
    rates logistic in length, the same function on both systems) when ``follows``.
    Written here, from the data-generating story, not from the package's model code.
    """
    rng = np.random.default_rng(seed)
    frames, truth = [], {}
    for s, mu in (("A", -0.7), ("B", 0.7)):
        x = rng.normal(mu, 1.0, n)
        h = rng.random(n) < 1 / (1 + np.exp(-(0.6 + 0.5 * x)))
        b1, b0 = (0.8, 1.2) if follows else (0.0, 0.0)
        sens = 1 / (1 + np.exp(-(2.0 + b1 * x)))
        fpr = 1 / (1 + np.exp(-(-1.5 + b0 * x + (extra_b if s == "B" else 0.0))))
        v = np.where(h, rng.random(n) < sens, rng.random(n) < fpr)
        human = np.where(np.arange(n) < n_lab, h.astype(float), np.nan)
        frames.append(
            pd.DataFrame({"system": s, "judge": v.astype(int), "human": human, "length": x})
        )
        truth[s] = h.mean()
    # rows in random order: the first n_lab items are a random choice, and their
    # positions say so (the labelling check compares positions)
    return pd.concat(frames, ignore_index=True).sample(frac=1, random_state=seed), truth


RATERS = ["h0", "h1", "h2"]


def simulate_raters(
    rng,
    theta=(0.6, 0.45),
    n=600,
    labelled=0.3,
    accuracy=(0.85, 0.9, 0.88),
    sensitivity=0.9,
    specificity=0.8,
):
    """Two systems; a judge on every item; three raters who each get an item right with
    their accuracy, independently, on a random ``labelled`` share of the items. Returns the
    frame and each system's share of truly positive items.
    """
    rows, shares = [], {}
    for s, t in zip("AB", theta, strict=True):
        truth = rng.random(n) < t
        judge = np.where(truth, rng.random(n) < sensitivity, rng.random(n) > specificity)
        d = {"system": s, "judge": judge.astype(int)}
        lab = rng.random(n) < labelled
        for r, a in zip(RATERS, accuracy, strict=True):
            said = np.where(rng.random(n) < a, truth, ~truth).astype(float)
            d[r] = np.where(lab, said, np.nan)
        rows.append(pd.DataFrame(d))
        shares[s] = truth.mean()
    return pd.concat(rows, ignore_index=True), shares


def two_systems_stream(rng, drift_on_b: bool, weeks=16):
    """Systems A and B, 300 items and 30 labels a week each; the judge's sensitivity on B's
    answers falls from 0.9 to 0.6 at week 6 when ``drift_on_b`` (A's stays)."""
    parts = []
    for name, drifts in (("A", False), ("B", drift_on_b)):
        frame, _ = stream(
            rng, weeks=weeks, items=300, labels=30, drift_at=6 if drifts else None,
            sens_after=0.6,
        )  # fmt: skip
        parts.append(frame.assign(model=name))
    return pd.concat(parts, ignore_index=True)


def score_log(rng, weeks=12, items=300, labels=30, shift_at=6):
    """A 1-10 judge and 1-5 human ratings; the judge turns 2 points kinder from
    ``shift_at`` on.  Returns the log and every item's rating (labelled or not)."""
    week = np.repeat(np.arange(weeks), items)
    quality = rng.normal(0, 1, week.size)
    rating = np.clip(np.round(3 + 1.1 * quality + rng.normal(0, 0.6, week.size)), 1, 5)
    kinder = np.where(week >= shift_at, 2.0, 0.0)
    score = np.clip(np.round(5.5 + 2 * quality + kinder + rng.normal(0, 1, week.size)), 1, 10)
    human = np.full(week.size, np.nan)
    for w in range(weeks):
        pick = rng.choice(np.flatnonzero(week == w), size=labels, replace=False)
        human[pick] = rating[pick]
    return pd.DataFrame({"week": week, "score": score, "human": human}), rating


def simulate_scores(
    rng, n_per=300, systems=("A", "B"), frac=0.2, kind="binary", shift=None, paired=False
):
    """A 1-10 judge and human labels (pass / fail, or Likert 1-5), ``shift`` added to each
    system's raw score; returns the frame and each system's row mean."""
    rows = []
    shared = rng.normal(0, 1, n_per)  # the prompt's difficulty, shared when paired
    for k, s in enumerate(systems):
        quality = (shared if paired else rng.normal(0, 1, n_per)) + 0.4 * k
        if kind == "binary":  # the judge reads the answer's quality; a pass is likelier
            human = (rng.random(n_per) < 1 / (1 + np.exp(-1.5 * quality))).astype(float)
            raw = 5.5 + 1.5 * quality + rng.normal(0, 0.3, n_per)
        else:  # Likert 1-5
            human = np.clip(np.round(3 + quality + rng.normal(0, 0.5, n_per)), 1, 5)
            raw = 5.5 + 2.0 * (human - 3) + rng.normal(0, 1.5, n_per)
        if shift is not None:
            raw = raw + shift[k]
        score = np.clip(np.round(raw), 1, 10)
        lab = rng.random(n_per) < frac
        rows.append(
            pd.DataFrame(
                {
                    "system": s,
                    "prompt": np.arange(n_per),
                    "score": score,
                    "human": np.where(lab, human, np.nan),
                    "truth": human,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    return frame, frame.groupby("system", sort=False)["truth"].mean().to_numpy()


# ------------------------------------------------------------------ correlated judges
def correlated_judges(seed, tau, n=1000, n_lab=300, theta=0.6):
    """Three judges whose errors share an item difficulty z ~ N(0, 1): judge j is right
    with probability expit(gamma_j - tau z) (tau = 0: independent given the truth).  Written
    here, not with the package's simulators or models."""
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    h = rng.random(n) < theta
    z = rng.normal(size=n)
    right = rng.random((n, 3)) < expit(np.array([1.6, 1.4, 1.2])[None, :] - tau * z[:, None])
    votes = np.where(right, h[:, None], ~h[:, None]).astype(float)
    human = np.where(np.arange(n) < n_lab, h.astype(float), np.nan)
    frame = pd.DataFrame(votes, columns=["j0", "j1", "j2"]).assign(human=human)
    # rows in random order: the first n_lab items are a random choice, and their
    # positions say so (the labelling check compares positions)
    return frame.sample(frac=1, random_state=seed), float(h.mean())


def leniency_panel(rng, G=12, V=8, n=400, n_annotated=5):
    """A panel whose validators follow the leniency model's story, simulated here with its
    own numpy code: each validator passes a generator's outputs at their share valid
    shifted on the logit scale by its leniency, a generator deviation (sd 0.25) and a cell
    one (sd 0.2); annotated generators' verdicts are split into confusion counts by a
    validator that passes invalid outputs at the rate's logit minus 2.5."""

    def expit(x):
        return 1 / (1 + np.exp(-x))

    def logit(p):
        return np.log(p / (1 - p))

    prec = rng.uniform(0.75, 0.97, G)
    valid = rng.binomial(n, prec)  # realised: every output of the generator is judged
    share = valid / n
    b = rng.normal(0.8, 0.5, V)
    shift = b[None, :] + rng.normal(0, 0.25, G)[:, None] + rng.normal(0, 0.2, (G, V))
    rate = expit(logit(np.clip(share, 0.01, 0.99))[:, None] + shift)
    ann = np.zeros(G, bool)
    ann[rng.choice(G, n_annotated, replace=False)] = True
    fpr = expit(logit(rate) - 2.5)
    tpr = np.clip((rate - (1 - share)[:, None] * fpr) / share[:, None], 0, 1)
    tp = rng.binomial(valid[:, None].repeat(V, 1), tpr)
    fp = rng.binomial((n - valid)[:, None].repeat(V, 1), fpr)
    k = np.where(ann[:, None], tp + fp, rng.binomial(n, rate))
    return _panel_of_counts(n, valid, k, tp, fp, ann), share, np.flatnonzero(~ann)


def _panel_of_counts(n, valid, k, tp, fp, ann):
    """The panel of ``n`` outputs a generator, ``valid`` of them valid, ``k`` judged valid
    per cell, with the annotated generators' (``ann``) confusion counts."""
    z = np.zeros_like(k)
    from judgebayes.studies.panel import ValidatorPanel

    return ValidatorPanel.from_arrays(
        np.full(k.shape, n),
        k,
        n_annotated=np.where(ann, n, 0),
        n_valid_human=np.where(ann, valid, 0),
        tp=np.where(ann[:, None], tp, z),
        fn=np.where(ann[:, None], valid[:, None] - tp, z),
        tn=np.where(ann[:, None], (n - valid)[:, None] - fp, z),
        fp=np.where(ann[:, None], fp, z),
    )


def mixture_panel(rng, G=12, V=8, n=400, n_annotated=5):
    """A panel from the cell model's story, simulated here with its own numpy code: each
    validator keeps a sensitivity (logit ~ N(3, 0.5)) and a specificity (U(0.1, 0.5)) on
    every generator, up to a cell deviation (sd 0.3 on the logit scale)."""

    def expit(x):
        return 1 / (1 + np.exp(-x))

    valid = rng.binomial(n, rng.uniform(0.75, 0.97, G))
    tpr = expit(rng.normal(3.0, 0.5, V)[None, :] + rng.normal(0, 0.3, (G, V)))
    tnr = rng.uniform(0.1, 0.5, V)
    fpr = 1 - expit(np.log(tnr / (1 - tnr))[None, :] + rng.normal(0, 0.3, (G, V)))
    tp = rng.binomial(valid[:, None].repeat(V, 1), tpr)
    fp = rng.binomial((n - valid)[:, None].repeat(V, 1), fpr)
    ann = np.zeros(G, bool)
    ann[rng.choice(G, n_annotated, replace=False)] = True
    return _panel_of_counts(n, valid, tp + fp, tp, fp, ann), valid / n, np.flatnonzero(~ann)


def weak_or_strong_judge(rng, signal, n=600, n_lab=80):
    """Likert 1-5 human ratings of two systems' outputs and a 1-10 judge whose score
    follows the rating with weight ``signal`` (0: a judge that ignores the output)."""
    system = np.repeat(["A", "B"], n // 2)
    rating = np.clip(np.round(3 + 0.3 * (system == "B") + rng.normal(0, 1, n)), 1, 5)
    noise = rng.normal(0, 1.5, n)
    score = np.clip(np.round(5.5 + signal * 2 * (rating - 3) + noise), 1, 10)
    human = np.full(n, np.nan)
    pick = rng.choice(n, size=n_lab, replace=False)
    human[pick] = rating[pick]
    frame = pd.DataFrame({"system": system, "score": score, "human": human})
    return frame, pd.Series(rating).groupby(system).mean()


def irt_board(rng, abilities, n_items=300, spread=1.5, cluster_size=1):
    """A leaderboard by a one-parameter item-response model: system s answers item i
    correctly with probability sigmoid(ability_s - difficulty_i), difficulties normal with
    sd ``spread`` (shared by clusters of ``cluster_size`` items, plus a little of their
    own). Returns the long frame and each system's mean over the item population
    (Gauss-Hermite quadrature over the difficulty's law)."""
    abilities = np.asarray(abilities, float)
    n_c = -(-n_items // cluster_size)
    shared = np.repeat(rng.normal(0, spread, n_c), cluster_size)[:n_items]
    b = shared if cluster_size == 1 else shared * 0.9 + rng.normal(0, 0.3 * spread, n_items)
    p = 1 / (1 + np.exp(-(abilities[:, None] - b[None, :])))
    x = (rng.random(p.shape) < p).astype(float)
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    sd = spread if cluster_size == 1 else np.hypot(0.9 * spread, 0.3 * spread)
    truth = (1 / (1 + np.exp(-(abilities[:, None] - sd * nodes[None, :])))) @ weights
    truth = truth / weights.sum()
    names = [f"m{k:02d}" for k in range(abilities.size)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, n_items),
            "item": np.tile(np.arange(n_items), abilities.size),
            "cluster": np.tile(np.arange(n_items) // cluster_size, abilities.size),
            "score": x.ravel(),
        }
    )
    return frame, pd.Series(truth, index=names)


def multiple_choice_board(rng, abilities, n_items=200, options=4, spread=1.5, disc_sd=0.0):
    """A leaderboard of multiple-choice items: system s answers item i correctly with
    probability 1/options + (1 - 1/options) sigmoid(a_i (ability_s - difficulty_i)), the
    difficulties normal with sd ``spread``, log a_i normal with sd ``disc_sd``. Returns the
    long frame and each system's rate on these items (the mean of its probabilities)."""
    abilities = np.asarray(abilities, float)
    b = rng.normal(0, spread, n_items)
    a = np.exp(rng.normal(0, disc_sd, n_items)) if disc_sd else np.ones(n_items)
    c = 1.0 / options
    p = c + (1 - c) / (1 + np.exp(-a[None, :] * (abilities[:, None] - b[None, :])))
    x = (rng.random(p.shape) < p).astype(float)
    names = [f"m{k:02d}" for k in range(abilities.size)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, n_items),
            "item": np.tile(np.arange(n_items), abilities.size),
            "score": x.ravel(),
        }
    )
    return frame, pd.Series(p.mean(axis=1), index=names)


def small_board(seed: int = 0):
    """The leaderboard of the contract and the leaderboard study's tests: 6 systems x 80
    items of :func:`irt_board` (its shape is the compiled models' key)."""
    return irt_board(np.random.default_rng(seed), np.linspace(-1.0, 1.5, 6), n_items=80)


def judged_board(rng, abilities, n_items=400, labelled=0.15, lenient_on="m01"):
    """:func:`irt_board`'s truth read by a judge (sensitivity 0.85, specificity 0.75, 0.4 on
    the answers of ``lenient_on``), human labels on a random ``labelled`` share of rows."""
    frame, truth = irt_board(rng, abilities, n_items=n_items)
    y = frame["score"].to_numpy()
    spec = np.where(frame["system"] == lenient_on, 0.4, 0.75)
    says = np.where(y == 1, rng.random(y.size) < 0.85, rng.random(y.size) > spec)
    human = np.where(rng.random(y.size) < labelled, y, np.nan)
    # ``outcome``: the true 0/1 answer behind each verdict (for the items estimand)
    return frame.assign(score=says.astype(float), human=human, outcome=y), truth


def scores_labelled_by_score(rng, n_per=400):
    """Two systems' outputs rated 1-5 by humans and 1-10 by a judge that is 2.5 points
    kinder to system B's good answers (rated 4 or 5); each row labelled with probability
    0.05 + 0.45 (score - 1) / 9 (known: column ``p``). Returns the frame and each
    system's mean rating."""
    rows = []
    for s, kind in (("A", 0.0), ("B", 2.5)):
        quality = rng.normal(0, 1, n_per)
        human = np.clip(np.round(3 + quality + rng.normal(0, 0.6, n_per)), 1, 5)
        kinder = kind * (human >= 4)
        score = np.clip(np.round(3 + 1.6 * (human - 1) + kinder + rng.normal(0, 1.2, n_per)), 1, 10)
        p = 0.05 + 0.45 * (score - 1) / 9
        lab = rng.random(n_per) < p
        rows.append(
            pd.DataFrame(
                {
                    "system": s,
                    "score": score,
                    "p": p,
                    "human": np.where(lab, human, np.nan),
                    "truth": human,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    return frame, frame.groupby("system")["truth"].mean()


def scores_labelled_where(rng, how: str, n: int = 600) -> tuple[pd.DataFrame, float]:
    """A judge's 1-10 score of Likert 1-5 ratings, labelled at random (``"random"``, 20%)
    or only on scores of 7 and above (``"high only"``, 40% of those). Returns the frame and
    the mean rating of all rows."""
    quality = rng.normal(0, 1, n)
    human = np.clip(np.round(3 + quality + rng.normal(0, 0.6, n)), 1, 5)
    score = np.clip(np.round(5.5 + 1.6 * (human - 3) + rng.normal(0, 1.2, n)), 1, 10)
    p = {"random": np.full(n, 0.2), "high only": np.where(score >= 7, 0.4, 0.0)}[how]
    lab = rng.random(n) < p
    return pd.DataFrame({"score": score, "human": np.where(lab, human, np.nan)}), human.mean()


def scores_labelled_by_length(rng, n_per=400, follows=True):
    """Two systems' outputs (B 0.4 sd better), a 1-10 judge that sees quality only, and
    humans (1-5) who also reward length; a row is labelled with probability
    0.08 + 0.4 Phi(1.5 length) (unknown to the user; 0.28 for all with
    ``follows=False``).  Returns the frame (``length``, ``source``: short/long) and each
    system's mean rating over its rows."""
    from scipy.stats import norm

    rows = []
    for s, shift in (("A", 0.0), ("B", 0.4)):
        quality = rng.normal(shift, 1, n_per)
        length = rng.normal(0, 1, n_per)
        score = np.clip(np.round(5.5 + 1.5 * quality + rng.normal(0, 1, n_per)), 1, 10)
        human = np.clip(
            np.round(3 + 0.7 * quality + 0.6 * length + rng.normal(0, 0.5, n_per)), 1, 5
        )
        p = 0.08 + 0.4 * norm.cdf(1.5 * length) if follows else np.full(n_per, 0.28)
        lab = rng.random(n_per) < p
        rows.append(
            pd.DataFrame(
                {
                    "system": s,
                    "score": score,
                    "length": length,
                    "source": np.where(length > 0, "long", "short"),
                    "human": np.where(lab, human, np.nan),
                    "truth": human,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    return frame, frame.groupby("system")["truth"].mean()


def verbose_board(rng, n_items=300, slope=0.8, slopes=None):
    """Six systems' answers scored by a judge that adds ``slope`` per unit of the answer's
    log length over the reference's: score = ability + item effect + slope x length +
    noise, lengths centred at -1.5 to 0.5 by system (the verbose score higher).  Returns the
    long frame (``length``, and ``shown_first`` drawn once per item) and each system's
    mean score at length 0 over the item population (its ability).  ``slopes``: one pull
    per system instead (the adjustment's assumption broken)."""
    ability = np.array([0.0, 0.3, 0.3, 0.6, 0.9, 1.2])
    verbosity = np.array([0.5, -1.5, 0.0, -0.5, -1.0, 0.2])
    item = rng.normal(0, 1, n_items)
    length = verbosity[:, None] + rng.normal(0, 0.6, (6, n_items))
    pull = np.full(6, slope) if slopes is None else np.asarray(slopes, float)
    score = (
        ability[:, None] + item[None, :] + pull[:, None] * length + rng.normal(0, 1, (6, n_items))
    )
    names = [f"m{k}" for k in range(6)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, n_items),
            "item": np.tile(np.arange(n_items), 6),
            "score": score.ravel(),
            "length": length.ravel(),
            "shown_first": np.tile(rng.random(n_items) < 0.5, 6).astype(float),
        }
    )
    return frame, pd.Series(ability, index=names)


def board_cells(rng, systems: int, n_items: int, judged: bool, labelled: float = 0.3):
    """A board's cells: 0/1 answers sigmoid(ability - difficulty), abilities N(0, 1) and
    difficulties N(0, 1.3^2); with ``judged`` a judge (sensitivity 0.85, specificity 0.8)
    reads them and humans label a ``labelled`` share of the rows.  Returns the unlabelled
    cells' positives and trials, the labelled cells' human positives and rows, and each
    system's (tp, fn, tn, fp) on its labelled rows (``BoardCells``' first five fields)."""
    p = 1 / (1 + np.exp(-(rng.normal(0, 1, systems)[:, None] - rng.normal(0, 1.3, n_items))))
    y = (rng.random(p.shape) < p).astype(float)
    if not judged:
        z = np.zeros_like(y)
        return y, np.ones_like(y), z, z, np.zeros((systems, 4))
    v = np.where(y == 1, rng.random(p.shape) < 0.85, rng.random(p.shape) < 0.2).astype(float)
    lab = rng.random(p.shape) < labelled
    tp, fn = ((v == 1) & (y == 1) & lab).sum(1), ((v == 0) & (y == 1) & lab).sum(1)
    tn, fp = ((v == 0) & (y == 0) & lab).sum(1), ((v == 1) & (y == 0) & lab).sum(1)
    confusion = np.c_[tp, fn, tn, fp].astype(float)
    k, n, h1 = np.where(lab, 0, v), np.where(lab, 0, 1.0), np.where(lab, y, 0)
    return k, n, h1, lab.astype(float), confusion


def subtask_board(
    rng, abilities, n_subtasks=15, per_subtask=20, subtask_sd=1.0, interaction_sd=0.5
):
    """A board whose items come in subtasks: each subtask shifts its items' difficulty
    (sd ``subtask_sd``) and each system's skill on it (sd ``interaction_sd``), beside each
    item's own difficulty (sd 1).  Returns the frame (``subtask`` one value per item, not
    declared by the caller unless it chooses) and each system's mean over the population
    of subtasks and items (by Monte Carlo over 4,000 new subtasks)."""
    abilities = np.asarray(abilities, float)
    S, n_items = abilities.size, n_subtasks * per_subtask
    sub = np.repeat(np.arange(n_subtasks), per_subtask)
    b = rng.normal(0, subtask_sd, n_subtasks)[sub] + rng.normal(0, 1, n_items)
    inter = rng.normal(0, interaction_sd, (S, n_subtasks))[:, sub]
    p = 1 / (1 + np.exp(-(abilities[:, None] + inter - b[None, :])))
    y = (rng.random(p.shape) < p).astype(float)
    big = np.random.default_rng(12345)
    bb = big.normal(0, subtask_sd, 4000)[:, None] + big.normal(0, 1, (4000, 25))
    ii = big.normal(0, interaction_sd, (S, 4000))[:, :, None]
    truth = (1 / (1 + np.exp(-(abilities[:, None, None] + ii - bb[None])))).mean(axis=(1, 2))
    names = [f"m{k:02d}" for k in range(S)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, n_items),
            "item": np.tile(np.arange(n_items), S),
            "subtask": np.tile(sub, S),
            "score": y.ravel(),
        }
    )
    return frame, pd.Series(truth, index=names)


def labelled_by_length_board(rng, n_items=400, labelled=0.1, selection=1.0):
    """Six systems' 0/1 answers read by a judge that says 1 more often on long answers
    (its false-positive rate rises from 0.1 to 0.6 with the answer's log length), and
    human labels drawn by length (probability proportional to exp(``selection`` x log
    length), ``labelled`` on average; 0: at random).  Returns the frame (``length``
    beside) and each system's mean over the item population."""
    abilities = np.linspace(1.0, -1.0, 6)
    frame, truth = irt_board(rng, abilities, n_items=n_items)
    y = frame["score"].to_numpy()
    length = rng.normal(np.repeat(np.linspace(-0.5, 0.5, 6), n_items), 1.0)
    fp = 0.1 + 0.5 / (1 + np.exp(-2 * length))
    says = np.where(y == 1, rng.random(y.size) < 0.85, rng.random(y.size) < fp)
    w = np.exp(selection * length)
    human = np.where(rng.random(y.size) < np.minimum(labelled * w / w.mean(), 1), y, np.nan)
    return frame.assign(score=says.astype(float), human=human, length=length), truth


def unequal_clusters(seed: int, n_clusters: int, kind: str) -> tuple[pd.DataFrame, float]:
    """Responses to prompts of unequal sizes (numpy only): one prompt holding half of the
    responses, or lognormal sizes; a prompt effect on the human rate (logit-normal, sd
    1), judge 0.85 / 0.8, 30% labelled at random.  Returns the frame and the process rate.
    """
    rng = np.random.default_rng(seed)
    if kind == "big":
        sizes = np.r_[10 * (n_clusters - 1), np.full(n_clusters - 1, 10)]
    else:
        sizes = np.maximum(1, rng.lognormal(np.log(20), 1.0, n_clusters).round().astype(int))
    cl = np.repeat(np.arange(n_clusters), sizes)
    effect = rng.normal(0, 1, n_clusters)
    h = rng.random(cl.size) < 1 / (1 + np.exp(-(0.4 + effect[cl])))
    v = np.where(h, rng.random(cl.size) < 0.85, rng.random(cl.size) < 0.2)
    lab = rng.random(cl.size) < 0.3
    frame = pd.DataFrame({"judge": v * 1.0, "human": np.where(lab, h, np.nan), "prompt": cl})
    # E[expit(0.4 + N(0, 1))] by quadrature
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return frame, float(np.sum(w / (1 + np.exp(-(0.4 + x)))) / np.sqrt(2 * np.pi))


def ushaped(seed, n=400, n_lab=120):
    """Two systems, B's answers longer; the judge's false-positive rate rises on very short
    and very long answers (logit quadratic in the standardised length), the same on both.
    Written here in numpy, not from the package's model."""
    rng = np.random.default_rng(seed)
    frames, truth = [], {}
    for s, mu in (("A", -0.8), ("B", 0.8)):
        x = rng.normal(mu, 1.0, n)
        h = rng.random(n) < 1 / (1 + np.exp(-(0.5 + 0.3 * x)))
        fpr = 1 / (1 + np.exp(-(-2.4 + 1.4 * x * x)))
        v = np.where(h, rng.random(n) < 0.88, rng.random(n) < fpr)
        human = np.where(rng.permutation(n) < n_lab, h.astype(float), np.nan)
        frames.append(
            pd.DataFrame({"system": s, "judge": v * 1, "human": human, "length": 200 + 60 * x})
        )
        truth[s] = h.mean()
    return pd.concat(frames, ignore_index=True), truth


def active_population(rng, n=1000, a=0.4):
    """A judge's calibrated probabilities ``p`` (Beta(a, a): unsure near 1/2) and the
    labels they predict, ``y`` ~ Bernoulli(p)."""
    p = rng.beta(a, a, n)  # a judge's calibrated probability: unsure near 1/2
    y = (rng.random(n) < p).astype(float)
    return p, y


def random_comparisons(N=12, n=600, seed=0, c=0.8, kappa=0.4, ties=0):
    """``n`` random pairs of ``N`` items under Bradley-Terry with an item covariate ``x``
    (coefficient ``c``) and a first-position bias ``kappa``; the first ``ties`` verdicts
    set to ties (0.5).  Returns a, b, y, x, theta."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1.25, N)
    x = rng.normal(size=N)
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    eta = theta[a] - theta[b] + c * (x[a] - x[b]) + kappa
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    y[:ties] = 0.5
    return a, b, y, x, theta


def bt_sample(N, n, spread, rng):
    """``n`` random pairs of ``N`` items under plain Bradley-Terry, qualities N(0, spread^2).
    Returns theta, a, b, y."""
    theta = rng.normal(0, spread, N)
    a = rng.integers(0, N, n)
    b = (a + rng.integers(1, N, n)) % N
    y = (rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))).astype(float)
    return theta, a, b, y


def scores_stream(rng, n=150, weeks=4, kinder=2.0, early=0.4, late=0.08):
    """Two systems' outputs a week: latent quality q, a 0/1 human label, a 1-10 judge score
    that turns ``kinder`` points higher from week 2, labels at rate ``early`` in weeks 0-1
    and ``late`` after."""
    rows = []
    for w in range(weeks):
        for system, shift in (("A", 0.0), ("B", 0.3)):
            q = rng.normal(shift, 1, n)
            h = (q + rng.normal(0, 0.7, n) > 0).astype(float)
            score = np.round(5.5 + 2 * q + (kinder if w >= 2 else 0) + rng.normal(0, 1, n))
            lab = rng.random(n) < (early if w < 2 else late)
            rows.append(
                pd.DataFrame(
                    {
                        "week": w,
                        "system": system,
                        "score": np.clip(score, 1, 10),
                        "truth": h,
                        "human": np.where(lab, h, np.nan),
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def anchor_design(
    rng,
    anchors=100,
    weeks=10,
    per_week=1000,
    judge_drift_at=None,
    system_drift_at=None,
    consistency=None,
    new_like_anchors=True,
):
    """An anchor design's two frames (new items, anchors): ``anchors`` items with fixed
    human labels (rate 0.7) judged again every week beside ``per_week`` new items.  The
    judge gets each item right with its own chance (Beta around 0.9 on positives, 0.85
    on negatives, concentration ``consistency``; None: the same chance for every item, a
    binomial judge), drawn afresh each week.  From ``judge_drift_at`` the sensitivity
    falls to 0.7; from ``system_drift_at`` the new items' rate falls to 0.6.  With
    ``new_like_anchors=False`` the judge is worse on the new items (sensitivity 0.75)
    than on the anchors from the start.
    """

    def chance(n, rate):
        if consistency is None:
            return np.full(n, rate)
        return rng.beta(rate * consistency, (1 - rate) * consistency, n)

    label = (rng.random(anchors) < 0.7).astype(int)
    right = np.where(label == 1, chance(anchors, 0.9), chance(anchors, 0.85))
    a_rows, n_rows = [], []
    for week in range(weeks):
        down = judge_drift_at is not None and week >= judge_drift_at
        scale = 0.7 / 0.9 if down else 1.0
        r = np.where(label == 1, right * scale, right)
        said = np.where(rng.random(anchors) < r, label, 1 - label)
        a_rows.append(
            pd.DataFrame({"week": week, "id": np.arange(anchors), "judge": said, "human": label})
        )
        rate = 0.6 if system_drift_at is not None and week >= system_drift_at else 0.7
        y = (rng.random(per_week) < rate).astype(int)
        sens = 0.9 if new_like_anchors else 0.75
        c = np.where(y == 1, chance(per_week, sens) * scale, chance(per_week, 0.85))
        n_rows.append(
            pd.DataFrame({"week": week, "judge": np.where(rng.random(per_week) < c, y, 1 - y)})
        )
    return pd.concat(n_rows, ignore_index=True), pd.concat(a_rows, ignore_index=True)
