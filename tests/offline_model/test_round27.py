"""Red team, session 24 (round 27): words of the customer's sentence in the address proposed (and, after a yes,
saved), and an address blended from two.

"pls update my address to 12 Oak Street, Portland OR 97201 thats where im living now…" saved "… 97201 thats";
"收货地址改成杭州市西湖区文三路100号2单元501室我下个月搬过去" gave no address, and the next message's was proposed
with those words in it; "不对啊 地址重复了 只要杭州市…" proposed "重复了 只要杭州市…"; "1600 Pennsylvania Ave,
Washington DC 20500 — actually no wait, make it 12 Oak Street, Portland OR 97201" proposed "1600 Pennsylvania Ave,
Washington DC 97201" (the ZIP read as an order's end and corrected).
"""

from __future__ import annotations

import pytest

from agentsite.offline_model import corrections, nlu, slots


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "pls update my address to 12 Oak Street, Portland OR 97201 thats where im living now since last month",
            "12 Oak Street, Portland OR 97201",
        ),
        ("收货地址改成杭州市西湖区文三路100号2单元501室我下个月搬过去", "杭州市西湖区文三路100号2单元501室"),
        ("不对啊 地址重复了 只要杭州市西湖区文三路100号2单元501室", "杭州市西湖区文三路100号2单元501室"),
        ("my new address is 221B Baker Street, London NW1 6XE", "221B Baker Street, London NW1 6XE"),
    ],
)
def test_the_address_holds_none_of_the_words_around_it(text, address):
    assert slots.address(nlu.as_mandarin(text)) == address


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        (
            "change my shipping adress to 1600 Pennsylvania Ave, Washington DC 20500 — actually no wait, make it "
            "12 Oak Street, Portland OR 97201",
            "change my shipping adress to 12 Oak Street, Portland OR 97201",
        ),
        (
            "change my address to 9 Elm Rd, Austin TX 78701 - oops no, 14 Pine Rd, Austin TX 78702",
            "change my address to 14 Pine Rd, Austin TX 78702",
        ),
        ("0901退款，不对，是0902", "0902退款"),
    ],
)
def test_an_address_given_again_whole_replaces_the_one_taken_back(text, meant):
    assert corrections.as_meant(text) == meant
