"""Round 13 (Chinese reviewer): changes of address and setting proposed other than the customer meant, and confirmed
so: "改回杭州那个文三路398号" saved as "杭州那个文三路398号"; "…100号，哦不对，是200号，20楼" proposed 100号, then "不是100号啊，
我说了是200号20楼" proposed "200号20楼" alone; "把通知打开吧，呃不对，还是关着吧" proposed notifications on."""

from __future__ import annotations

import pytest

from tests.offline_model.replies import tool_reply
from tests.offline_model.systems import WANG
from tests.offline_model.test_extraction import extract  # noqa: F401 - the fixture

RECORD = "浙江省杭州市西湖区文三路 398 号"
MEMORY = [f"- [confirmed] Shop record: the shipping address is {RECORD} {{key=shipping_address; value={RECORD}}}"]


def test_a_value_corrected_with_its_floor_after_a_comma(say):
    said = say("地址帮我改一下，改成上海市浦东新区世纪大道100号，哦不对，是200号，20楼", system=WANG)

    assert said.calls == [("update_shipping_address", {"address": "上海市浦东新区世纪大道200号20楼"})], said


def test_a_proposed_number_said_to_be_wrong_is_replaced_in_the_whole_address(say):
    request = [{"role": "system", "content": WANG}, {"role": "user", "content": "地址改成上海市浦东新区世纪大道100号"}]
    proposed = say(request)
    result = {"status": "pending_confirmation", "summary": "将您的默认收货地址改为上海市浦东新区世纪大道100号"}
    follow = tool_reply(proposed, [result], request)
    asked = [*follow, {"role": "assistant", "content": say(follow).content}]

    said = say([*asked, {"role": "user", "content": "不是100号啊，我说了是200号20楼"}])

    assert said.calls == [("update_shipping_address", {"address": "上海市浦东新区世纪大道200号20楼"})], said


def test_a_setting_taken_back_is_not_proposed_and_the_rest_is(say):
    said = say("把通知打开吧，呃不对，还是关着吧，联系方式改回邮件", system=WANG)

    assert said.calls == [("update_contact_channel", {"channel": "email"})], said


@pytest.mark.parametrize("text", ["地址改成杭州那个文三路399号", "ORD-2025-0816改寄到新安街道7号"])
def test_an_address_without_its_province_city_or_district_is_asked_for_whole(say, text):
    said = say(text, system=WANG)

    assert not said.calls and "不完整" in said.content, said


def test_the_address_on_record_named_in_fewer_words_changes_nothing(say):
    said = say("地址改回杭州那个文三路398号", memory=MEMORY)

    assert not said.calls and RECORD in said.content and "无需更改" in said.content, said


@pytest.mark.parametrize("text", ["不用静音了。联系方式改回邮件", "别静音，联系方式改回邮件"])
def test_no_need_to_mute_proposes_no_mute(say, text):
    """Round 14: "不用静音了。…" proposed muting, and li's "好的确认" muted her notifications."""
    said = say(text, system=WANG)

    assert ("update_notification_preference", {"preference": "mute"}) not in said.calls, said
    assert ("update_contact_channel", {"channel": "email"}) in said.calls, said


def test_a_correction_as_an_item_of_a_numbered_list_corrects(say):
    """Round 14: "1. 地址改成…100号 2. 不对，是200号 3. 通知关掉" proposed 100号, and chen's yes saved it."""
    said = say("1. 地址改成 成都市高新区天府大道100号 2. 不对，是200号 3. 通知关掉", system=WANG)

    assert said.calls == [
        ("update_shipping_address", {"address": "成都市高新区天府大道200号"}),
        ("update_notification_preference", {"preference": "mute"}),
    ], said


def test_the_next_items_number_is_no_part_of_an_address(extract):  # noqa: F811
    """Round 14: "…建国路88号 2. 通知打开" was remembered as "北京市朝阳区建国路88号 2"."""
    memories = extract([("customer", "1. 把默认地址改成 北京市朝阳区建国路88号 2. 通知打开 3. 那个已签收的退款")])

    assert [m["value"] for m in memories if m["key"] == "shipping_address"] == ["北京市朝阳区建国路88号"], memories
