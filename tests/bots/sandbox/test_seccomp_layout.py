"""The seccomp filter's binary-tree layout (``SCMP_FLTATR_CTL_OPTIMIZE``) answers every call as the
plain list of the same rules does, and the filter installed in two stacked halves (the shell's and the
bot's) as the whole filter does: the programs are run here, by a small classic-BPF interpreter, on every
syscall number and on every argument value the rules test."""

import dataclasses
import itertools
import struct

import pytest

from bots.sandbox import linux
from bots.sandbox.policy import Syscall, default_policy, seccomp_rules, stacked_seccomp_rules

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


def _library(policy):
    lib = linux.load_seccomp(policy.seccomp_library)
    if lib is None:
        pytest.skip("libseccomp is not installed")
    return lib


def _triples(rules):
    return tuple((rule.name, rule.when, rule.errno) for rule in rules)


def _cases(lib, rules) -> list[bytes]:
    """seccomp_data of every syscall number, with every argument value a rule of ``rules`` tests, its
    neighbours and values no rule names, and of foreign ABIs."""
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
    # Every rule's whole condition met (a rule may test several arguments), and each of its tests then
    # missed by one bit, or met with the bits it does not look at set.
    for name, when, _ in rules:
        if not when:
            continue
        number = lib.seccomp_syscall_resolve_name(name.encode())
        exact = [0] * 6
        for argument, _, value in when:
            exact[argument] = value
        cases.append((number, AUDIT_ARCH_X86_64, exact))
        for argument, mask, value in when:
            for other in (value ^ 1, (value | ~mask) & 0xFFFFFFFFFFFFFFFF):
                cases.append((number, AUDIT_ARCH_X86_64, [other if index == argument else exact[index]
                                                          for index in range(6)]))
    # Another ABI (i386) and x32's numbers of this one.
    cases += [(number, 0x40000003, [0] * 6) for number in range(0, 460, 7)]
    cases += [(0x40000000 | number, AUDIT_ARCH_X86_64, [0] * 6) for number in range(0, 460, 7)]
    return [struct.pack("<iIQ6Q", number, arch, 0, *args) for number, arch, args in cases]


def test_the_binary_tree_answers_every_call_as_the_list_does():
    policy = default_policy()
    lib = _library(policy)
    rules = _triples(seccomp_rules(policy))
    listed, tree = _compile(lib, rules, optimize=False), _compile(lib, rules, optimize=True)
    assert listed != tree, "this libseccomp lays both out alike: nothing to compare"
    listed, tree = decode(listed), decode(tree)
    cases = _cases(lib, rules)
    for data in cases:
        assert run_bpf(listed, data) == run_bpf(tree, data), struct.unpack("<iIQ6Q", data)
    assert len(cases) > 1000


def stacked(*returns: int) -> int:
    """What the kernel answers for filters stacked on one process that answered ``returns``: the
    strictest action (compared as signed 32-bit numbers, the kill actions lowest), the data of the first
    (most recently installed) filter that gave it."""
    def action(value: int) -> int:
        only = value & 0xFFFF0000
        return only - (1 << 32) if only & 0x80000000 else only

    strictest = returns[0]
    for value in returns[1:]:
        if action(value) < action(strictest):
            strictest = value
    return strictest


def test_the_filter_in_two_halves_answers_every_call_as_the_whole_filter_does():
    policy = default_policy()
    lib = _library(policy)
    whole = _triples(seccomp_rules(policy))
    shell_rules, bot_rules = (_triples(rules) for rules in stacked_seccomp_rules(policy))
    one = decode(linux.compile_seccomp(lib, whole))
    shell, bot = decode(linux.compile_seccomp(lib, shell_rules)), decode(linux.compile_seccomp(lib, bot_rules, refuse=True))
    cases = _cases(lib, shell_rules)
    differing = 0
    for data in cases:
        # The bot's half is the last installed: the kernel runs it first.
        assert stacked(run_bpf(bot, data), run_bpf(shell, data)) == run_bpf(one, data), struct.unpack("<iIQ6Q", data)
        differing += run_bpf(shell, data) != run_bpf(one, data)
    # The shell's half alone allows what the bot's refuses: the two really differ from the whole.
    assert differing > 0
    assert len(cases) > 1000


def test_a_policy_that_grants_bots_a_call_of_the_shell_cannot_be_split():
    policy = default_policy()
    granting = dataclasses.replace(policy, syscalls=policy.syscalls + (Syscall("setresuid"),))
    with pytest.raises(ValueError, match="overlaps"):
        stacked_seccomp_rules(granting)
