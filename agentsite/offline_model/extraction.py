"""Memory extraction: what the customer stated in a transcript, as JSON memories. Only the customer's statements
become memories (an agent's counts when the customer answers it with a bare yes), and later statements win.
See docs/offline-model.md.
"""

from __future__ import annotations

import json
import re
from typing import Any

from . import corrections, dates, facts, nlu, slots, speech
from .conversation import Conversation

CONFIDENCE_PLAIN = 0.9
CONFIDENCE_CORRECTION = 0.96
CONFIDENCE_HEDGED = 0.7

_SPEAKER = re.compile(
    r"^\s*(?P<who>customer|user|client|agent|assistant|客户|顾客|用户|客服|助手)\s*[:：]\s*(?P<text>.*)$", re.I
)
_AGENT_WORDS = {"agent", "assistant", "客服", "助手"}


def parse_transcript(text: str) -> list[tuple[str, str]]:
    """Return (speaker, text) turns; speaker is "customer" or "agent"."""
    turns: list[tuple[str, str]] = []
    for line in text.splitlines():
        m = _SPEAKER.match(line)
        if m:
            who = "agent" if m.group("who").lower() in _AGENT_WORDS else "customer"
            turns.append((who, m.group("text").strip()))
        elif line.strip() and turns:
            turns[-1] = (turns[-1][0], turns[-1][1] + "\n" + line.strip())
        elif line.strip():
            turns.append(("customer", line.strip()))
    return turns


def _en_third_person(text: str) -> str:
    text = re.sub(r"(?i)\bI\s+am\b|\bI'm\b", "the customer is", text)
    text = re.sub(r"(?i)\bI\s+have\b|\bI've\b", "the customer has", text)
    text = re.sub(r"(?i)\bI\s+was\b", "the customer was", text)
    text = re.sub(r"(?i)\bI\s+don'?t\b", "the customer doesn't", text)
    text = re.sub(r"\bI\b", "the customer", text)
    text = re.sub(r"(?i)\bmy\b", "their", text)
    text = re.sub(r"(?i)\bme\b", "them", text)
    text = re.sub(r"(?i)\bmine\b", "theirs", text)

    def agree(m: re.Match[str]) -> str:
        adverb, verb = m.group(1) or "", m.group(2)
        keep = {
            "is",
            "was",
            "has",
            "can",
            "will",
            "would",
            "should",
            "did",
            "does",
            "doesn't",
            "must",
            "might",
            "may",
            "could",
            "had",
        }
        if verb.lower() in keep or verb.endswith("s") or verb.endswith("ed"):
            return m.group(0)
        verb = (
            verb[:-1] + "ies"
            if re.search(r"[^aeiou]y$", verb)
            else verb + ("es" if verb.endswith(("sh", "ch", "x", "o")) else "s")
        )
        return f"the customer {adverb}{verb}"

    text = re.sub(
        r"\bthe customer ((?:usually|always|never|often|also|really|only|normally)\s+)?([a-z']+)", agree, text
    )
    return text


def _zh_third_person(text: str) -> str:
    return text.replace("我们", "客户一家").replace("我的", "客户的").replace("我", "客户")


_FILLER = re.compile(
    r"^(?:另外|顺便说一下|顺便|对了|还有|哦|(?i:by\s+the\s+way|btw|oh\s+and|also|and|oh|ok|so))[，,\s]+"
)


def _trim(text: str, limit: int = 140) -> str:
    text = _FILLER.sub("", re.sub(r"\s+", " ", text).strip()).rstrip("。.!！;；,，")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def content_for(fact: facts.Fact, lang: str, today_note: str = "") -> str:
    """One short sentence, in the conversation's language, saying what is remembered."""
    v = fact.value
    zh = lang == "zh"
    if fact.key == "birthday":
        return (
            f"客户的生日是{dates.format_mm_dd(v, 'zh')}"
            if zh
            else f"The customer's birthday is {dates.format_mm_dd(v, 'en')}"
        )
    if fact.key == "notification_preference":
        if v == "mute":
            return "客户希望关闭通知（静音）" if zh else "The customer wants notifications muted"
        return "客户希望开启通知" if zh else "The customer wants notifications turned on"
    if fact.key == "contact_channel":
        return (
            f"客户希望通过{slots.CHANNEL_NAMES['zh'][v]}联系"
            if zh
            else f"The customer prefers to be contacted by {slots.CHANNEL_NAMES['en'][v]}"
        )
    if fact.key == "shipping_address":
        return f"客户的收货地址是{v}" if zh else f"The customer's shipping address is {v}"
    if fact.key == "order_number":
        return f"客户询问过订单{v}" if zh else f"The customer asked about order {v}"
    if fact.key == "preferred_carrier":
        return (
            f"客户偏好使用{slots.carrier_name(v, 'zh')}"
            if zh
            else f"The customer prefers {slots.carrier_name(v, 'en')}"
        )
    if fact.key == "phone_number":
        return f"客户的电话号码是{v}" if zh else f"The customer's phone number is {v}"
    if fact.key == "email":
        return f"客户的邮箱是{v}" if zh else f"The customer's email is {v}"
    if fact.key == "name":
        if zh:
            return f"客户姓{v}" if len(v) == 1 else f"客户的名字是{v}"
        return f"The customer's name is {v}"
    if zh:
        said = _zh_third_person(_trim(v))
        if fact.kind == facts.EXPERIENCE and not said.startswith("客户"):
            said = "客户反映" + said
        return _trim(said + today_note)
    said = _en_third_person(_trim(v))
    if fact.kind == facts.EXPERIENCE and not said.lower().startswith("the customer"):
        said = "the customer reported that " + said[0].lower() + said[1:]
    return _trim(said[0].upper() + said[1:] + today_note)


def _confidence(fact: facts.Fact, changed: bool) -> float:
    if fact.hedged:
        return CONFIDENCE_HEDGED
    if fact.correction or changed:
        return CONFIDENCE_CORRECTION
    return CONFIDENCE_PLAIN


# The customer saying their last message meant the opposite or was not meant ("我是在说反话", "开玩笑的", "I was being
# sarcastic", "just kidding"): what it stated is no fact about them.
_TAKEN_BACK = re.compile(
    r"说反话|反话|开玩笑|逗你的|别当真|不是认真的|(?i:\bi\s+was\s+(?:being\s+)?(?:sarcastic|joking|kidding)\b|"
    r"\bjust\s+kidding\b|\bjk\b|\bthat\s+was\s+(?:sarcasm|a\s+joke)\b|\bnot\s+serious\b)"
)


def extract(conv: Conversation) -> dict[str, Any]:
    """Return the memories the customer stated in the transcript of the latest user message."""
    turns = parse_transcript(conv.latest_user_text)
    customer_text = " ".join(text for who, text in turns if who == "customer")
    lang = speech.detect_language(customer_text)
    chosen: dict[tuple[str, str], dict[str, Any]] = {}
    context_key = ""
    last_agent = ""
    said_last: list[tuple[str, str]] = []  # the slots the customer's previous message filled
    for who, text in turns:
        if who == "agent":
            context_key = facts.key_asked_by(text) or context_key
            last_agent = text
            continue
        if _TAKEN_BACK.search(text):  # "你记下了啥？？我是在说反话": the message before meant nothing of it
            for slot in said_last:
                chosen.pop(slot, None)
            said_last = []
            continue
        said_last = []
        text = corrections.as_meant(text)  # "改成15号，哦不对，18号" states 18号
        if nlu.CONFIRM.match(text) and last_agent:  # "yes" to "your birthday is March 15, right?": that key only
            asked = facts.key_asked_by(last_agent)  # a yes to the shop's own words ("we ship with UPS") states nothing
            stated = [f for f in facts.stated_in(last_agent, questions=True) if f.key and f.key == asked]
        else:
            stated = facts.stated_in(text, context_key)
        for fact in stated:
            if fact.key in facts.SINGLE_VALUED:
                slot = (fact.key, "")
            else:
                slot = (fact.key, fact.value if fact.key else f"{fact.kind}:{fact.value}")
            previous = chosen.get(slot)
            changed = previous is not None and previous["value"] != fact.value
            note = ""
            if not fact.key and conv.today:
                resolved = [r.date for r in dates.find_relative(fact.value, conv.today) if r.date]
                if resolved:
                    note = f"（{resolved[0].isoformat()}）" if lang == "zh" else f" ({resolved[0].isoformat()})"
            said_last.append(slot)
            chosen[slot] = {
                "type": fact.kind,
                "key": fact.key,
                "value": fact.value if fact.key else "",
                "content": content_for(fact, lang, note),
                "confidence": _confidence(fact, changed),
            }
        keyed = [f.key for f in stated if f.key]
        if keyed:
            context_key = keyed[-1]
    return {"memories": list(chosen.values())}


def render(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False)
