"""The demo shop's tools as the agent offers them to the model, in OpenAI's function-calling schema."""

from __future__ import annotations

from typing import Any

TOOL_PARAMETERS = {
    "lookup_order": {"order_number": {"type": "string"}},
    "list_my_orders": {"status": {"type": "string"}},
    "track_shipment": {"order_number": {"type": "string"}},
    "request_refund": {"order_number": {"type": "string"}, "reason": {"type": "string"}},
    "update_notification_preference": {"preference": {"type": "string", "enum": ["mute", "on"]}},
    "update_contact_channel": {"channel": {"type": "string", "enum": ["email", "phone", "sms", "wechat"]}},
    "update_shipping_address": {"address": {"type": "string"}},
    "search_policies": {"query": {"type": "string"}},
    "recall_memory": {"query": {"type": "string"}},
    "escalate_to_human": {"reason": {"type": "string"}},
}
OPTIONAL = {"list_my_orders": ["status"]}


def tool_schemas(names: list[str] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": name.replace("_", " "),
                "parameters": {
                    "type": "object",
                    "properties": params,
                    "required": [p for p in params if p not in OPTIONAL.get(name, [])],
                },
            },
        }
        for name, params in TOOL_PARAMETERS.items()
        if names is None or name in names
    ]
