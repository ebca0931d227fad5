import subprocess
import sys

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
        "import judgebayes as jb; jb.lang_reiczigel_interval(0.6, 0.7, 0.9, 100, 50, 50)"
    )
    assert not {"pymc", "pytensor", "arviz"} & mods


def test_public_names_from_design_exist():
    import judgebayes as jb

    for name in (
        "rogan_gladen",
        "lang_reiczigel_interval",
        "allocate_calibration",
        "llm_advantage_region",
    ):
        assert callable(getattr(jb, name))
    assert set(jb.__all__) <= set(dir(jb))
    # tab completion offers the public names, not what the package imports for itself
    public = {n for n in dir(jb) if not n.startswith("_")}
    assert public == set(jb.__all__) - {"__version__"} | set(jb._SUBMODULES)
    for name in jb.__all__:
        getattr(jb, name)


def test_unknown_attribute_is_an_attribute_error():
    import judgebayes as jb

    try:
        jb.not_a_name  # noqa: B018
    except AttributeError as exc:
        assert "not_a_name" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")
