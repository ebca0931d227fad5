"""Clustered items (the clustered model): the contract's cases of the study class
(tests/contract.py); the model's own tests are in tests/studies/test_items.py."""

from tests.contract import ContractTests


class TestContract(ContractTests):
    keys = ("items.clustered",)
