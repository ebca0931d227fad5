"""The speed guard (benchmarks/bench_check.py): a call made slower than its recorded bound
fails the check, by name; a case without a recorded bound fails too; the recorded bounds
cover every case against the peers the test environment installs.

References: a deliberately slowed call (a CPU spin of known length beside a short one).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def guard():
    spec = importlib.util.spec_from_file_location(
        "bench_check", ROOT / "benchmarks" / "bench_check.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_check"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _spin(seconds: float):
    def call():
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    return call


def test_a_slowed_call_fails_the_check_by_name(guard, monkeypatch, capsys):
    fast, slow = _spin(0.002), _spin(0.010)
    cases = [
        guard.Case("steady", "a steady call", lambda: (fast, fast, "numpy reference op")),
        guard.Case("slowed", "a slowed call", lambda: (slow, fast, "numpy reference op")),
    ]
    recorded = {"steady": {"numpy": {"bound": 2.0}}, "slowed": {"numpy": {"bound": 2.0}}}
    rows = {r["case"]: r for r in guard.run(cases, 5, recorded)}
    assert rows["steady"]["ok"] and not rows["slowed"]["ok"]
    assert rows["slowed"]["ratio"] > 3  # 10 ms against 2 ms of CPU
    monkeypatch.setattr(guard, "CASES", cases)
    monkeypatch.setattr(guard, "bounds", lambda: recorded)
    assert guard.main(["--reps", "3"]) == 1
    err = capsys.readouterr().err
    assert "slowed (a slowed call)" in err and "above its bound 2.00" in err
    assert "steady" not in err
    assert guard.main(["--reps", "3", "--only", "steady"]) == 0


def test_a_case_without_a_bound_fails(guard):
    fast = _spin(0.001)
    case = guard.Case("new", "a new call", lambda: (fast, fast, "somepeer"))
    (row,) = guard.run([case], 3, {})
    assert not row["ok"]


def test_every_case_has_a_bound_for_the_installed_peer(guard):
    # the peer each case finds in this environment (ppi_py, krippendorff, choix are test
    # extras) has a recorded bound, so CI's check measures every case
    import importlib.util as iu

    recorded = guard.bounds()
    for case in guard.CASES:
        peer = next(p for p in case.peers if p == "numpy" or iu.find_spec(p) is not None)
        assert peer in recorded.get(case.name, {}), (case.name, peer)
