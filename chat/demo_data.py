"""The demo shop's customers, orders and policy articles (loaded by ``manage.py seed_demo``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings


def customer_password() -> str:
    """Every demo customer's password (``DEMO_CUSTOMER_PASSWORD``; listed on the demo login page)."""
    password: str = settings.DEMO_CUSTOMER_PASSWORD
    return password


# (days before seeding, location, description)
Event = tuple[float, str, str]


@dataclass(frozen=True)
class DemoOrder:
    number: str
    status: str
    days_ago: float
    items: tuple[tuple[str, int, str], ...]  # name, quantity, unit price
    carrier: str = ""
    tracking: str = ""
    eta_days: int | None = None
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class DemoCustomer:
    username: str
    display_name: str
    language: str
    address: str
    orders: tuple[DemoOrder, ...] = field(default_factory=tuple)
    phone: str = ""  # the account's phone number; without one, the shop cannot call or text the customer


CUSTOMERS = (
    DemoCustomer(
        "wang",
        "王小明",
        "zh-hans",
        "浙江省杭州市西湖区文三路 398 号",
        (
            DemoOrder("ORD-2025-0816", "processing", 1, (("无线蓝牙耳机", 1, "299.00"),)),
            DemoOrder(
                "ORD-2025-0817",
                "shipped",
                3,
                (("保温杯", 2, "89.00"),),
                "顺丰速运",
                "SF1234567890",
                1,
                ((2.5, "杭州", "已揽收"), (1.2, "上海转运中心", "运输中")),
            ),
            DemoOrder(
                "ORD-2025-0790",
                "delivered",
                20,
                (("机械键盘", 1, "459.00"),),
                "京东物流",
                "JD0098765432",
                None,
                ((19, "杭州", "已揽收"), (17, "杭州西湖区", "已签收")),
            ),
            DemoOrder("ORD-2025-0702", "cancelled", 40, (("手机壳", 1, "39.00"),)),
        ),
        phone="13857101234",
    ),
    DemoCustomer(
        "li",
        "李娜",
        "zh-hans",
        "广东省深圳市南山区科技园路 12 号 3 栋 1201 室",
        (
            DemoOrder(
                "ORD-2025-0901",
                "in_transit",
                4,
                (("跑步鞋", 1, "599.00"),),
                "中通快递",
                "ZT5566778899",
                2,
                ((3.5, "广州", "已揽收"), (2, "深圳转运中心", "运输中")),
            ),
            DemoOrder("ORD-2025-0902", "paid", 0.5, (("瑜伽垫", 1, "129.00"),)),
            DemoOrder("ORD-2025-0850", "refunded", 30, (("电动牙刷", 1, "199.00"),)),
        ),
        phone="13911112222",
    ),
    DemoCustomer(
        "chen",
        "陈静",
        "zh-hans",
        "四川省成都市武侯区人民南路 88 号",
        (
            DemoOrder(
                "ORD-2025-0941",
                "shipped",
                2,
                (("空气净化器", 1, "1299.00"),),
                "京东物流",
                "JD1122334455",
                1,
                ((1.5, "成都", "已出库"),),
            ),
            DemoOrder(
                "ORD-2025-0942",
                "delivered",
                12,
                (("绿茶", 3, "68.00"),),
                "顺丰速运",
                "SF2233445566",
                None,
                ((11, "杭州", "已揽收"), (9, "成都武侯区", "已签收")),
            ),
            DemoOrder("ORD-2025-0943", "pending", 0.2, (("台灯", 1, "159.00"),)),
        ),
    ),
    DemoCustomer(
        "alice",
        "Alice Smith",
        "en",
        "221 Baker Street, London",
        (
            DemoOrder("ORD-2025-0923", "processing", 1, (("Noise-cancelling headphones", 1, "249.00"),)),
            DemoOrder(
                "ORD-2025-0924",
                "shipped",
                3,
                (("Coffee grinder", 1, "89.00"),),
                "UPS",
                "1Z999AA10123456784",
                2,
                ((2.5, "Leeds", "Picked up"), (1, "London hub", "In transit")),
            ),
            DemoOrder(
                "ORD-2025-0880",
                "delivered",
                15,
                (("Desk lamp", 2, "35.00"),),
                "DHL",
                "JD014600006281",
                None,
                ((14, "Manchester", "Picked up"), (12, "London", "Delivered")),
            ),
        ),
        phone="+447700900123",
    ),
    DemoCustomer(
        "bob",
        "Bob Brown",
        "en",
        "742 Evergreen Terrace, Springfield",
        (
            DemoOrder(
                "ORD-2025-0931",
                "in_transit",
                5,
                (("Hiking backpack", 1, "129.00"),),
                "DHL",
                "JD014600007399",
                1,
                ((4, "Seattle", "Picked up"), (2, "Portland hub", "In transit")),
            ),
            DemoOrder("ORD-2025-0932", "processing", 0.8, (("Water bottle", 3, "15.00"),)),
            DemoOrder(
                "ORD-2025-0870",
                "delivered",
                25,
                (("Tent", 1, "320.00"),),
                "UPS",
                "1Z999AA10123456799",
                None,
                ((24, "Austin", "Picked up"), (21, "Springfield", "Delivered")),
            ),
        ),
        phone="+12025550143",
    ),
)

# What the shop has promised demo customers, made through the shop's own functions when seeding:
# (customer, kind, order, reason). Li asked us to chase an order that has not shipped; Alice's refund is
# in flight, her return received (so she hears of it when she next opens the chat).
PROMISES = (
    ("li", "expedite", "ORD-2025-0902", ""),
    ("alice", "refund", "ORD-2025-0880", "one of the lamps flickers"),
)

ARTICLES = (
    (
        "refunds",
        "zh-hans",
        "退款政策",
        "签收后 7 天内可申请无理由退货退款，商品需保持完好。退款在我们收到退货后 3 个工作日内原路退回。"
        "已取消或已退款的订单不能再次退款。申请退款时请提供订单号和原因。",
    ),
    (
        "refunds",
        "en",
        "Refund policy",
        "You can return an item for a full refund within 7 days of delivery if it is undamaged. Refunds go back to "
        "the original payment method within 3 business days of receiving the return. Cancelled or already refunded "
        "orders cannot be refunded again. Give your order number and a reason when you ask for a refund.",
    ),
    (
        "shipping",
        "zh-hans",
        "配送时效",
        "现货商品在付款后 24 小时内发货。江浙沪地区一般 1-2 天送达，其他地区 2-4 天，偏远地区 5-7 天。"
        "我们使用顺丰速运、京东物流和中通快递，发货后可以用订单号查询物流。",
    ),
    (
        "shipping",
        "en",
        "Shipping times",
        "Items in stock leave our warehouse within 24 hours of payment. Delivery usually takes 1-2 days in the same "
        "region, 2-4 days elsewhere and 5-7 days to remote areas. We ship with UPS, DHL and SF Express; once shipped, "
        "track the parcel with your order number.",
    ),
    (
        "returns",
        "zh-hans",
        "退换货流程",
        "在订单页面选择退换货，打包商品并附上订单号，预约快递上门取件。换货在收到原商品后 2 天内寄出。质量问题的运费由我们承担。",
    ),
    (
        "returns",
        "en",
        "Returns and exchanges",
        "Choose return or exchange on the order page, pack the item with the order number and book a courier pickup. "
        "Exchanges ship within 2 days of receiving the original. We pay the postage for faulty items.",
    ),
    (
        "notifications",
        "zh-hans",
        "通知设置",
        "您可以开启或关闭（静音）订单和物流通知。静音后我们不会再发送推送，但重要的安全提醒仍会发送。"
        "可以随时告诉客服修改通知设置。",
    ),
    (
        "notifications",
        "en",
        "Notification settings",
        "You can turn order and delivery notifications on or mute them. Muted, we send no more push messages, "
        "though important security alerts still arrive. Ask us to change this at any time.",
    ),
    (
        "contact",
        "zh-hans",
        "联系方式",
        "我们可以通过邮件、电话、短信或微信联系您，您可以选择其中一种作为首选联系方式。",
    ),
    (
        "contact",
        "en",
        "How we contact you",
        "We can reach you by email, phone, SMS or WeChat; choose one as your preferred contact channel.",
    ),
    (
        "address",
        "zh-hans",
        "修改收货地址",
        "订单发货前可以修改收货地址；已发货的订单请联系快递改派。默认收货地址可以随时修改。",
    ),
    (
        "address",
        "en",
        "Changing your address",
        "You can change the delivery address until the order ships; after that, ask the carrier to redirect it. "
        "Your default shipping address can be changed at any time.",
    ),
)
