"""Pages generated from the package's registries, so they cannot drift from it.

- ``.. judgebayes-cli::`` -- the command-line reference: ``judgebayes --help`` and each
  subcommand's ``--help``, from the CLI's parser;
- ``.. judgebayes-checks::`` -- every registered check: the study keys it applies to, the
  assumption it tests, what it reads;
- ``.. judgebayes-methods::`` -- every registered study class: its methods (what each is,
  its engine) and the inherited methods it refuses, with the reason.
"""

from __future__ import annotations

import argparse
import os

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


def _table(header: list[str], rows: list[list[str]], widths: list[int]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body
    for target, cells in ((head, [header]), (body, rows)):
        for cells_ in cells:
            row = nodes.row()
            for text in cells_:
                entry = nodes.entry()
                entry += nodes.paragraph(text=text)
                row += entry
            target += row
    return table


def _help(parser: argparse.ArgumentParser) -> str:
    os.environ["COLUMNS"] = "100"  # a stable width, whatever the terminal
    return parser.format_help()


class CliReference(SphinxDirective):
    """``judgebayes --help`` and each subcommand's ``--help``, one section each."""

    def run(self) -> list[nodes.Node]:
        from judgebayes.cli import build_parser

        parser = build_parser()
        parser.prog = "judgebayes"
        out: list[nodes.Node] = [nodes.literal_block(text=_help(parser), language="text")]
        subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for name, sub in subs.choices.items():
            section = nodes.section(ids=[f"cli-{name}"])
            section += nodes.title(text=f"judgebayes {name}")
            section += nodes.literal_block(text=_help(sub), language="text")
            out.append(section)
        return out


class ChecksTable(SphinxDirective):
    """One row per registered check."""

    def run(self) -> list[nodes.Node]:
        from judgebayes.checks import registered

        rows = [
            [name, ", ".join(c.applies_to), c.assumption, c.needs]
            for name, c in sorted(registered().items())
        ]
        return [
            _table(["check", "applies to", "assumption it tests", "reads"], rows, [14, 14, 60, 8])
        ]


class MethodsTables(SphinxDirective):
    """One section per registered study class: its methods and its refusals."""

    def run(self) -> list[nodes.Node]:
        from judgebayes.studies import STUDIES

        out: list[nodes.Node] = []
        for key, cls in STUDIES.items():
            section = nodes.section(ids=[f"study-{key.replace('.', '-')}"])
            section += nodes.title(text=f"{cls.__name__} ({key})")
            doc = (cls.__doc__ or "").strip().split("\n")[0]
            if doc:
                section += nodes.paragraph(text=doc)
            methods = cls.methods
            rows = [
                [n, m.summary, m.engine] for n, m in ((n, methods.get(n)) for n in methods.keys())
            ]
            section += _table(["method", "what it is", "engine"], rows, [16, 60, 12])
            refused = methods.refused
            if refused:
                section += _table(
                    ["refused", "why"], [[n, str(r)] for n, r in refused.items()], [16, 72]
                )
            out.append(section)
        return out


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("judgebayes-cli", CliReference)
    app.add_directive("judgebayes-checks", ChecksTable)
    app.add_directive("judgebayes-methods", MethodsTables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
