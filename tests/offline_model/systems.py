"""The system prompts the offline model's tests speak to, one per demo customer: the shop's words and the
customer's name, as the application writes them (the language of the prompt is the customer's)."""

from __future__ import annotations


def _en(name: str) -> str:
    return f"You are the customer-service agent of the demo shop.\nCustomer: {name}"


def _zh(name: str) -> str:
    return f"你是演示商店的客服。\n客户：{name}"


ALICE, BOB = _en("Alice Smith"), _en("Bob Brown")
WANG, LI, CHEN = _zh("王小明"), _zh("李娜"), _zh("陈静")
