"""Read a repeats frame (one row per judge run of a generation of a prompt) into passes
and runs per (prompt, generation).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.frames import as_pandas, group_labels
from judgebayes.data.items import binary_labels
from judgebayes.errors import InputError

__all__ = ["repeated_counts"]


def repeated_counts(
    frame, *, prompt: str = "prompt", generation: str = "generation", verdict: str = "judge"
) -> dict[str, Any]:
    """Passes and runs per (prompt, generation) from one row per judge run.

    Returns ``k``, ``runs``, ``prompt`` (codes, one per generation), ``prompts`` (names)
    and ``n_missing`` (rows without a verdict: counted, left out).
    """
    df = as_pandas(frame, "frame")
    for col in (prompt, generation, verdict):
        if col not in df.columns:
            raise InputError(
                f"frame has no column {col!r} (columns: {list(df.columns)})",
                field=col,
                value=None,
            )
    y = binary_labels(df[verdict], verdict, None)
    ok = ~np.isnan(y)
    if not ok.any():
        raise InputError(f"column {verdict!r} has no verdict", field=verdict, value=0)
    ids = {c: group_labels(df[c], c, c) for c in (prompt, generation)}  # blanks refused
    sub = pd.DataFrame({c: v[ok] for c, v in ids.items()}).assign(_y=y[ok])
    g = sub.groupby([prompt, generation], sort=True)["_y"].agg(["sum", "count"]).reset_index()
    prompts, pcode = np.unique(g[prompt].to_numpy(), return_inverse=True)
    if prompts.size < 2:
        raise InputError(
            f"column {prompt!r} has {prompts.size} prompt(s); a split needs at least 2",
            field=prompt,
            value=int(prompts.size),
        )
    return {
        "k": g["sum"].to_numpy(np.int64),
        "runs": g["count"].to_numpy(np.int64),
        "prompt": pcode.astype(np.int64),
        "prompts": tuple(prompts.tolist()),
        "n_missing": int((~ok).sum()),
    }
