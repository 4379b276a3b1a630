"""Accounts: the sign-up rules, argon2id password hashes, creating users and checking
their passwords, and guests. A password is never logged nor kept but as its hash."""

from __future__ import annotations

import functools
import re
import secrets

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from referee.web.models import User

__all__ = ["AccountError", "add_user", "authenticate", "check_name", "check_password",
           "create_guest", "find_user"]

NAME = re.compile(r"[A-Za-z0-9_.\-]{2,40}")
"""A user's name: 2 to 40 ASCII letters, digits, '_', '-' or '.' (no look-alike letters)."""

GUEST_PREFIX = "guest-"
"""The start of every guest's name, which no one may sign up with."""

PASSWORD_MIN, PASSWORD_MAX = 8, 1024
"""A password's shortest and longest lengths (characters)."""

NO_PASSWORD = "!"
"""The password hash of a guest: no password matches it."""

hasher = PasswordHasher()
"""argon2id with argon2-cffi's default parameters (RFC 9106's low-memory choice)."""



@functools.cache
def dummy_hash() -> str:
    """A hash no password is known for, checked against when the name is unknown so that
    the answer takes as long (made once, when first needed: the server makes it as it
    starts; a command that only adds an account never does)."""
    return hasher.hash(secrets.token_urlsafe(16))


class AccountError(ValueError):
    """A sign-up or log-in refused; the message says why to the person."""


def check_name(name: str) -> str:
    """``name`` if it may be an account's name, else an ``AccountError`` saying why."""
    if not NAME.fullmatch(name):
        raise AccountError("a name is 2 to 40 letters (a-z, A-Z), digits, '_', '-' or '.'")
    if name.casefold().startswith(GUEST_PREFIX):
        raise AccountError(f"names that start with '{GUEST_PREFIX}' are the guests'")
    return name


def check_password(password: str) -> str:
    """``password`` if it may be one, else an ``AccountError`` saying why."""
    if len(password) < PASSWORD_MIN:
        raise AccountError(f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise AccountError(f"a password has at most {PASSWORD_MAX} characters")
    return password


def find_user(session: Session, name: str) -> User | None:
    """The account named ``name`` whatever its case, or None."""
    return session.scalar(sa.select(User).where(User.key == name.casefold()))


def add_user(session: Session, name: str, password: str, admin: bool = False) -> User:
    """Create the account ``name`` with ``password`` (hashed) and commit it; a bad name or
    password, or a name taken (in any case), is an ``AccountError``."""
    check_name(name)
    check_password(password)
    if find_user(session, name) is not None:
        raise AccountError(f"the name {name!r} is taken")
    user = User(name=name, key=name.casefold(), password_hash=hasher.hash(password),
                is_admin=admin, is_guest=False)
    session.add(user)
    try:
        session.commit()
    except IntegrityError:  # taken in the meantime
        session.rollback()
        raise AccountError(f"the name {name!r} is taken") from None
    return user


def authenticate(session: Session, name: str, password: str) -> User | None:
    """The account ``name`` if ``password`` is its password, else None (as long to answer
    either way). A hash made with older parameters is made again."""
    user = find_user(session, name) if NAME.fullmatch(name) else None
    if user is None or user.is_guest:
        _verify(dummy_hash(), password)
        return None
    if not _verify(user.password_hash, password):
        return None
    if hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hasher.hash(password)
        session.commit()
    return user


def _verify(password_hash: str, password: str) -> bool:
    """Whether ``password`` matches ``password_hash``."""
    try:
        return hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def create_guest(session: Session) -> User:
    """A new guest account (``guest-`` and random letters), which has no password."""
    for length in (4, 4, 4, 6, 6, 8, 8, 12):
        name = GUEST_PREFIX + secrets.token_hex(length // 2 + 1)[:length]
        user = User(name=name, key=name.casefold(), password_hash=NO_PASSWORD,
                    is_admin=False, is_guest=True)
        session.add(user)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
            continue
        return user
    raise AccountError("no guest name is free; try again")
