import subprocess
import sys

import pytest

HEAVY = ("pymc", "pytensor", "arviz", "nutpie", "matplotlib", "pandas", "scipy", "xarray")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stderr == "", out.stderr  # no import-time warnings
    return set(out.stdout.split())


def test_import_pulls_in_nothing_heavy():
    mods = _modules_after("import judgebayes")
    loaded = sorted(m for m in HEAVY if m in mods)
    assert loaded == [], f"import judgebayes imported {loaded}"


def test_closed_form_use_does_not_import_pymc():
    mods = _modules_after(
        "import judgebayes as jb; jb.estimators.lang_reiczigel_interval(0.6, 0.7, 0.9, 100, 50, 50)"
    )
    assert not {"pymc", "pytensor", "arviz"} & mods


def test_public_names_are_few_and_each_resolves():
    import judgebayes as jb

    # a small top level: the studies, results, the workflows a user starts from, priors
    # and sampler settings, the errors a user catches, and the namespaces
    assert len(jb.__all__) <= 40
    assert {"estimators", "plan", "io", "simulate", "datasets", "errors"} <= set(jb.__all__)
    assert "InputError" in jb.__all__ and "MethodRefused" not in jb.__all__
    # tab completion offers the public names, not what the package imports for itself
    public = {n for n in dir(jb) if not n.startswith("_")}
    assert public == set(jb.__all__) - {"__version__"}
    for name in jb.__all__:
        getattr(jb, name)
    for space in ("estimators", "plan", "io", "simulate", "datasets", "errors"):
        module = getattr(jb, space)
        for name in module.__all__:
            getattr(module, name)
    assert callable(jb.estimators.rogan_gladen) and callable(jb.plan.allocate_calibration)


def test_a_name_that_moved_answers_where_it_lives_now():
    import judgebayes as jb

    # every name of a namespace that is not at the top level says which namespace holds it
    for space in ("estimators", "plan", "io", "simulate", "datasets", "errors"):
        for name in getattr(jb, space).__all__:
            if name in jb.__all__:
                continue
            with pytest.raises(AttributeError, match=rf"moved: jb\.{space}\.{name}$"):
                getattr(jb, name)
    said = {
        "optimal_calibration_ratio": r"no longer public: jb\.plan\.allocate_calibration",
        "AccuracyFit": "fit classes are not public",
        "GuessingBoard": r"from judgebayes\.studies\.leaderboard import GuessingBoard$",
        "ItemRoles": r"from judgebayes\.data\.items import ItemRoles$",
        "nonsense": r"no attribute 'nonsense'$",
    }
    for name, message in said.items():
        with pytest.raises(AttributeError, match=message):
            getattr(jb, name)


def test_namespaces_import_nothing_heavy():
    mods = _modules_after("import judgebayes.estimators, judgebayes.plan, judgebayes.io")
    assert not {"pymc", "pytensor", "arviz"} & mods


def test_unknown_attribute_is_an_attribute_error():
    import judgebayes as jb

    try:
        jb.not_a_name  # noqa: B018
    except AttributeError as exc:
        assert "not_a_name" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")
