"""Notes a family's fits share (judgebayes/studies/notes.py): a system's rows without a
verdict counted, and a point interval where the labels agree, one note per system that
needs one."""

from judgebayes.studies.notes import missing_notes, point_interval_notes


def test_one_note_per_system_that_needs_one():
    notes = missing_notes(("a", "b", "c"), [0, 3, 1], "a verdict")
    assert notes == (
        "system 'b': 3 row(s) without a verdict are not evaluated items (excluded, counted here)",
        "system 'c': 1 row(s) without a verdict are not evaluated items (excluded, counted here)",
    )
    points = point_interval_notes(("a", "b"), [0.0, 0.02], "PPI++")
    assert len(points) == 1 and points[0].startswith("system 'a': PPI++'s variance estimate is 0")
    assert missing_notes(("a",), [0], "a score") == ()
