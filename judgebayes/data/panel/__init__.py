r"""Generator x validator panels: validation and aggregation of cell, annotation and item tables.

A panel holds, for every (generator i, validator j) cell, the number of the generator's
outputs the validator judged (``n_judged``) and called valid (``n_valid``); for
human-annotated generators the number of annotated outputs and how many humans found
valid; optionally per-cell confusion counts (tp, fn, tn, fp) where the judged outputs
were annotated; and optionally the item-level verdicts (for the ensembles and the
item-level model).

Input contracts
---------------
cells : generator, validator, n_judged, n_valid; optional tn, fp, fn, tp (annotated
    generators), optional self (bool: the validator judged its own model's outputs),
    optional n_missing (verdicts lost to malformed output).
annotations : generator, n_annotated, n_valid_human.
items : output, generator, validator, verdict, optional human — aggregated here;
    verdict and human labels go through :func:`judgebayes.data.accuracy.normalize_labels`, a
    missing verdict is counted in ``n_missing`` of its cell, never dropped silently.

Missing cells are allowed (``n_judged = 0``).  Errors name the field and the value: a
generator with no judged outputs, ``n_valid > n_judged``, an annotated generator absent
from the cells, fewer than two validators, confusion counts that do not add up.
"""

from judgebayes.data.panel.arrays import PanelData as PanelData
from judgebayes.data.panel.arrays import panel_from_arrays as panel_from_arrays
from judgebayes.data.panel.frames import panel_from_frames as panel_from_frames
from judgebayes.data.panel.frames import panel_from_items as panel_from_items

__all__ = ["PanelData", "panel_from_arrays", "panel_from_frames", "panel_from_items"]
