"""The test groups (tests/groups.py): which tests share a worker."""

from tests.groups import README_BESIDE, group_of


def test_a_file_is_a_group_whatever_its_cases():
    assert group_of("tests/cli/test_cli.py::test_x[a-b]") == "tests/cli/test_cli.py"
    case = "tests/studies/test_items.py::test_contract_fit[items.plain-nuts]"
    assert group_of(case) == "tests/studies/test_items.py"


def test_each_readme_part_is_a_group_of_its_own():
    a = group_of("tests/test_readme.py::test_readme_python_blocks_run[part0]")
    b = group_of("tests/test_readme.py::test_readme_python_blocks_run[part1]")
    assert a != b and a.startswith("tests/test_readme.py[")
    assert group_of("tests/test_readme.py::test_readme_command_lines_parse") == (
        "tests/test_readme.py"
    )


def test_a_readme_part_that_fits_a_family_model_runs_beside_its_tests():
    from tests.readme import PARTS

    for text, beside in README_BESIDE.items():
        parts = [i for i, (_, _, code) in enumerate(PARTS) if text in "\n".join(code)]
        assert parts, text  # the README still fits that model
        for i in parts:
            assert group_of(f"tests/test_readme.py::test_run[part{i}]") == beside
