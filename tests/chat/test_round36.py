"""Red team, session 27 (round 36, on 31309de).

- bob said no to an address change, and "Just so you know, I'm still living at <that address> — that's where I
  get my mail now" proposed it again; "yes" made it. A change said no to in a conversation is proposed again
  only when asked for in words of a request.
- alice "Turn off notifications only if my headphones have already shipped." proposed the mute without its
  condition (false: 0923 is processing); "yes" made it. A change asked on a condition is not proposed.
- chen's Hong Kong address corrected in English was spliced into the Chinese one proposed ("香港九龙旺角弥敦道688
  Nathan Road, …") and saved; "北京市朝阳区" (no street) and "5 Main St" (no town) were proposed, the first saved.
- "sorry, the zip is 97205" while 97201 waited was not read; a yes would have saved the wrong ZIP."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _address(user) -> str:
    return CustomerProfile.objects.get(user=user).default_address


def _waiting(user) -> list[PendingAction]:
    return list(PendingAction.objects.filter(customer=user, status="pending"))


def test_an_address_said_no_to_is_not_proposed_again_on_a_statement():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "change my address to 1600 Pennsylvania Ave NW, Washington, DC 20500")
    run_turn(user.pk, conversation, "no")
    run_turn(user.pk, conversation, "What's the refund policy for delivered items?")

    reply = run_turn(
        user.pk,
        conversation,
        "Just so you know, I'm still living at 1600 Pennsylvania Ave NW, Washington, DC 20500 — that's where I get "
        "my mail now.",
    ).reply
    run_turn(user.pk, conversation, "yes")

    assert _address(user) == "742 Evergreen Terrace, Springfield", reply

    asked = run_turn(
        user.pk, conversation, "ok, change my address to 1600 Pennsylvania Ave NW, Washington, DC 20500"
    ).reply
    assert [a.tool for a in _waiting(user)] == ["update_shipping_address"], asked  # asked for: proposed


@pytest.mark.parametrize(
    ("who", "text"),
    [
        ("alice", "Turn off notifications only if my headphones have already shipped."),
        ("li", "除非你们再发广告，否则别关我的通知"),
    ],
)
def test_a_change_asked_on_a_condition_is_not_proposed(who, text):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply
    run_turn(user.pk, conversation, "yes")

    assert CustomerProfile.objects.get(user=user).notification_preference == "on", reply
    assert _waiting(user) == [], reply


def test_an_address_corrected_in_another_script_is_proposed_whole():
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "香港九龙旺角弥敦道688号12楼B室")

    reply = run_turn(user.pk, conversation, "Flat B, 12/F, 688 Nathan Road, Mong Kok, Kowloon, Hong Kong").reply

    [waiting] = _waiting(user)
    assert waiting.arguments["address"] == "Flat B, 12/F, 688 Nathan Road, Mong Kok, Kowloon, Hong Kong", reply


@pytest.mark.parametrize(
    ("who", "text"), [("wang", "把默认地址改回北京市朝阳区"), ("bob", "Change my default address to 5 Main St")]
)
def test_an_address_no_parcel_could_find_is_not_proposed(who, text):
    user, conversation = demo_customer(who)
    before = _address(user)

    reply = run_turn(user.pk, conversation, text).reply
    run_turn(user.pk, conversation, "确认" if who == "wang" else "yes")

    assert _address(user) == before and _waiting(user) == [], reply


def test_a_zip_given_again_corrects_the_address_waiting():
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "change my address to 12 Oak Street, Portland, OR 97201")

    reply = run_turn(user.pk, conversation, "sorry, the zip is 97205").reply

    [waiting] = _waiting(user)
    assert waiting.arguments["address"] == "12 Oak Street, Portland, OR 97205", reply


def test_a_change_said_no_to_and_asked_again_in_cantonese_is_proposed():
    """Round 37: "幫我熄咗啲通知" after "唔係呀" was refused as said no to before: it asks for the change."""
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "可唔可以幫我熄咗啲通知？")
    run_turn(user.pk, conversation, "唔係呀")

    reply = run_turn(user.pk, conversation, "幫我熄咗啲通知").reply

    assert [a.tool for a in _waiting(user)] == ["update_notification_preference"], reply


def test_an_address_in_traditional_characters_is_saved_as_written():
    """Round 36 (left then): "香港九龍旺角彌敦道688號" was saved as "…彌敦道688号", the rules' simplified reading."""
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "咁幫我改送貨地址去香港九龍旺角彌敦道688號")

    reply = run_turn(user.pk, conversation, "係呀").reply

    assert _address(user) == "香港九龍旺角彌敦道688號", reply
