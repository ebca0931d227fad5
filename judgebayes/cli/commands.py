"""The commands of ``judgebayes``: each one's module and its one-line help.

Kept apart from the modules so that the parser can list every command, and parse the
arguments of the one given, without importing the others (which import the studies).
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    """A subcommand: the module with ``add_parser(sub)`` and ``run(args)``, and its help."""

    module: str
    help: str


COMMANDS: dict[str, Command] = {
    "accuracy": Command("judgebayes.cli.accuracy", "naive vs corrected accuracy from CSV files"),
    "plan": Command("judgebayes.cli.plan", "calibration size for a target interval width"),
    "rank": Command(
        "judgebayes.cli.rank", "bias-aware Bradley-Terry ranking from pairwise verdicts"
    ),
    "panel": Command(
        "judgebayes.cli.panel", "generator precision from a generator x validator panel"
    ),
    "report": Command("judgebayes.cli.report", "write a markdown or HTML accuracy report"),
    "demo": Command("judgebayes.cli.demo", "the main job on bundled LLMBar data, with a report"),
    "gate": Command("judgebayes.cli.gate", "exit 1 unless every claim about corrected rates holds"),
    "scores": Command("judgebayes.cli.scores", "mean human label per system from a judge's scores"),
    "agreement": Command(
        "judgebayes.cli.agreement", "agreement between raters (kappas, AC1, alpha)"
    ),
    "monitor": Command(
        "judgebayes.cli.monitor", "the corrected rate after every period, valid at every look"
    ),
    "label-next": Command(
        "judgebayes.cli.label", "which items to label next (active labelling), and the estimate"
    ),
    "leaderboard": Command(
        "judgebayes.cli.leaderboard", "many systems on one benchmark: ranks, tiers, contrasts"
    ),
}
