"""Where the real data are: the shared data folder, found once, read where it lives.

Nothing of the data is part of the package and nothing is downloaded.  A loader reads from
the folder that :func:`data_dir` finds: its ``data_dir=`` argument, else the
``JUDGEBAYES_DATA`` environment variable, else the ``shared/data`` folder beside the
checkout the package runs from (``<checkout>/../shared/data``).  A folder that is not
there is one :class:`~judgebayes.errors.DataNotFoundError` naming the places it looked.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pandas as pd

from judgebayes.errors import DataNotFoundError, check_choice

__all__ = ["ENV", "check_choice", "data_dir", "data_path", "read_csv"]

#: the environment variable naming the data folder
ENV = "JUDGEBAYES_DATA"


def _beside_checkout() -> Path:
    """``shared/data`` beside the checkout that holds this package (editable installs)."""
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """The data folder: ``data_dir``, else ``$JUDGEBAYES_DATA``, else ``shared/data`` beside
    the checkout.

    Raises
    ------
    DataNotFoundError
        The folder chosen does not exist (the message names every place looked at).
    """
    if data_dir is not None:
        path, how = Path(data_dir), "data_dir="
    elif os.environ.get(ENV):
        path, how = Path(os.environ[ENV]), f"${ENV}"
    else:
        path, how = _beside_checkout(), "the shared/data folder beside the checkout"
    if not path.is_dir():
        raise DataNotFoundError(
            f"no data folder at {str(path)!r} ({how}): the real data are read where they "
            f"live, never copied into the package; pass data_dir=, set {ENV}, or put the "
            f"shared data beside the checkout ({str(_beside_checkout())!r})",
            field="data_dir",
            value=str(path),
        )
    return path


def data_path(dataset: str, name: str, data_dir_: str | os.PathLike | None = None) -> Path:
    """The file ``name`` of ``dataset``'s folder (e.g. ``llmbar``), which must exist."""
    path = data_dir(data_dir_) / dataset / name
    if not path.is_file():
        raise DataNotFoundError(
            f"the data folder {str(path.parent.parent)!r} has no {dataset}/{name}",
            field="data_dir",
            value=str(path),
        )
    return path


@functools.lru_cache(maxsize=16)
def _read_csv(path: Path, mtime: float) -> pd.DataFrame:
    return pd.read_csv(path)


def read_csv(dataset: str, name: str, data_dir_=None) -> pd.DataFrame:
    """A CSV of the data folder (read once per file and version; a copy each call)."""
    path = data_path(dataset, name, data_dir_)
    return _read_csv(path, path.stat().st_mtime).copy()
