"""Helpers the test modules share: the installed command's runner, and the same command through
its entry point in this process; NUTS replaced by prior draws (:func:`prior_as_posterior`, the
``mock_nuts`` fixture); frames and studies built with the package's own simulators
(systems_frame, covariate_study, score_study, length_biased_judge), small readers of a
result (labelled_arrays, ratings_wide, agreement_table, laplace_vs_nuts), the hypothesis
strategies of the closed forms' inputs and the accuracy tests' sampler settings (NUTS).
"""

import io
import shutil
import subprocess
import sys
import warnings
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import strategies as st


def _exe() -> list[str]:
    exe = Path(sys.executable).parent / "judgebayes"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("judgebayes")
    return [found] if found else [sys.executable, "-m", "judgebayes"]


def run(*args: str) -> subprocess.CompletedProcess:
    """The installed command in its own process (tests of the process itself: the entry
    point, its exit status, what reaches the terminal).
    """
    return subprocess.run([*_exe(), *map(str, args)], capture_output=True, text=True, timeout=300)


def piped(*args: str, lines: int) -> subprocess.CompletedProcess:
    """The installed command with its output piped into a reader that reads ``lines``
    lines and closes the pipe, as ``judgebayes ... | head -n LINES`` (``stdout``: what it
    read).  The pipe holds one page (Linux), so an output longer than that is still being
    written when the reader stops, as a long table is under ``head``; the environment's
    ``PYTHONUNBUFFERED`` is left out, so stdout is buffered as a user's is.
    """
    import fcntl
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen(
        [*_exe(), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None and proc.stderr is not None
    fd = proc.stdout.fileno()
    if hasattr(fcntl, "F_SETPIPE_SZ"):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 4096)
    read = b""
    while read.count(b"\n") < lines and (chunk := os.read(fd, 64)):
        read += chunk  # 64 bytes at a time: the reader takes little more than its lines
    proc.stdout.close()
    err = proc.stderr.read().decode()
    status = proc.wait(timeout=300)
    proc.stderr.close()
    return subprocess.CompletedProcess(list(args), status, read.decode(), err)


def cli(*args: str) -> subprocess.CompletedProcess:
    """The command's arguments through :func:`judgebayes.cli.main` in this process: what
    the installed command calls, without starting Python and compiling the models again
    (tests of what a command computes and says; ``run`` tests the process).
    """
    from judgebayes.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    # a fresh process's warning filters (the suite's turn the package's warnings into
    # errors), so a warning reaches stderr as it does from the command
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for quiet in (
            DeprecationWarning,
            PendingDeprecationWarning,
            ImportWarning,
            ResourceWarning,
        ):
            warnings.simplefilter("ignore", quiet)
        try:
            status = main(argv)
        except SystemExit as e:  # argparse's --help
            status = e.code
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())


def typed_error(call):
    """The one typed error ``call()`` raises (an :class:`InputError` or a refusal), with
    numpy's warnings as errors: a bad input never reaches numpy.
    """
    import pytest

    from judgebayes.errors import InputError, MethodRefused

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises((InputError, MethodRefused)) as e:
            call()
    return e.value


def times_flagged(check: str, make_frame, sets: int = 40, seed: int = 13) -> int:
    """In how many of ``sets`` scores frames (``make_frame(rng)``, one generator seeded
    ``seed``) check ``check`` of the scores study flags."""
    import numpy as np

    import judgebayes as jb

    rng = np.random.default_rng(seed)
    fired = 0
    for _ in range(sets):
        study = jb.ScoreStudy.from_items(
            make_frame(rng), score="score", human="human", system="system"
        )
        fired += not study.check()[check].passed
    return fired


def score_check_flags(frame) -> dict[str, bool]:
    """Whether each check of a scores study's closed-form fit flags, by check name."""
    import judgebayes as jb

    study = jb.ScoreStudy.from_items(frame, score="score", human="human")
    table = study.check(study.fit("closed_form")).table
    return {c: bool(table.loc[table["check"] == c, "flagged"].any()) for c in table["check"]}


def systems_frame(seed=0, n=2000, labelled=300, systems=("a", "b", "c"), **kw):
    """An items frame of ``systems`` (the package's ``simulate_items``, rate 0.4 + 0.15 i
    for the i-th system), ``labelled`` of each system's ``n`` items labelled."""
    import pandas as pd

    import judgebayes as jb

    parts = []
    for i, s in enumerate(systems):
        f = jb.simulate.simulate_items(
            n, theta=0.4 + 0.15 * i, n_labelled=labelled, seed=seed + i, **kw
        )
        parts.append(f.frame.assign(system=s))
    return pd.concat(parts, ignore_index=True)


def labelled_arrays(f):
    """The human labels and verdicts of an items frame's labelled rows, and the verdicts of
    its unlabelled rows (ppi_py's ``Y``, ``Yhat``, ``Yhat_unlabeled``)."""
    lab = f["human"].notna().to_numpy()
    v = f["judge"].to_numpy(float)
    return f["human"].to_numpy()[lab], v[lab], v[~lab]


def length_biased_judge(seed, override, n=600, labelled=0.5):
    """Five systems; the judge picks s0 (whose answers are always the longer) with
    probability ``override`` whenever s0 is in the pair."""
    import judgebayes as jb

    return jb.simulate.simulate_favouring_judge(n, override=override, labelled=labelled, seed=seed)


def laplace_vs_nuts(study, seed=0):
    """Largest gap between Laplace's and NUTS' 95% interval ends of the reported
    quantity, and the NUTS fit."""
    nuts = study.fit("nuts", random_seed=seed)
    lap = study.fit("laplace", random_seed=seed)
    cols = ["lower", "upper"]
    return float((lap.interval()[cols] - nuts.interval()[cols]).abs().to_numpy().max()), nuts


#: hypothesis strategies of the two-frame closed forms' inputs: a rate, a judge's rate
#: better than chance, a test set's size
rates = st.floats(0.0, 1.0)
good_q = st.floats(0.55, 0.995)
sizes = st.integers(1, 5000)


#: the accuracy studies' sampler settings where a test reads the gate: 4 chains of 1,000
#: draws after 1,000 tuning steps
NUTS = dict(draws=1000, tune=1000, chains=4)


def covariate_study():
    """A small items study with a covariate: its likelihood is written with log-sigmoids
    (softplus), the op that interpreted PyTensor evaluates one element at a time."""
    import numpy as np

    import judgebayes as jb

    sim = jb.simulate.simulate_items(120, n_labelled=40, seed=4)
    f = sim.frame
    f["length"] = np.random.default_rng(4).normal(size=len(f))
    return jb.AccuracyStudy.from_items(f, covariates="length")


def score_study(frame, **kw):
    """The scores study of a frame's ``score``, ``human`` and ``system`` columns."""
    import judgebayes as jb

    return jb.ScoreStudy.from_items(frame, score="score", human="human", system="system", **kw)


def ratings_wide(matrix):
    """Items x raters (NaN = not rated), the raters named r0, r1, ..."""
    import pandas as pd

    return pd.DataFrame(matrix, columns=[f"r{j}" for j in range(matrix.shape[1])])


def agreement_table(result):
    """An agreement table indexed by its coefficients."""
    return result.set_index("coefficient")


@contextmanager
def prior_as_posterior():
    """NUTS replaced by draws of the prior shaped as a posterior (chains x draws), as
    pymc-marketing's ``mock_sample`` does: for a test of the code around the sampler
    (tables, save and load, plots, the result contract's shapes, a command's output), which
    then needs no compile and no sampling.  Never for a test of the sampler or of a
    posterior's numbers: the draws ignore the data.

    Both backends of :func:`judgebayes.inference.nuts.sample_nuts` are replaced, below
    everything the package does with a trace: the named variables kept, the data groups,
    the gate, the log likelihood, the prior and posterior predictive groups all run as
    with NUTS.  ``draws / 2`` prior draws (rounded up) are taken once, interpreted, and
    each half of every chain is a permutation of them, so the chains agree and R-hat stays
    below 1.01; the ESS is about chains x draws (the gate's 400 with some margin from 2 x
    500 on).  Potentials are left out of the draws; a model with a flat variable has no
    prior to draw from and is refused by name.
    """
    import pytest

    from judgebayes.inference.nuts import sampling

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sampling, "_sample_nutpie", _prior_draws)
        mp.setattr(sampling, "_sample_pymc", _prior_draws)
        yield


def _prior_draws(spec, cfg, seed):
    """The replaced backend: (trace, free variables, compile seconds, sampling seconds,
    cache hit), as ``sampling._sample_nutpie`` returns them.
    """
    import logging
    import time

    import numpy as np
    import pymc as pm
    import xarray as xr
    from pymc.distributions.continuous import FlatRV, HalfFlatRV

    from judgebayes.inference.nuts import interpreted, sampling

    t0 = time.perf_counter()
    model = spec.build()
    free = tuple(v.name for v in model.free_RVs)
    flat = [v.name for v in model.free_RVs if isinstance(v.owner.op, FlatRV | HalfFlatRV)]
    if flat:
        raise NotImplementedError(f"prior_as_posterior: {flat[0]!r} is flat, no prior to draw")
    named = [*free, *(v.name for v in model.deterministics)]
    half = -(-cfg.draws // 2)
    log = logging.getLogger("pymc")
    level = log.level
    log.setLevel(logging.WARNING)  # not its "Sampling: [...]" line
    try:
        with warnings.catch_warnings(), interpreted() as kw:
            warnings.simplefilter("ignore", UserWarning)  # the potentials left out
            prior = pm.sample_prior_predictive(
                draws=half, model=model, var_names=named, random_seed=seed, compile_kwargs=kw
            )["prior"].to_dataset()
    finally:
        log.setLevel(level)
    rng = np.random.default_rng(seed)
    chains = []
    for _ in range(cfg.chains):
        order = np.concatenate([rng.permutation(half), rng.permutation(half)])[: cfg.draws]
        chains.append(prior.isel(chain=0, draw=order).assign_coords(draw=np.arange(cfg.draws)))
    post = xr.concat(chains, dim="chain").assign_coords(chain=np.arange(cfg.chains))
    post = post.transpose("chain", "draw", ...)
    post.attrs = {}
    # nutpie's statistics the gate reads: no divergence, none at the maximum depth, and an
    # energy whose E-BFMI (about 2 for independent draws) passes
    shape = (cfg.chains, cfg.draws)
    stats = xr.Dataset(
        {
            "diverging": (("chain", "draw"), np.zeros(shape, dtype=bool)),
            "maxdepth_reached": (("chain", "draw"), np.zeros(shape, dtype=bool)),
            "energy": (("chain", "draw"), rng.normal(size=shape)),
        },
        coords={"chain": post.chain, "draw": post.draw},
    )
    idata = xr.DataTree.from_dict({"posterior": post, "sample_stats": stats})
    sampling._add_data_groups(idata, model)
    return idata, free, 0.0, time.perf_counter() - t0, False


def channel_frame():
    """Five judged comparisons of three instances by two judges, with human verdicts on two
    (one a tie): the judge-error ranking's smallest frame."""
    import pandas as pd

    return pd.DataFrame(
        {
            "pair": [0, 0, 1, 1, 2],
            "first": ["a", "a", "b", "b", "c"],
            "second": ["b", "b", "c", "c", "a"],
            "winner": ["a", "b", "c", "", "c"],
            "judge": ["j1", "j2", "j1", "j2", "j1"],
            "human": ["a", "a", None, None, "tie"],
        }
    )
