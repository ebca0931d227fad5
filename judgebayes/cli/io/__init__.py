r"""Shared I/O of the ``judgebayes`` command: the one-line-error parser, CSV reading,
table rendering and the arguments several subcommands share.  Subcommand modules import
this module and nothing else of the CLI, so the CLI has no import cycles.
"""

from judgebayes.cli.io.args import add_common as add_common
from judgebayes.cli.io.args import add_item_files as add_item_files
from judgebayes.cli.io.args import add_method as add_method
from judgebayes.cli.io.args import add_quiet as add_quiet
from judgebayes.cli.io.args import add_sampler as add_sampler
from judgebayes.cli.io.args import count_arg as count_arg
from judgebayes.cli.io.args import method_arg as method_arg
from judgebayes.cli.io.args import method_choices as method_choices
from judgebayes.cli.io.args import pair_arg as pair_arg
from judgebayes.cli.io.args import seed_arg as seed_arg
from judgebayes.cli.io.fitting import diagnostics_json as diagnostics_json
from judgebayes.cli.io.fitting import fit_methods as fit_methods
from judgebayes.cli.io.fitting import fit_options as fit_options
from judgebayes.cli.io.fitting import report_gate as report_gate
from judgebayes.cli.io.items import study_from_args as study_from_args
from judgebayes.cli.io.output import CLIError as CLIError
from judgebayes.cli.io.output import Parser as Parser
from judgebayes.cli.io.output import clean as clean
from judgebayes.cli.io.output import fmt as fmt
from judgebayes.cli.io.output import read_csv as read_csv
from judgebayes.cli.io.output import render as render

__all__ = [
    "CLIError",
    "Parser",
    "add_common",
    "add_item_files",
    "add_method",
    "add_sampler",
    "clean",
    "count_arg",
    "diagnostics_json",
    "fit_methods",
    "fit_options",
    "method_arg",
    "method_choices",
    "pair_arg",
    "read_csv",
    "render",
    "report_gate",
    "seed_arg",
]
