import os

from hypothesis import HealthCheck, settings

# derandomised so that a CI run is reproducible; 'dev' explores more
settings.register_profile(
    "ci", max_examples=200, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config, items):
    """Spread the suite over the xdist workers by file, but each notebook on its own.

    ``--dist loadgroup`` sends a group to one worker: a file's tests share their fixtures
    (and the models they compile), so a file is a group; the notebook executions are
    independent kernels, so each is its own group.  A worker may interleave tests of
    different groups, which tears module-scoped fixtures down and builds them again (the
    panel's NUTS fixture ran twice, 145 s each): the expensive fixtures are session-scoped.
    """
    import pytest

    for item in items:
        name = item.nodeid.split("::")[0]
        if item.originalname == "test_source_executes_with_small_settings":
            name = item.nodeid
        item.add_marker(pytest.mark.xdist_group(name))
