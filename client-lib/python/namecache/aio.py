# SPDX-License-Identifier: MIT
"""namecache.aio: asyncio lookups answered by namecached, never on the executor.

    await namecache.aio.getaddrinfo(host, port, family=0, type=0, proto=0, flags=0)

returns what loop.getaddrinfo returns.  A hit in the daemon's shared cache
is answered on the loop's thread at once; a miss goes over one non-blocking
connection per loop, watched with loop.add_reader; nothing waits for a
thread.  What namecache cannot answer exactly (a service name, AI_V4MAPPED,
no daemon) goes to the loop's own getaddrinfo, in the executor.

    namecache.aio.install(loop=None)

makes the loop's getaddrinfo this one, so asyncio.open_connection,
loop.create_connection, aiohttp and the like use it unchanged.
"""
import asyncio
import select
import weakref

from namecache import _namecache

__all__ = ["getaddrinfo", "install", "uninstall"]

_FALLBACK = _namecache.FALLBACK
_drivers = weakref.WeakKeyDictionary()


class _Driver:
    """One loop's connection to the daemon: its descriptor on the loop, and a
    timer for the library's timeout."""

    def __init__(self, loop):
        self.loop = loop
        self.res = _namecache.Resolver()
        self.fd = (-1, 0)
        self.writing = False
        self.timer = None

    def submit(self, host, port, family, type, proto, flags):
        """A list (answered now), _FALLBACK, or a future for the answer."""
        fut = self.loop.create_future()
        r = self.res.submit(host, port, family, type, proto, flags,
                            lambda v: _settle(fut, v))
        if r is not None:
            return r
        self._watch()
        return fut

    def _ready(self):
        self.res.process()
        self._watch()

    def _watch(self):
        """After every call on the resolver: the descriptor (it changes on
        a reconnect, maybe to the same number), its events, the timer."""
        fd = self.res.fd()
        if fd != self.fd:
            if self.fd[0] >= 0:
                self.loop.remove_reader(self.fd[0])
                if self.writing:
                    self.loop.remove_writer(self.fd[0])
            self.fd, self.writing = fd, False
            if fd[0] >= 0:
                self.loop.add_reader(fd[0], self._ready)
        if fd[0] >= 0:
            want = bool(self.res.events() & select.POLLOUT)
            if want != self.writing:
                if want:
                    self.loop.add_writer(fd[0], self._ready)
                else:
                    self.loop.remove_writer(fd[0])
                self.writing = want
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        ms = self.res.timeout()
        if ms == 0:
            self.timer = self.loop.call_soon(self._ready)
        elif ms > 0:
            self.timer = self.loop.call_later(ms / 1000.0, self._ready)


def _settle(fut, value):
    if fut.done():
        return
    if isinstance(value, BaseException):
        fut.set_exception(value)
    else:
        fut.set_result(value)


def _driver(loop):
    d = _drivers.get(loop)
    if d is None:
        d = _drivers[loop] = _Driver(loop)
    return d


async def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
    """loop.getaddrinfo's answer, from namecached."""
    loop = asyncio.get_running_loop()
    r = _driver(loop).submit(host, port, family, type, proto, flags)
    if isinstance(r, asyncio.Future):
        r = await r
    if r is _FALLBACK:
        # the loop's class's own method: an install()ed one would come back here
        return await type_of(loop).getaddrinfo(loop, host, port, family=family, type=type,
                                               proto=proto, flags=flags)
    return r


def type_of(loop):
    return loop.__class__


def install(loop=None):
    """Makes loop's getaddrinfo (the running loop's, or the current one's)
    namecache's.  Returns the loop."""
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = asyncio.get_event_loop_policy().get_event_loop()

    async def loop_getaddrinfo(host, port, *, family=0, type=0, proto=0, flags=0):
        return await getaddrinfo(host, port, family, type, proto, flags)

    loop.getaddrinfo = loop_getaddrinfo
    return loop


def uninstall(loop):
    """Gives loop its own getaddrinfo back."""
    loop.__dict__.pop("getaddrinfo", None)
