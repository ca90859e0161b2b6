"""The roll log's proofs: the key that signs its entries and the hash that chains them.

Each entry's ``hash`` is HMAC-SHA256, under the log key, of the previous entry's hash and every
stored field of the entry (:func:`entry_fields`). The key is not in the database: it is
``ROLLROOM_LOG_KEY`` from the environment, or else derived from ``SECRET_KEY``. Without it,
nobody can append or rewrite an entry that verifies, even with write access to the database.

Functions here take plain values, so that migrations can use them on historical models.
"""

import hashlib
import hmac
import json
import os
from datetime import UTC

from django.conf import settings

GENESIS = "0" * 64
KEY_VARIABLE = "ROLLROOM_LOG_KEY"
#: What the key derived from SECRET_KEY is the HMAC of.
KEY_LABEL = b"rollroom roll log key v1"


def log_key():
    """The key that signs the log: ``ROLLROOM_LOG_KEY``, else HMAC-SHA256(SECRET_KEY, label)."""
    key = os.environ.get(KEY_VARIABLE, "")
    if key:
        return key.encode()
    return hmac.new(settings.SECRET_KEY.encode(), KEY_LABEL, hashlib.sha256).digest()


def canonical(value):
    """``value`` as canonical JSON: sorted keys, no spaces, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def timestamp(moment):
    """A stored time as the hash reads it: UTC, to the microsecond."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def entry_fields(entry):
    """Every stored field of a log entry but its hashes (``entry``: a LogEntry, current or
    historical)."""
    return {
        "campaign": entry.campaign_id,
        "seq": entry.seq,
        "created_at": timestamp(entry.created_at),
        "session": entry.session_id,
        "visibility": entry.visibility,
        "actor": entry.actor_id,
        "character": entry.character_id,
        "check": entry.check_ref_id,
        "kind": entry.kind,
        "data": entry.data,
    }


def entry_hash(prev_hash, fields, key=None):
    """The hash of an entry with ``fields`` chained to ``prev_hash``, signed with the log key."""
    message = f"{prev_hash}:{canonical(fields)}".encode()
    return hmac.new(key or log_key(), message, hashlib.sha256).hexdigest()
