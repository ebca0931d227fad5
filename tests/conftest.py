import os

from hypothesis import HealthCheck, settings

# derandomised so that a CI run is reproducible; 'dev' explores more
settings.register_profile(
    "ci", max_examples=200, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# no progress bars in test output (notebook kernels inherit it); tests/inference/test_progress.py
# turns them on explicitly
os.environ.setdefault("JUDGEBAYES_PROGRESS", "0")


# Distribution: ``--dist loadfile`` (pyproject.toml) sends each test file to one worker, so
# a file's session-scoped fixtures (the compiled and sampled models) are built once.  The
# suite used ``--dist loadgroup`` with an ``xdist_group`` marker per file; the markers never
# reached xdist's worker-side grouping, so every file's tests were spread over both workers
# and each expensive fixture was built twice (measured: the contract fixture 94 s and 87 s,
# the panel's NUTS fixture 188 s and 152 s).

# The longest files first: with ``loadfile`` a file runs on one worker from start to end,
# so a long file collected last (the contract test sits in tests/studies, the README's in
# tests/) kept one worker busy after the other had finished: 34 s of 691 in the last clean
# run.  Whole-file times from the clean fresh-clone runs of 2026-11-26 (durations summed).
LONGEST_FIRST = (
    "tests/studies/test_base.py",  # ~200 s: every method of every study (one fixture)
    "tests/studies/test_panel.py",  # ~150 s
    "tests/test_readme.py",  # ~115 s
    "tests/studies/test_ranking_channel.py",  # ~110 s
    "tests/studies/test_items.py",  # ~90 s
    "tests/inference/test_executors.py",  # ~70 s
)


def pytest_collection_modifyitems(session, config, items):
    """Order the collected tests so that :data:`LONGEST_FIRST` files are handed out first
    (stable otherwise)."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}

    def key(item):
        path = item.nodeid.split("::", 1)[0]
        return rank.get(path, len(rank))

    items.sort(key=key)
