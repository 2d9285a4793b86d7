"""The web process's pool threads run at a lower CPU priority than its event loop's thread."""

import os
import threading

from agentsite import threads


def _niceness_of_a_thread(target) -> int:
    seen: list[int] = []

    def run() -> None:
        target()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen[0]


def test_lower_priority_raises_only_the_calling_threads_niceness(settings):
    settings.AGENT_POOL_NICENESS = 7
    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    assert _niceness_of_a_thread(threads.lower_priority) == max(base, 7)  # a higher one cannot be lowered
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base  # the caller's own thread untouched

    settings.AGENT_POOL_NICENESS = 0  # off
    assert _niceness_of_a_thread(threads.lower_priority) == base


def test_the_turn_pool_and_recall_helpers_run_at_the_pool_niceness(settings):
    from chat.consumers import pool
    from memory.recall import _helper_pool

    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    expected = max(base, settings.AGENT_POOL_NICENESS)

    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    assert pool("turn").submit(niceness).result() == expected
    assert pool("connect").submit(niceness).result() == expected
    assert _helper_pool().submit(niceness).result() == expected
