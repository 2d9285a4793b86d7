"""The paraphrase corpus (FAMILIES.md): its wordings, and the fixed rule that splits them in two halves."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
LANGUAGES = ("en", "zh")
TUNING, HELD_BACK = "tuning", "held-back"


@dataclass(frozen=True)
class Wording:
    family: str
    lang: str
    positive: bool
    subject: str  # ask_fact positives only, else ""
    text: str

    @property
    def half(self) -> str:
        """Even first byte of SHA-256(lang TAB text): tuned on; odd: held back to measure."""
        digest = hashlib.sha256(f"{self.lang}\t{self.text}".encode()).digest()
        return TUNING if digest[0] % 2 == 0 else HELD_BACK


def families() -> list[str]:
    return sorted({path.name.split(".")[0] for path in HERE.glob("*.tsv")})


def load(family: str | None = None, lang: str | None = None) -> list[Wording]:
    """Every wording of the corpus (or of one family and language), in file order."""
    out: list[Wording] = []
    for path in sorted(HERE.glob("*.tsv")):
        name, language, _ = path.name.split(".")
        if (family and name != family) or (lang and language != lang):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            polarity, subject, text = line.split("\t")
            out.append(Wording(name, language, polarity == "+", "" if subject == "-" else subject, text.strip()))
    return out
