"""Quality metadata: the tag vocabulary, validation and a file's tag status.

Values are case-insensitive. An unknown trust or confidence value counts as
missing for ranking and is reported as invalid; it is never silently dropped
from the file that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..vocabulary import MAX_SOURCE_CHARS

TRUST_VALUES = ("owner", "self", "external", "untrusted")
CONFIDENCE_VALUES = ("high", "medium", "low", "speculative")
TAG_KEYS = ("trust", "confidence", "source")
ALLOWED = {"trust": TRUST_VALUES, "confidence": CONFIDENCE_VALUES}
#: A ranking switch the bulk tagger also writes: an evergreen memory's age never counts (`dates`).
#: It is not a quality tag: it never makes a file tagged, partial or invalid.
EVERGREEN = "evergreen"
WRITABLE_KEYS = (*TAG_KEYS, EVERGREEN)
_BOOLEANS = {"true": "true", "yes": "true", "on": "true", "1": "true",
             "false": "false", "no": "false", "off": "false", "0": "false"}

# Status of a file's tags, as counted by `tachikoma stats`.
TAGGED, PARTIAL, UNTAGGED, INVALID = "tagged", "partial", "untagged", "invalid"
STATUSES = (TAGGED, PARTIAL, UNTAGGED, INVALID)


class InvalidTagValue(ValueError):
    """A value given by a person (CLI, web form) is not in the vocabulary."""


def normalise_value(key: str, raw: object) -> str | None:
    """Return the canonical value for `key`, or None when `raw` is not valid.

    Trust and confidence must be one of the allowed words (any case, spaces
    around ignored). Source is free text; an empty source is missing.
    """
    if key == EVERGREEN:
        return _BOOLEANS.get(str(raw).strip().lower()) if isinstance(raw, (str, bool, int)) else None
    if raw is None or isinstance(raw, (dict, list, bool)):
        return None
    text = str(raw).strip()
    if not text:
        return None
    if key == "source":
        return text
    text = text.lower()
    return text if text in ALLOWED[key] else None


def check_value(key: str, raw: str | None) -> str | None:
    """Validate a value a person asked for; raise InvalidTagValue if it is not allowed."""
    if raw is None:
        return None
    if key not in WRITABLE_KEYS:
        raise InvalidTagValue(f"unknown tag {key!r}: use one of {', '.join(WRITABLE_KEYS)}")
    value = normalise_value(key, raw)
    if key == "source" and value is not None:
        from ..humanize import hidden_characters, printable

        if hidden := hidden_characters(value):  # it goes into the file and the commit subject as it is
            raise InvalidTagValue(f"invalid source '{printable(value)}': it holds a control or invisible "
                                  f"character ({', '.join(printable(ch) for ch in hidden)}); leave it out")
        if len(value) > MAX_SOURCE_CHARS:  # the same on every face (MCP's schema says it too)
            raise InvalidTagValue(f"invalid source '{printable(value[:40])}…': {len(value):,} characters, at most "
                                  f"{MAX_SOURCE_CHARS} (a name or a link)")
    if value is None:
        allowed = ", ".join(ALLOWED.get(key, ("true", "false") if key == EVERGREEN else ("any non-empty text",)))
        raise InvalidTagValue(f"invalid {key} {raw!r}: use one of {allowed}")
    return value


def source_filter(raw: str) -> str:
    """A search's source filter (`search --source`, ``source`` on the JSON API and MCP): "missing" (files with no
    source), or a source as every face checks one it writes (`check_value`; raises InvalidTagValue)."""
    return "missing" if raw.strip().lower() == "missing" else check_value("source", raw)


@dataclass(frozen=True)
class Tags:
    """The quality metadata of one file, validated.

    `trust` and `confidence` hold canonical values or None; `invalid` maps a
    key to the raw value that was present but not allowed.
    """

    trust: str | None = None
    confidence: str | None = None
    source: str | None = None
    invalid: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, mapping: dict | None) -> "Tags":
        """Build from raw front matter or a tag-file entry (keys case-insensitive)."""
        values: dict[str, str | None] = {}
        invalid: dict[str, str] = {}
        lowered = {str(k).strip().lower(): v for k, v in (mapping or {}).items()}
        for key in TAG_KEYS:
            raw = lowered.get(key)
            if raw is None:
                continue
            value = normalise_value(key, raw)
            if value is None:
                if str(raw).strip():
                    invalid[key] = str(raw)
            else:
                values[key] = value
        return cls(invalid=invalid, **values)

    def as_dict(self) -> dict[str, str]:
        """The valid values that are set, in canonical key order."""
        return {k: getattr(self, k) for k in TAG_KEYS if getattr(self, k) is not None}

    @property
    def status(self) -> str:
        """tagged: valid trust and confidence; invalid: any unknown value;
        partial: some tag but not both trust and confidence; else untagged."""
        if self.invalid:
            return INVALID
        if self.trust and self.confidence:
            return TAGGED
        if self.trust or self.confidence or self.source:
            return PARTIAL
        return UNTAGGED
