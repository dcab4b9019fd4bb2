"""When loaded tools ask the registry again: one daemon thread per process polls every side (a server, key and sticky
id) whose tools ``load_tools`` loaded, each at its own interval. What a poll does is live.py's; this module only keeps
time. A daemon thread never keeps the process alive; ``stop_refresh`` ends the polls."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Hashable, Iterable, List, Optional

try:
    from typing import Protocol
except ImportError:  # Python 3.7
    Protocol = object  # type: ignore[assignment,misc]

logger = logging.getLogger("toolcoach")

DEFAULT_REFRESH_INTERVAL_S = 60.0
# Sides polled at most; a process that loads tools for a session per conversation would otherwise poll every
# conversation it ever had. The side loaded least recently stops being refreshed first.
MAX_SIDES = 1_000


class Polled(Protocol):
    """A side's loaded tools and how to ask whether their descriptions changed."""

    tools: List[Any]

    def poll(self) -> Any: ...


class _Side:
    def __init__(self, target: Polled, interval_s: float) -> None:
        self.target = target
        self.interval_s = interval_s
        self.due_at = time.monotonic() + interval_s


class Refresher:
    def __init__(self) -> None:
        self._sides: "OrderedDict[Hashable, _Side]" = OrderedDict()
        self._changed = threading.Condition()
        self._thread: Optional[threading.Thread] = None

    def watched(self, key: Hashable) -> Optional[Polled]:
        with self._changed:
            side = self._sides.get(key)
            return side.target if side else None

    def watch(self, key: Hashable, target: Polled, interval_s: float) -> None:
        """Polls ``target`` every ``interval_s`` from now on, in place of what the side ``key`` polled before."""
        with self._changed:
            self._sides[key] = _Side(target, interval_s)
            self._sides.move_to_end(key)
            while len(self._sides) > MAX_SIDES:
                self._sides.popitem(last=False)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="toolcoach-refresh", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def stop(self, tools: Optional[Iterable[Any]] = None) -> int:
        """Stops the sides that loaded any of ``tools`` (every side without it); returns how many were stopped."""
        with self._changed:
            ids = None if tools is None else {id(tool) for tool in tools}
            keys = [key for key, side in self._sides.items() if ids is None or any(id(tool) in ids for tool in side.target.tools)]
            for key in keys:
                del self._sides[key]
            self._changed.notify_all()
            return len(keys)

    def side_count(self) -> int:
        with self._changed:
            return len(self._sides)

    def _run(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = [side for side in self._sides.values() if side.due_at <= now]
                if not due:
                    next_at = min((side.due_at for side in self._sides.values()), default=None)
                    self._changed.wait(None if next_at is None else next_at - now)
                    continue
                for side in due:
                    side.due_at = now + side.interval_s
            # One side after another and outside the lock: a slow registry delays the polls, never load_tools.
            for side in due:
                try:
                    side.target.poll()
                except Exception as error:  # a bug in a poll must not end the thread that serves every side
                    logger.debug("toolcoach: a refresh failed: %s", error)


refresher = Refresher()


def stop_refresh(tools: Optional[Iterable[Any]] = None) -> int:
    """Stops refreshing the descriptions of ``tools`` (of every tool ``load_tools`` loaded without it): for a
    conversation that ended, or before shutting down. Returns how many sides stopped."""
    return refresher.stop(tools)
