"""The shop's actions in the admin: ship (with a carrier and tracking number), deliver, record a return, decide a
refund; refusals are said, never a 500."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from agentsite import clock
from chat import shop
from chat.models import Commitment, Order, Refund

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_user(username="ops", password="pw", is_staff=True, is_superuser=True)
    client.force_login(staff)
    return client


def _order(number: str, status: str) -> Order:
    user, _ = get_user_model().objects.get_or_create(username="buyer")
    return Order.objects.create(customer=user, number=number, status=status, placed_at=clock.now(), total=Decimal("20"))


def test_shipping_from_the_admin_records_the_shipment_and_keeps_the_chase(staff_client):
    order = _order("ORD-2031-0501", "processing")
    shop.request_expedite(order.customer_id, order.number)

    chosen = staff_client.post("/admin/chat/order/", {"action": "ship", "_selected_action": [order.pk]})
    assert chosen.status_code == 302 and chosen["Location"].endswith(f"/admin/chat/order/{order.pk}/ship/")
    missing = staff_client.post(f"/admin/chat/order/{order.pk}/ship/", {"carrier": "UPS", "tracking_number": ""})
    assert missing.status_code == 200 and "This field is required" in missing.content.decode()

    done = staff_client.post(f"/admin/chat/order/{order.pk}/ship/", {"carrier": "UPS", "tracking_number": "1Z77"})

    assert done.status_code == 302
    order.refresh_from_db()
    assert order.status == "shipped" and order.shipment.tracking_number == "1Z77"
    assert Commitment.objects.get(order=order).closed_by == "staff:ops"
    again = staff_client.post(f"/admin/chat/order/{order.pk}/ship/", {"carrier": "UPS", "tracking_number": "1Z78"})
    assert again.status_code == 200 and "cannot be shipped" in again.content.decode()

    delivered = staff_client.post(
        "/admin/chat/order/", {"action": "deliver", "_selected_action": [order.pk]}, follow=True
    )
    order.refresh_from_db()
    assert delivered.status_code == 200 and order.status == "delivered"


def test_refund_actions_record_the_return_then_the_decision_once(staff_client):
    order = _order("ORD-2031-0502", "delivered")
    shop.request_refund(order.customer_id, order.number, "broken")
    refund = Refund.objects.get(order=order)

    for action in ("record_return", "approve", "refuse"):
        page = staff_client.post(
            "/admin/chat/refund/", {"action": action, "_selected_action": [refund.pk]}, follow=True
        )
        assert page.status_code == 200

    refund.refresh_from_db()
    assert refund.status == "approved" and refund.return_received_at and refund.decided_by == "staff:ops"
    assert "already approved" in page.content.decode()  # the refusal after the approval is said, not done
    assert Commitment.objects.get(refund=refund).outcome == "refund_approved"


def test_staff_keep_the_accounts_phone_number_and_nothing_else_of_the_profile(staff_client):
    from chat.models import CustomerProfile
    from tests.factories import CustomerFactory

    profile = CustomerFactory(profile__phone="").profile
    url = f"/admin/chat/customerprofile/{profile.pk}/change/"

    bad = staff_client.post(url, {"phone": "call me maybe"})
    assert bad.status_code == 200 and "6 to 15 digits" in bad.content.decode()
    done = staff_client.post(url, {"phone": " +44 7700 900 456 ", "contact_channel": "sms", "default_address": "x"})

    assert done.status_code == 302
    profile = CustomerProfile.objects.get(pk=profile.pk)
    assert profile.phone == "+447700900456"
    assert (profile.contact_channel, profile.default_address) == ("email", "")  # read only: the shop's, on a yes
