"""The seccomp filter of an isolated bot: no new user namespaces.

A user namespace gives a program a root of its own (``unshare -Ur``) and with it the parts
of the kernel only root may reach, which is where namespace escapes are usually found. A
bot needs none, so the filter that bubblewrap loads into the bot before it runs
(``bwrap --seccomp FD``) refuses to make one:

- ``unshare`` and ``clone`` with ``CLONE_NEWUSER`` in their flags fail with ``EPERM``;
- ``clone3``, whose flags lie in memory a filter cannot read, fails with ``ENOSYS``: the C
  library (glibc since 2.34, musl), Go and Rust then fall back to ``clone``, which the
  filter reads (Flatpak's filter does the same);
- every other call is allowed.

The filter covers the machine's own system-call table and the others a process of that
machine can call: on x86-64 the 32-bit table (``int 0x80``) and x32 (numbers with bit 30
set); on AArch64 its own. On another architecture there is no filter
(:func:`user_namespace_filter` gives ``None``) and the sandbox line does not claim it.

The program is classic BPF as the kernel takes it (``struct sock_filter``: a 16-bit
code, two 8-bit jumps, a 32-bit constant), read by the filter from ``struct
seccomp_data`` (the call's number at offset 0, the architecture at 4, the arguments from
16, each 8 bytes, the low half first on these little-endian machines).
"""

from __future__ import annotations

import errno
import functools
import platform
import struct
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CLONE_NEWUSER", "user_namespace_filter"]

CLONE_NEWUSER = 0x10000000

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: load a 32-bit word of seccomp_data
_ALU_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

_NR, _ARCH, _ARG0 = 0, 4, 16
_X32_BIT = 0x40000000


@dataclass(frozen=True)
class _Table:
    """One system-call table a filtered process may call: its audit architecture and
    the numbers of ``clone``, ``unshare`` and ``clone3`` in it."""

    arch: int
    clone: int
    unshare: int
    clone3: int
    x32: bool = False
    """Whether numbers with bit 30 set (x32) use this table."""


_X86_64 = _Table(0xC000003E, clone=56, unshare=272, clone3=435, x32=True)
_I386 = _Table(0x40000003, clone=120, unshare=310, clone3=435)
_AARCH64 = _Table(0xC00000B7, clone=220, unshare=97, clone3=435)
_TABLES = {"x86_64": (_X86_64, _I386), "amd64": (_X86_64, _I386), "aarch64": (_AARCH64,),
           "arm64": (_AARCH64,)}


class _Program:
    """Classic BPF instructions with jumps to named labels, resolved at the end."""

    def __init__(self) -> None:
        self._code: list[tuple[int, str | int, str | int, int]] = []
        self._labels: dict[str, int] = {}

    def op(self, code: int, k: int = 0, true: str | int = 0, false: str | int = 0) -> None:
        """One instruction; ``true``/``false``: a label, or 0 (the next instruction)."""
        self._code.append((code, true, false, k))

    def label(self, name: str) -> None:
        """Name the next instruction."""
        self._labels[name] = len(self._code)

    def bytes(self) -> bytes:
        """The program as ``struct sock_filter`` entries."""
        out = bytearray()
        for at, (code, true, false, k) in enumerate(self._code):
            jumps = [self._labels[j] - at - 1 if isinstance(j, str) else j
                     for j in (true, false)]
            if not all(0 <= j < 256 for j in jumps):
                raise ValueError("seccomp program: a jump out of range")
            out += struct.pack("<HBBI", code, jumps[0], jumps[1], k)
        return bytes(out)


def _program(tables: Sequence[_Table]) -> bytes:
    prog = _Program()
    prog.op(_LD_W_ABS, _ARCH)
    for table in tables:
        prog.op(_JEQ_K, table.arch, true=f"table-{table.arch}")
    prog.op(_RET_K, _RET_ALLOW)  # a table the machine cannot call anyway
    for table in tables:
        prog.label(f"table-{table.arch}")
        prog.op(_LD_W_ABS, _NR)
        if table.x32:
            prog.op(_ALU_AND_K, ~_X32_BIT & 0xFFFFFFFF)
        prog.op(_JEQ_K, table.clone3, true="nosys")
        prog.op(_JEQ_K, table.unshare, true="flags")
        prog.op(_JEQ_K, table.clone, true="flags")
        prog.op(_RET_K, _RET_ALLOW)
    prog.label("flags")  # unshare(flags) and clone(flags, ...): the first argument
    prog.op(_LD_W_ABS, _ARG0)
    prog.op(_JSET_K, CLONE_NEWUSER, true="eperm")
    prog.op(_RET_K, _RET_ALLOW)
    prog.label("eperm")
    prog.op(_RET_K, _RET_ERRNO | errno.EPERM)
    prog.label("nosys")
    prog.op(_RET_K, _RET_ERRNO | errno.ENOSYS)
    return prog.bytes()


@functools.cache
def user_namespace_filter(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (``platform.machine()`` by default) as bytes for
    ``bwrap --seccomp``; ``None`` on an architecture it does not know."""
    tables = _TABLES.get((machine or platform.machine()).lower())
    return _program(tables) if tables else None
