"""``python -m judgebayes`` runs the command line."""

from judgebayes.cli import entry

entry()
