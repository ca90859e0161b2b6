"""The roll log's proofs: the key that signs its entries, the hash that chains them, and the
commitments of GM-secret rolls.

Each entry's ``hash`` is HMAC-SHA256, under the log key, of the previous entry's hash and every
stored field of the entry (:func:`entry_fields`). The key is not in the database: it is
``ROLLROOM_LOG_KEY`` from the environment, or else derived from ``SECRET_KEY``. Without it,
nobody can append or rewrite an entry that verifies, even with write access to the database.

A GM-secret roll carries a commitment: sha256 of a random salt and the canonical result
(:func:`commitment`), shown to every player at once. Revealing the roll later shows the result and
the salt, which anyone can hash again and compare with the commitment shown before.

Functions here take plain values, so that migrations can use them on historical models.
"""

import hashlib
import hmac
import json
import secrets
from datetime import UTC

from django.conf import settings

GENESIS = "0" * 64
#: What the key derived from SECRET_KEY is the HMAC of.
KEY_LABEL = b"rollroom roll log key v1"
#: The keys of a secret roll's data that seal it, outside its result.
SEAL = ("commitment", "salt")


def log_key():
    """The key that signs the log: the ``ROLLROOM_LOG_KEY`` setting (from the environment),
    else HMAC-SHA256(SECRET_KEY, label)."""
    key = getattr(settings, "ROLLROOM_LOG_KEY", "")
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
    """Every stored field of a log entry but its hashes and what it keeps beside its data, made
    from it (its outcome, its cells in the export) (``entry``: a LogEntry, current or
    historical). A whisper's recipient (``to``) and place after its number (``sub``) only when
    it has them: the entries before whispers existed hash as they did."""
    fields = {
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
    recipient = getattr(entry, "recipient_id", None)
    if recipient is not None:
        fields["to"] = recipient
    sub = getattr(entry, "sub", 0)
    if sub:
        fields["sub"] = sub
    return fields


def entry_hash(prev_hash, fields, key=None):
    """The hash of an entry with ``fields`` chained to ``prev_hash``, signed with the log key."""
    message = f"{prev_hash}:{canonical(fields)}".encode()
    return hmac.new(key or log_key(), message, hashlib.sha256).hexdigest()


def new_salt():
    return secrets.token_hex(16)


def result_of(data):
    """The result a secret roll's commitment covers: its data without the seal."""
    return {k: v for k, v in data.items() if k not in SEAL}


def preimage(result, salt):
    """What a commitment is the sha256 of: ``salt``, a colon and the canonical JSON of
    ``result``. Once a secret roll is revealed, anyone can hash it again."""
    return f"{salt}:{canonical(result)}"


def commitment(result, salt):
    """The commitment to ``result`` with ``salt``, in hex."""
    return hashlib.sha256(preimage(result, salt).encode()).hexdigest()


def seal(data):
    """A secret roll's ``data`` with a fresh salt and its commitment."""
    salt = new_salt()
    return {**data, "salt": salt, "commitment": commitment(result_of(data), salt)}
