"""``python -m judgebayes`` runs the command line."""

import sys

from judgebayes.cli import main

sys.exit(main())
