"""Calls getpid through an ABI other than x86-64's (set ``ABI`` to "x32" or "i386"): a filter that checks
only syscall numbers would read them as other calls. The call is made from a second thread: the
kernel must kill the whole bot before any result, not only the calling thread."""
import ctypes
import mmap
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
X32_SYSCALL_BIT = 0x40000000
# mov eax, 20 (getpid on i386); int 0x80; ret
I386_GETPID = bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])


def call_i386():
    code = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(I386_GETPID)
    address = ctypes.addressof(ctypes.c_char.from_buffer(code))
    return ctypes.CFUNCTYPE(ctypes.c_long)(address)()


def call():
    result = call_i386() if ABI == "i386" else libc.syscall(X32_SYSCALL_BIT | 39)  # noqa: F821
    print("RESULT", result, ctypes.get_errno(), flush=True)


def act(observation, legal_actions):
    print("calling getpid through", ABI, flush=True)  # noqa: F821 - set by the test
    caller = threading.Thread(target=call)
    caller.start()
    caller.join(2)
    print("SURVIVED", flush=True)
    return legal_actions[0]
