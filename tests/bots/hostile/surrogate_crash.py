"""Dies with a lone UTF-16 surrogate and a NUL in its error message, after printing invalid UTF-8, NULs
and surrogates to its log. The SDK sends the message as JSON, so the surrogate travels as the escape
``\\ud800``: taken at its word it is text no UTF-8 database column can hold, and the match (or the upload
whose smoke match it is) could not be recorded."""
import os
import sys


def act(observation, legal_actions):
    print("lone \ud800 surrogate, NUL \x00 here")
    sys.stdout.flush()
    os.write(2, b"raw invalid utf-8 \xff\xfe\xc0\xaf and a NUL \x00 end\n")
    raise RuntimeError("lost \ud800 on purpose \x00 and \udfff again")
