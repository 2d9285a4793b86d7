"""Random order numbers, dates, addresses and names, and their phrasings, for utterances built from templates."""

from __future__ import annotations

import random
from typing import Any

from chat.evaluation import generator


class Gen:
    """Random values and phrasings for template-generated utterances."""

    SURNAMES_ZH = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗"
    GIVEN_ZH = [
        "伟",
        "芳",
        "娜",
        "敏",
        "静",
        "丽",
        "强",
        "磊",
        "洋",
        "艳",
        "勇",
        "军",
        "杰",
        "娟",
        "涛",
        "明",
        "超",
        "秀英",
        "桂英",
        "建华",
    ]
    FIRST_EN = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Isla", "Jack", "Olivia", "Liam"]
    LAST_EN = ["Smith", "Johnson", "Brown", "Taylor", "Miller", "Wilson", "Moore", "Clark", "Walker", "Young"]
    PROVINCES = [
        ("浙江省", "杭州市", "西湖区"),
        ("广东省", "深圳市", "南山区"),
        ("江苏省", "南京市", "鼓楼区"),
        ("", "上海市", "浦东新区"),
        ("", "北京市", "朝阳区"),
        ("四川省", "成都市", "武侯区"),
    ]
    ROADS_ZH = ["文三路", "科技园路", "中山路", "世纪大道", "建国路", "人民路", "解放大道", "长江路"]
    STREETS_EN = [
        "Elm Street",
        "Oak Avenue",
        "Maple Road",
        "Baker Street",
        "Sunset Boulevard",
        "Park Lane",
        "Cedar Drive",
        "Hill Road",
    ]
    CITIES_EN = ["Springfield", "London", "Boston", "Seattle", "Leeds", "Austin"]
    MONTHS_EN = generator.MONTHS_EN
    ZH_DIGITS = "零一二三四五六七八九"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choice(self, items: Any) -> Any:
        return self.rng.choice(items)

    def order(self, lower: bool = False) -> str:
        value = f"ORD-{self.rng.choice([2024, 2025])}-{self.rng.randint(1, 9999):04d}"
        return value.lower() if lower else value

    def month_day(self) -> tuple[int, int]:
        month = self.rng.randint(1, 12)
        return month, self.rng.randint(1, 28)

    def zh_number(self, n: int) -> str:
        if n < 10:
            return self.ZH_DIGITS[n]
        tens, units = divmod(n, 10)
        return ("" if tens == 1 else self.ZH_DIGITS[tens]) + "十" + (self.ZH_DIGITS[units] if units else "")

    def zh_address(self) -> str:
        province, city, district = self.choice(self.PROVINCES)
        extra = self.choice(["", f"{self.rng.randint(1, 30)}栋{self.rng.randint(101, 2505)}室"])
        return f"{province}{city}{district}{self.choice(self.ROADS_ZH)}{self.rng.randint(1, 999)}号{extra}"

    def en_address(self) -> str:
        return f"{self.rng.randint(1, 9999)} {self.choice(self.STREETS_EN)}, {self.choice(self.CITIES_EN)}"

    def zh_name(self) -> str:
        return self.choice(self.SURNAMES_ZH) + self.choice(self.GIVEN_ZH)

    def en_name(self) -> str:
        return f"{self.choice(self.FIRST_EN)} {self.choice(self.LAST_EN)}"

    def cn_mobile(self) -> str:
        return "1" + self.choice("3456789") + "".join(str(self.rng.randint(0, 9)) for _ in range(9))

    def email(self) -> str:
        user = self.choice(self.FIRST_EN) + "." + self.choice(self.LAST_EN) + str(self.rng.randint(1, 99))
        return f"{user}@{self.choice(['Example.com', 'mail.example.org', 'QQ.com'])}"
