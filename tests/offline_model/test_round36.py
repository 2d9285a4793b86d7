"""Red team, session 27 (round 36): the readings under tests/chat/test_round36.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import corrections, nlu, slots
from tests.offline_model import systems


@pytest.mark.parametrize(
    ("proposed", "said", "now"),
    [
        (
            "香港九龙旺角弥敦道688号12楼B室",
            "Flat B, 12/F, 688 Nathan Road, Mong Kok, Kowloon, Hong Kong",
            "Flat B, 12/F, 688 Nathan Road, Mong Kok, Kowloon, Hong Kong",
        ),
        ("12 Oak Street, Portland, OR 97201", "sorry, the zip is 97205", "12 Oak Street, Portland, OR 97205"),
        ("5 Mill Road, Leeds LS1 4AB", "postcode should be LS2 9JT", "5 Mill Road, Leeds LS2 9JT"),
        # the house number leads an English address: "no wait, 14" was read as the ZIP
        ("12 Oak Street, Portland, OR 97201", "no wait, 14", "14 Oak Street, Portland, OR 97201"),
        ("广东省深圳市南山区科技园路12号3栋1201室", "不是，是1204", "广东省深圳市南山区科技园路12号3栋1204室"),
    ],
)
def test_an_address_proposed_is_corrected_as_said(proposed, said, now):
    assert (
        corrections.corrected_address(proposed, said) == now
        or corrections.whole_address(proposed, slots.address(said) or "") == now
    )


def test_a_hong_kong_flat_and_floor_are_part_of_the_address():
    assert slots.address("Flat B, 12/F, 688 Nathan Road, Mong Kok, Kowloon, Hong Kong").startswith("Flat B, 12/F")


def test_a_cantonese_address_change_gives_the_address_alone(say):
    said = say("咁幫我改送貨地址去香港九龍旺角彌敦道688號", system=systems.CHEN)
    assert said.calls == [("update_shipping_address", {"address": "香港九龍旺角彌敦道688號"})], said  # as written


@pytest.mark.parametrize("text", ["要是我把通知关了会怎样？", "如果把通知关了会有什么后果？"])
def test_what_a_change_would_do_is_asked_not_the_change(text):
    assert nlu.classify(text).intent is nlu.Intent.POLICY
