"""Many customers at once through a real daphne process: each gets their own answer, nobody else's."""

import asyncio
from decimal import Decimal

import pytest

from tests.factories import CustomerFactory, OrderFactory
from tests.http_login import login_cookie
from tests.load import CustomerRun, crowd
from tests.procs import start_daphne

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CUSTOMERS = 16


def make_customers() -> list[tuple[str, CustomerRun]]:
    made = []
    for index in range(CUSTOMERS):
        user = CustomerFactory(username=f"load{index}", password="x")
        number = f"ORD-2025-{5000 + index:04d}"
        OrderFactory(customer=user, number=number, total=Decimal("9.99"))
        made.append((login_cookie(user), CustomerRun(user.username, number)))
    return made


def test_concurrent_customers_through_daphne_each_get_their_own_order(process_env):
    customers = make_customers()
    server = start_daphne(process_env, extra_env={"AGENT_TURN_WORKERS": "4"})
    try:
        url = f"ws://127.0.0.1:{server.port}/ws/chat/"
        runs = asyncio.run(crowd(url, customers, lambda run: [f"What's the status of order {run.order_number}?"]))
    finally:
        server.stop()

    for run in runs:
        assert run.errors == [], (run.username, run.errors, server.log.read_text()[-2000:])
        assert run.order_number in run.replies[0]
        others = {r.order_number for r in runs} - {run.order_number}
        assert not any(other in run.replies[0] for other in others)
