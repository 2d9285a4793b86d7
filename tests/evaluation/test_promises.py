"""The "Promises kept" figure on one case per outcome and language: real turns, real shop actions, rolled back."""

import pytest

from chat.evaluation import promises
from chat.models import Commitment, Order

pytestmark = pytest.mark.django_db


def test_every_promise_is_reported_back_once_and_nothing_is_left_behind():
    played = promises.run(per_outcome=1)

    figure = promises.figure(played)
    assert figure == {"cases": 10, "made": 10, "reported": 10, "repeated": 0}, [
        (c["asked"], c["message"]) for c in played["cases"] if not c["reported"]
    ]
    assert {c["lang"] for c in played["cases"]} == {"en", "zh"}
    assert "**10 of 10 (100%)**" in promises.markdown(played)
    assert not Commitment.objects.exists() and not Order.objects.filter(number__startswith="ORD-2030-").exists()
