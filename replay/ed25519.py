"""Ed25519 through the ``cryptography`` package: the one place Floe does the arithmetic.

The domain builds the messages (``domain.engine.signing``); the audit checks players' and the
service's signatures with ``signature_is_valid``; the service, its receipts and the client
helper sign with ``sign``.
"""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from domain.engine.signing import is_public_key, is_signature


def signature_is_valid(public_key: str, message: bytes, signature: str) -> bool:
    """Whether ``signature`` (128 hex) is ``public_key``'s (64 hex) over ``message``; False
    for anything malformed, including a key that is not a point of the curve."""
    if not is_public_key(public_key) or not is_signature(signature):
        return False
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key))
        key.verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def new_private_key() -> str:
    """A fresh private key: its 32 secret bytes as 64 hex digits (RFC 8032's seed)."""
    return Ed25519PrivateKey.generate().private_bytes_raw().hex()


def public_key_of(private_key: str) -> str:
    """The public key (64 hex) of a private key given as 64 hex digits."""
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private_key))
    return key.public_key().public_bytes_raw().hex()


def sign(private_key: str, message: bytes) -> str:
    """``private_key``'s signature over ``message``, 128 hex digits (Ed25519 is deterministic:
    the same key and message always give the same signature)."""
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private_key))
    return key.sign(message).hex()
