"""Helpers the test modules share: the installed command's runner."""

import shutil
import subprocess
import sys
from pathlib import Path


def _exe() -> list[str]:
    exe = Path(sys.executable).parent / "judgebayes"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("judgebayes")
    return [found] if found else [sys.executable, "-m", "judgebayes"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*_exe(), *map(str, args)], capture_output=True, text=True, timeout=300)
