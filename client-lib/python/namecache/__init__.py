# SPDX-License-Identifier: MIT
"""namecache: socket.getaddrinfo's answers from namecached, the host's caching name service.

    import namecache
    namecache.getaddrinfo("example.org", 443, type=socket.SOCK_STREAM)

getaddrinfo(host, port, family=0, type=0, proto=0, flags=0) returns exactly
what socket.getaddrinfo returns (the same tuples, in the same order: RFC
6724 as glibc sorts, /etc/gai.conf included) and raises the same
socket.gaierror.  A name in namecached's shared cache is answered on the
calling thread with no system call; a miss asks the daemon over its
socket.  What namecache cannot answer exactly (a service name,
AI_V4MAPPED, no daemon running) goes to socket.getaddrinfo itself, so the
module is safe to use anywhere.

namecache.aio has the asyncio side: a coroutine that never uses the
executor for what the daemon answers, and install(), which makes a loop's
own getaddrinfo use it.
"""
from namecache._namecache import getaddrinfo, counters  # noqa: F401

__all__ = ["getaddrinfo", "counters", "aio"]
__version__ = "@VERSION@"


def __getattr__(name):
    # namecache.aio without importing asyncio for programs that never use it
    if name == "aio":
        import importlib
        return importlib.import_module("namecache.aio")
    raise AttributeError(name)
