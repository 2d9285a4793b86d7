"""JSON Schema validation with each schema checked and compiled once per process, because ``jsonschema.validate``
checks the schema against its metaschema on every call, nearly all of its cost on the turn's path. The same
errors are raised, chosen the same way (``best_match``). See docs/bench.md.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema


@functools.lru_cache(maxsize=512)
def _validator(schema_json: str) -> Any:
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def validate(instance: Any, schema: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` if ``instance`` fails ``schema`` (``SchemaError`` if the schema is bad)."""
    error = jsonschema.exceptions.best_match(_validator(json.dumps(schema, sort_keys=True)).iter_errors(instance))
    if error is not None:
        raise error
