"""The seccomp filter's binary-tree layout (``SCMP_FLTATR_CTL_OPTIMIZE``) answers every call as the
plain list of the same rules does: both programs are run here, by a small classic-BPF interpreter, on
every syscall number and on every argument value the policy's rules test."""

import itertools
import struct

import pytest

from bots.sandbox import linux
from bots.sandbox.policy import default_policy, seccomp_rules

AUDIT_ARCH_X86_64 = 0xC000003E


def decode(program: bytes) -> list[tuple[int, int, int, int]]:
    """A classic BPF program's instructions: (code, jt, jf, k)."""
    return [struct.unpack_from("<HBBI", program, offset) for offset in range(0, len(program), 8)]


def run_bpf(code: list[tuple[int, int, int, int]], data: bytes) -> int:
    """The return value of a decoded classic BPF program (:func:`decode`; as seccomp runs it) on ``data``."""
    a = x = 0
    memory = [0] * 16
    pc = 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        kind = op & 0x07
        if kind == 0x00:  # ld
            mode = op & 0xE0
            if mode == 0x20:
                a = struct.unpack_from("<I", data, k)[0]
            elif mode == 0x00:
                a = k
            elif mode == 0x60:
                a = memory[k]
            else:
                raise AssertionError(f"unexpected ld {op:#x}")
        elif kind == 0x01:  # ldx
            x = memory[k] if op & 0xE0 == 0x60 else k
        elif kind == 0x02:
            memory[k] = a
        elif kind == 0x03:
            memory[k] = x
        elif kind == 0x04:  # alu
            operand = x if op & 0x08 else k
            alu = op & 0xF0
            if alu == 0x50:
                a &= operand
            elif alu == 0x40:
                a |= operand
            elif alu == 0x00:
                a = (a + operand) & 0xFFFFFFFF
            elif alu == 0x10:
                a = (a - operand) & 0xFFFFFFFF
            else:
                raise AssertionError(f"unexpected alu {op:#x}")
        elif kind == 0x05:  # jmp
            operand = x if op & 0x08 else k
            test = op & 0xF0
            if test == 0x00:
                pc += k
                continue
            taken = {0x10: a == operand, 0x20: a > operand, 0x30: a >= operand, 0x40: bool(a & operand)}[test]
            pc += jt if taken else jf
        elif kind == 0x06:  # ret
            return k if not op & 0x10 else a
        elif kind == 0x07:  # misc
            if op & 0xF8 == 0x00:
                x = a
            else:
                a = x
        else:
            raise AssertionError(f"unexpected op {op:#x}")


def _compile(lib, rules, optimize: bool) -> bytes:
    real = lib.seccomp_attr_set

    class Library:
        """``lib`` with the layout attribute left alone, or set."""

        def __getattr__(self, name):
            return getattr(lib, name)

        def seccomp_attr_set(self, ctx, attribute, value):
            if attribute == linux.SCMP_FLTATR_CTL_OPTIMIZE and not optimize:
                return 0
            return real(ctx, attribute, value)

    return linux.compile_seccomp(Library(), rules)


def test_the_binary_tree_answers_every_call_as_the_list_does():
    policy = default_policy()
    lib = linux.load_seccomp(policy.seccomp_library)
    if lib is None:
        pytest.skip("libseccomp is not installed")
    rules = tuple((rule.name, rule.when, rule.errno) for rule in seccomp_rules(policy))
    listed, tree = _compile(lib, rules, optimize=False), _compile(lib, rules, optimize=True)
    assert listed != tree, "this libseccomp lays both out alike: nothing to compare"
    listed, tree = decode(listed), decode(tree)
    # Every argument value a rule tests, its neighbours, and values no rule names.
    values = {0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0xFFFFFFFFFFFFFFFF}
    for _, when, _ in rules:
        for _, mask, value in when:
            values.update({value, value ^ 1, value | ~mask & 0xFFFFFFFFFFFFFFFF, mask})
    values = sorted(value & 0xFFFFFFFFFFFFFFFF for value in values)
    tested = {lib.seccomp_syscall_resolve_name(name.encode()) for name, when, _ in rules if when}
    cases = []
    for number in range(-1, 460):
        cases += [(number, AUDIT_ARCH_X86_64, [0] * 6), (number, AUDIT_ARCH_X86_64, [0xFFFFFFFFFFFFFFFF] * 6)]
        if number in tested:
            # One argument varied at a time (a rule tests a few), the others zero.
            cases += [(number, AUDIT_ARCH_X86_64, [value if index == argument else 0 for index in range(6)])
                      for argument, value in itertools.product(range(6), values)]
    # Another ABI (i386) and x32's numbers of this one.
    cases += [(number, 0x40000003, [0] * 6) for number in range(0, 460, 7)]
    cases += [(0x40000000 | number, AUDIT_ARCH_X86_64, [0] * 6) for number in range(0, 460, 7)]
    for number, arch, args in cases:
        data = struct.pack("<iIQ6Q", number, arch, 0, *args)
        assert run_bpf(listed, data) == run_bpf(tree, data), (number, hex(arch), args)
    assert len(cases) > 1000
