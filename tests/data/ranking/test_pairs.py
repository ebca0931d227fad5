"""The pairwise data of a ranking read from arrays (judgebayes/data/ranking/pairs.py):
ties by each policy, covariate differences standardised by hand, components of the
comparison graph, and bad arrays named."""

import numpy as np
import pytest

from judgebayes.data.ranking import pairwise_from_arrays
from judgebayes.data.ranking.pairs import component_labels, log_length
from judgebayes.errors import InputError


def test_ties_are_kept_for_davidson_halved_or_dropped():
    first, second, y = [0, 1, 2, 0], [1, 2, 0, 2], [1, np.nan, 0.5, 0]
    dav = pairwise_from_arrays(first, second, y, n_items=3)
    assert dav.y.tolist() == [1.0, 0.5, 0.5, 0.0] and dav.n_ties == 2 and dav.has_ties
    drop = pairwise_from_arrays(first, second, y, n_items=3, ties="drop")
    assert drop.y.tolist() == [1.0, 0.0] and drop.first.tolist() == [0, 0] and drop.n_ties == 2


def test_an_item_covariate_enters_as_the_difference_of_its_standardised_values():
    x = np.array([1.0, 2.0, 6.0])
    d = pairwise_from_arrays([0, 2], [1, 0], [1, 0], item_covariates={"x": x})
    z = (x - 3.0) / np.sqrt(14 / 3)  # mean 3, population sd sqrt(((-2)^2 + 1 + 9) / 3)
    np.testing.assert_allclose(d.X[:, 0], [z[0] - z[1], z[2] - z[0]])
    assert d.scales["x"] == pytest.approx((3.0, np.sqrt(14 / 3), "item"))
    np.testing.assert_allclose(log_length([0, 1, 3]), [0.0, 1.0, 2.0])  # log2(1 + words)


def test_components_of_the_comparison_graph():
    labels = component_labels(5, np.array([0, 3]), np.array([1, 4]))
    # {0, 1}, {2} alone, {3, 4}
    assert labels[0] == labels[1] and labels[3] == labels[4]
    assert len({labels[0], labels[2], labels[3]}) == 3


@pytest.mark.parametrize(
    ("first", "second", "y", "field"),
    [
        ([0, 5], [1, 2], [1, 0], "first"),  # item 5 of 3
        ([0, 1], [0, 2], [1, 0], "second"),  # an item against itself
        ([0, 1], [1, 2], [1, 2], "y"),  # 2 is no verdict
        ([0, 1], [1, 2], [1], "y"),  # lengths differ
    ],
)
def test_bad_arrays_are_named(first, second, y, field):
    with pytest.raises(InputError) as e:
        pairwise_from_arrays(first, second, y, n_items=3)
    assert e.value.field == field
