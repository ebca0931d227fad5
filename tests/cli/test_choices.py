"""Every choice the command line offers comes from a registry: the commands, each
command's ``--method`` (the study classes' method tables), ``--variant`` (the panel's
model classes), ``--prior`` (the bias-prior classes) and the leaderboard's ``--model``
(its model classes)."""

import argparse

import pytest

from judgebayes.cli import SUBCOMMANDS, build_parser, main
from judgebayes.models.ranking import BIAS_PRIORS
from judgebayes.studies import STUDIES
from judgebayes.studies.accuracy import AccuracyStudy
from judgebayes.studies.panel import ValidatorPanel


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


def _choices(command: str, dest: str) -> tuple:
    (action,) = [a for a in _subparsers()[command]._actions if a.dest == dest]
    return tuple(action.choices)


def _methods(*families: str) -> set[str]:
    """Every method and refusal of the study classes of ``families``, as the CLI spells it."""
    names = set()
    for key, cls in STUDIES.items():
        if key.split(".")[0] in families:
            names |= {*cls.methods, *cls.methods.refused}
    return {n.replace("_", "-") for n in names}


def test_the_commands_are_the_registry():
    assert tuple(_subparsers()) == tuple(SUBCOMMANDS)


def test_no_command_names_every_registered_one(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert all(c in err for c in SUBCOMMANDS), err


@pytest.mark.parametrize(
    "command, families, extra",
    [
        ("accuracy", ("accuracy", "items"), {"all"}),
        ("gate", ("accuracy", "items"), set()),
        ("report", ("accuracy", "items"), {"all"}),
        ("scores", ("scores",), {"all"}),
        ("panel", ("panel",), set()),
        ("rank", ("ranking",), set()),
    ],
)
def test_every_method_choice_is_a_registered_method(command, families, extra):
    assert set(_choices(command, "method")) == _methods(*families) | extra


def test_report_all_is_the_accuracy_familys_default_methods():
    assert AccuracyStudy.default_methods == ("closed_form", "laplace", "nuts")


def test_the_leaderboards_models_are_its_classes():
    from judgebayes.studies.leaderboard import LeaderboardStudy

    assert _choices("leaderboard", "model") == tuple(
        c.model_name for c in LeaderboardStudy.models()
    )
    assert set(_choices("leaderboard", "model")) == {"rasch", "2pl", "exchangeable", "guessing"}


def test_variant_and_prior_choices_are_the_model_classes():
    assert _choices("panel", "variant") == tuple(c.model_name for c in ValidatorPanel.models())
    assert set(_choices("panel", "variant")) == {
        "pooled", "hierarchical", "overdispersed", "leniency"
    }  # fmt: skip
    assert set(_choices("rank", "prior")) == {n for n, p in BIAS_PRIORS.items() if p.has_bias}
    assert set(_choices("rank", "prior")) == {"normal", "hierarchical", "horseshoe"}


def test_help_and_a_commands_arguments_are_read_before_the_studies_are_imported():
    import subprocess
    import sys

    code = (
        "import sys; from judgebayes.cli import build_parser; build_parser(only=None)"
        ".parse_args(['--version']); print(sorted(m for m in ('judgebayes.studies', 'pymc',"
        " 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    # the parser of one command is that command's full parser; the others are listed
    full, one = build_parser(), build_parser(only="plan")
    assert _help(one, "plan") == _help(full, "plan")
    assert _help(one, None) == _help(full, None)


def _help(parser, command):
    if command is None:
        return parser.format_help()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[command].format_help()
