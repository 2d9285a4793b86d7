"""The customer's forms: correcting one of their long-term memories, rating a conversation."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from django import forms
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from numpy.typing import NDArray

from agentsite import clock
from agentsite.redaction import redact
from chat import shop
from memory import keys, longterm
from memory.embeddings import get_embedder
from memory.instructions import NOT_THE_CUSTOMERS
from memory.models import LongTermMemory, MemoryConflict, MemoryType, Source, Tag

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# What a keyed memory is about, in the customer's language (memory.keys.REGISTRY names).
KEY_LABELS = {
    "birthday": _("Birthday"),
    "notification_preference": _("Notifications"),
    "contact_channel": _("How to contact you"),
    "shipping_address": _("Shipping address"),
    "order_number": _("An order you asked about"),
    "preferred_carrier": _("Preferred carrier"),
    "phone_number": _("Phone number"),
    "email": _("Email address"),
    "name": _("Name"),
}


def storable(text: str) -> None:
    """Refuse text PostgreSQL cannot store: an unpaired surrogate (a JSON body can carry one as ``\\ud800``).
    Django's CharField already refuses NUL."""
    if any("\ud800" <= char <= "\udfff" for char in text):
        raise forms.ValidationError(_("The text holds a character that cannot be stored."), code="surrogate")


# The tag of a memory in the customer's words: the definition the prompt and the admin use (memory.models.Tag).
TAG_LABELS = {
    Tag.CONFIRMED: _("confirmed by our records"),
    Tag.REQUESTED: _("you asked for this; our records decide"),
    Tag.REFERENCE: _("noted, not verified"),
    Tag.UNCONFIRMED: _("not sure yet"),
    Tag.DISPUTED: _("being checked by our team"),
}


def shown(memory: LongTermMemory, tag: Tag) -> str:
    """The memory's text as the customer reads it on the memory page: a change they asked for of a value the shop
    keeps is said as asked ("The customer's shipping address is …" would read as the record)."""
    if tag == Tag.REQUESTED and memory.value and keys.is_shop_owned(memory.key):
        return str(_("You asked us to change this to: %(value)s")) % {"value": memory.value}
    return memory.content


SOURCE_LABELS: dict[str, StrOrPromise] = {  # keyed by Source, looked up by a row's plain string
    Source.SYSTEM_RECORD: _("from the shop's records"),
    Source.CUSTOMER_STATED: _("you told us"),
    Source.AGENT_INFERRED: _("the assistant inferred it"),
}


def not_correctable(memory: LongTermMemory) -> StrOrPromise | None:
    """Why the customer may delete ``memory`` but not rewrite it, or None when they may.

    A recap is our account of a conversation, and a shop record without a key the customer can ask to change
    (a refund requested, a promise) is the shop's: rewritten, either would show the customer's words in our
    voice. A shop-owned key stays correctable: the correction goes to staff as a request.
    """
    if memory.type == MemoryType.SUMMARY:
        return _("This is our recap of a conversation: you can delete it, but not rewrite it.")
    if memory.source == Source.SYSTEM_RECORD and not keys.is_shop_owned(memory.key):
        return _("This comes from the shop's records: ask us in the chat if something in it is wrong.")
    return None


class CorrectMemoryForm(forms.Form):
    """The customer's new text for one of their memories; ``save`` supersedes the memory at once."""

    text = forms.CharField(label=_("Correct it"), max_length=300, strip=True, validators=[storable])

    def __init__(self, *args: Any, memory: LongTermMemory, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.memory = memory

    def clean_text(self) -> str:
        text: str = self.cleaned_data["text"]
        if reason := not_correctable(self.memory):
            raise forms.ValidationError(reason, code="not_correctable")
        if NOT_THE_CUSTOMERS.search(text):  # the filter extraction applies: a memory is never an instruction
            raise forms.ValidationError(
                _(
                    "That reads like an instruction to the assistant or a note in the shop's name; "
                    "we only keep what you tell us about yourself."
                ),
                code="instruction",
            )
        if self.memory.key == "shipping_address":
            try:  # the address alone, as the shop takes one: never the sentence around it ("我的收货地址已经是…")
                shop.deliverable(text)
            except shop.ShopError:
                raise forms.ValidationError(
                    _("Please write only the address, without other words or numbers."), code="not_an_address"
                ) from None
        if self.memory.key:
            try:
                self.cleaned_data["value"] = keys.normalise(self.memory.key, text)
            except keys.InvalidValue:
                raise forms.ValidationError(_("We could not understand that value."), code="invalid") from None
            same = LongTermMemory.objects.valid().filter(
                customer_id=self.memory.customer_id, key=self.memory.key, value=self.cleaned_data["value"]
            )
            if same.exists():
                raise forms.ValidationError(_("That is what we already remember."), code="unchanged")
        elif text == self.memory.content:
            raise forms.ValidationError(_("That is what we already remember."), code="unchanged")
        return text

    def candidate(self) -> longterm.Candidate:
        memory, text = self.memory, self.cleaned_data["text"]
        if memory.key:
            label = KEY_LABELS.get(memory.key, memory.key)
            content = f"{label}: {text}"
        else:
            content = text
        return longterm.Candidate(
            type=memory.type,
            content=content,
            confidence=1.0,  # the customer's own word; capped as every statement is (longterm.Candidate)
            source=Source.CUSTOMER_STATED,
            key=memory.key,
            value=self.cleaned_data.get("value", ""),
            metadata={"corrected_from": memory.pk},
        )

    @property
    def changes_the_shop(self) -> bool:
        """A correction of a shop-owned value asks for a change; the shop's record stays until it is made."""
        return keys.is_shop_owned(self.memory.key)

    def save(self) -> LongTermMemory:
        """Replace the memory by the customer's correction, keeping the old one invalidated.

        For a shop-owned key the correction is stored as a request beside the shop's record, and staff
        get it as an open conflict to apply through the shop (``memory.longterm.resolve_conflict``).
        """
        candidate = self.candidate()
        embedding = get_embedder().embed_passages([candidate.content])[0]
        with transaction.atomic():
            longterm.customer_lock(self.memory.customer_id)
            current = LongTermMemory.objects.select_for_update().valid().get(pk=self.memory.pk)
            if self.changes_the_shop:
                return self._request(current, candidate, embedding)
            new, _conflict = longterm.supersede(
                current,
                candidate,
                embedding,
                actor="customer",
                now=clock.now(),
                conflict_status=MemoryConflict.Status.AUTO_RESOLVED,
            )
        return new

    def _request(
        self, current: LongTermMemory, candidate: longterm.Candidate, embedding: NDArray[np.float32]
    ) -> LongTermMemory:
        request = replace(candidate, metadata={**candidate.metadata, "request": {"via": "memory_page"}})
        outcome = longterm.store(current.customer_id, request, embedding, actor="customer")
        if outcome.memory_id is None:  # the same words again within the dedup window: the request stands
            return current
        new = LongTermMemory.objects.get(pk=outcome.memory_id)
        longterm.open_conflict(
            current,
            request,
            actor="customer",
            now=clock.now(),
            reason=MemoryConflict.Reason.CHANGE_REQUEST,
            incoming=new,
        )
        return new


class RatingForm(forms.Form):
    """A satisfaction rating of one of the customer's conversations."""

    conversation_id = forms.UUIDField()
    score = forms.IntegerField(min_value=1, max_value=5)
    comment = forms.CharField(max_length=2000, required=False, strip=True, validators=[storable])

    def clean_comment(self) -> str:
        comment: str = self.cleaned_data["comment"]
        return redact(comment)  # shown to staff and kept: no secret
